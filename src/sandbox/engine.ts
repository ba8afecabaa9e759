/** The docker engine client: one dockerode instance per process (honours DOCKER_HOST), and a bounded liveness probe. */
import Docker from 'dockerode';

let client: Docker | null = null;

export function getDocker(): Docker {
  client ??= new Docker();
  return client;
}

/** Resolves true when the engine answers `/_ping` within `timeoutMs`. Never rejects. */
export async function engineAnswers(timeoutMs = 2000, docker: Docker = getDocker()): Promise<boolean> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  try {
    await (docker.ping as (opts: { abortSignal: AbortSignal }) => Promise<unknown>)({ abortSignal: ac.signal });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** HTTP status of a dockerode error, if any. */
export function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number })?.statusCode;
}

/** Reads a docker progress stream (pull/import/build) to its end; rejects on an error line. */
export function followProgress(docker: Docker, stream: NodeJS.ReadableStream): Promise<{ status?: string }[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, output: { status?: string; error?: string }[]) => {
      if (err) return reject(err);
      const failed = output.find((o) => o.error);
      if (failed) return reject(new Error(failed.error));
      resolve(output);
    });
  });
}
