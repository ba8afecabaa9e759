/**
 * The podman backend (issue 33): the docker backend's factory on Podman's docker-compatible API service, through
 * the same dockerode client. What differs is found by asking the engine (docker/flavour.ts), so the docker backend
 * with DOCKER_HOST at a podman socket gets the same treatment; this file only says where podman's socket is.
 *
 * Socket: CONTAINER_HOST (podman's own variable, `unix://` only), else root's `/run/podman/podman.sock`, else the
 * user's `$XDG_RUNTIME_DIR/podman/podman.sock`. No socket file there means podman is absent: the backend is then
 * unavailable with that reason and its cleanup sweeps nothing (so `heldout gc` passes on a host without podman).
 * Podman has no registry in heldout's sense either: the runtime image is imported from the host on first use.
 */
import { existsSync } from 'node:fs';
import Docker from 'dockerode';
import { createDockerBackend } from '../docker/backend.js';
import type { BackendOf } from '../protocol.js';

/** The socket podman's API service listens on, by CONTAINER_HOST, then root's and the user's default paths. */
export function podmanSocket(env: NodeJS.ProcessEnv = process.env): string {
  const host = env.CONTAINER_HOST;
  if (host?.startsWith('unix://')) return host.slice('unix://'.length);
  if (host) throw new Error(`CONTAINER_HOST: expected unix:///path/to/podman.sock, got ${host}`);
  const uid = process.getuid?.() ?? 0;
  const runtime = env.XDG_RUNTIME_DIR ?? `/run/user/${uid}`;
  return uid === 0 ? '/run/podman/podman.sock' : `${runtime}/podman/podman.sock`;
}

let client: Docker | null = null;

/** The process-wide client of podman's service (made on first use; dockerode connects only when asked). */
export function getPodman(): Docker {
  client ??= new Docker({ socketPath: podmanSocket() });
  return client;
}

/** A podman backend on `docker` (a client of a podman service), default the one at `podmanSocket()`. */
export function createPodmanBackend(options: { docker?: Docker } = {}): BackendOf<'podman', 'podman'> {
  // A CONTAINER_HOST heldout cannot use makes podman unavailable (saying why), never the sandbox part unloadable.
  let unusable: string | null = null;
  let docker = options.docker;
  if (!docker) {
    try {
      docker = getPodman();
    } catch (err) {
      unusable = (err as Error).message;
      docker = new Docker({ socketPath: '/nonexistent/podman.sock' });
    }
  }
  const socket = (docker.modem as unknown as { socketPath?: unknown }).socketPath;
  return createDockerBackend({
    name: 'podman',
    kind: 'podman',
    docker,
    // Only when named: auto keeps choosing docker, whose figures every existing report was made with.
    autoRank: null,
    absent: () =>
      unusable ??
      (typeof socket === 'string' && !existsSync(socket)
        ? `podman is not running here (no socket at ${socket}; start \`podman system service --time=0\` or set CONTAINER_HOST)`
        : null),
    hint: 'start `podman system service --time=0`, or set CONTAINER_HOST',
  });
}

/** The podman backend on the default socket. */
export const podmanBackend = createPodmanBackend();
