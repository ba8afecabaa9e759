/**
 * Which engine answers the docker API: Docker itself, or Podman's compat service (detected from `/version`, never
 * assumed from the socket's path, so DOCKER_HOST pointing at a podman socket works as well). The few places where
 * Podman 4's compat API differs from Docker's ask here.
 */
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';

/** The engine behind a docker API client. */
export type EngineFlavour = 'docker' | 'podman';

const flavours = new WeakMap<Docker, Promise<EngineFlavour>>();

/** `podman` when the engine's `/version` lists a "Podman Engine" component; memoised per client; never rejects. */
export function engineFlavour(docker: Docker): Promise<EngineFlavour> {
  let p = flavours.get(docker);
  if (!p) {
    p = (docker.version() as Promise<{ Components?: { Name?: string }[] }>).then(
      (v) => (v.Components?.some((c) => /podman/i.test(c.Name ?? '')) ? 'podman' : 'docker'),
      () => 'docker' as const,
    );
    // A failed probe (engine not up yet) is asked again next time.
    p.then(
      () => undefined,
      () => flavours.delete(docker),
    );
    flavours.set(docker, p);
  }
  return p;
}

/** One limit of /proc/self/limits as `[soft, hard]`, or null when unreadable ("unlimited" is Number.MAX_SAFE_INTEGER). */
export function ownLimit(name: 'Max open files' | 'Max processes', text?: string): [number, number] | null {
  let body = text;
  try {
    body ??= readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
  const line = body.split('\n').find((l) => l.startsWith(name));
  if (!line) return null;
  const [soft, hard] = line
    .slice(name.length)
    .trim()
    .split(/\s+/)
    .map((v) => (v === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(v)));
  return Number.isFinite(soft) && Number.isFinite(hard) ? [soft!, hard!] : null;
}

/**
 * The container's rlimits. Docker takes `fsize` alone and leaves the others as its daemon has them. Podman (as root)
 * sets nofile and nproc to 1048576 unless told, which runc cannot raise to on a host whose limits are lower ("error
 * setting rlimit"); so on podman they are always given, no higher than this process has them: nofile as it is here
 * (a podman service started beside heldout has the same), nproc at most 16384 (the pids limit is what bounds a case;
 * nproc, counted per uid over the host, only has to stay out of its way).
 */
export function containerUlimits(
  flavour: EngineFlavour,
  fsizeBytes: number | undefined,
  limitsText?: string,
): { Name: string; Soft: number; Hard: number }[] | undefined {
  const out = fsizeBytes === undefined ? [] : [{ Name: 'fsize', Soft: fsizeBytes, Hard: fsizeBytes }];
  if (flavour === 'podman') {
    const [nofileSoft, nofileHard] = ownLimit('Max open files', limitsText) ?? [1024, 4096];
    const [, nprocHard] = ownLimit('Max processes', limitsText) ?? [4096, 4096];
    const nofile = Math.min(nofileHard, 1_048_576);
    const nproc = Math.min(nprocHard, 16_384);
    out.push({ Name: 'nofile', Soft: Math.min(nofileSoft, nofile), Hard: nofile });
    out.push({ Name: 'nproc', Soft: nproc, Hard: nproc });
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Creates a container as `options` say, with podman's differences made up for here, so no caller misses them: the
 * rlimits it would set too high (`containerUlimits`), and the pod's names: a container joining another's network
 * namespace gets its own /etc/hosts there, without the holder's extra hosts (and may set none), so it is given the
 * holder's hosts file, read-only, as docker shares it.
 */
export async function createContainer(
  docker: Docker,
  options: Docker.ContainerCreateOptions,
): Promise<Docker.Container> {
  const flavour = await engineFlavour(docker);
  if (flavour !== 'podman') return docker.createContainer(options);
  const host = options.HostConfig ?? {};
  const given = host.Ulimits ?? [];
  const fsize = given.find((u) => u.Name === 'fsize');
  const others = given.filter((u) => u.Name !== 'fsize' && u.Name !== 'nofile' && u.Name !== 'nproc');
  const Ulimits = [...others, ...(containerUlimits(flavour, fsize?.Hard) ?? [])];
  const joined = host.NetworkMode?.startsWith('container:') ? host.NetworkMode.slice('container:'.length) : null;
  let Mounts = host.Mounts;
  if (joined && !Mounts?.some((m) => m.Target === '/etc/hosts')) {
    const hostsPath = ((await docker.getContainer(joined).inspect()) as { HostsPath?: string }).HostsPath;
    if (hostsPath)
      Mounts = [...(Mounts ?? []), { Type: 'bind', Source: hostsPath, Target: '/etc/hosts', ReadOnly: true }];
  }
  return docker.createContainer({ ...options, HostConfig: { ...host, Ulimits, Mounts } });
}
