import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Runs the built CLI (`dist/`, built by `npm test`'s pretest) as a user would; resolves with exit code and output. */
export async function heldout(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    const r = await promisify(execFile)('node', [path.join(repoRoot, 'dist/cli/bin.js'), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout: r.stdout, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      out: (e.stdout ?? '') + (e.stderr ?? ''),
    };
  }
}

/**
 * The environment for a `heldout run` whose runtime role is the stub at `baseURL` (and nothing else of the host's
 * model settings): the real key given here is the one the delivery must never see.
 */
export function runtimeStubEnv(baseURL: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    OPENAI_BASE_URL: '',
    OPENAI_API_KEY: '',
    HELDOUT_RUNTIME_BASE_URL: baseURL,
    HELDOUT_RUNTIME_MODEL: 'runtime-model',
    HELDOUT_RUNTIME_API_KEY: 'sk-runtime-real-key',
  };
}

/** `heldout run tasks/log-triage` on one of its example deliveries in the process sandbox, into `out`. */
export function runLogTriage(delivery: string, out: string, extra: string[] = []) {
  return heldout([
    'run',
    'tasks/log-triage',
    '--delivery',
    `fixtures/deliveries/log-triage-${delivery}`,
    '--sandbox',
    'process',
    '--out',
    out,
    ...extra,
  ]);
}
