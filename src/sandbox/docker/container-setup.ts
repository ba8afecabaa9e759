/**
 * What every docker-isolated sandbox shares, whether a container (docker) or a Swarm task (swarm): the paths inside,
 * the user, the environment, the image check, and how the model gateway's socket reaches the engine.
 */
import type Docker from 'dockerode';
import { OWNER_LABEL, ownerToken } from '../owner.js';
import type { GatewayAttachment, SandboxSpec } from '../protocol.js';
import { SANDBOX_UID } from '../sandbox-user.js';
import { caseEnv } from '../staging.js';
import { isLocalEngine, statusOf } from './engine.js';
import { ensureRuntimeImage, RUNTIME_IMAGE } from './runtime-image.js';

/** Every container, service, network and volume heldout makes carries `heldout=1`, and its run's id. */
export const LABEL = 'heldout';
export const RUN_LABEL = 'heldout.run';

/**
 * The labels of one case × trial's sandbox: `heldout gc` and SIGINT handling find it by them, and a sweep tells by
 * its owner whether the process that made it is still alive.
 */
export function caseLabels(spec: Pick<SandboxSpec, 'runId' | 'caseId' | 'trial'>): Record<string, string> {
  return {
    [LABEL]: '1',
    [RUN_LABEL]: spec.runId,
    'heldout.case': spec.caseId,
    'heldout.trial': String(spec.trial),
    [OWNER_LABEL]: ownerToken(),
  };
}

/** Where things are inside a docker sandbox. */
export const CONTAINER_PATHS = {
  delivery: '/delivery',
  case: '/case',
  input: '/case/input.md',
  output: '/out',
  run: '/out/.run',
} as const;

/** Where the gateway's socket and relay are inside; with archive transfer the relay comes in a volume of its own. */
export const GATEWAY_PATHS = {
  socket: '/gateway/gateway.sock',
  relay: '/gateway/relay.mjs',
  relayDir: '/gateway/relay',
  /** A mapped service's socket (issue 30): `${services}/<name>.sock`. */
  services: '/gateway/services',
} as const;

/** A backend's options with the gateway socket's path on the engine host from HELDOUT_GATEWAY_SOCKET_ON_ENGINE when not given. */
export function withEngineDefaults<T extends { gatewaySocketOnEngine?: string }>(options: T): T {
  return {
    ...options,
    gatewaySocketOnEngine: options.gatewaySocketOnEngine ?? process.env.HELDOUT_GATEWAY_SOCKET_ON_ENGINE,
  };
}

/** `uid:gid` to run as: 65534 (nobody) as root, else the caller's, so the outputs belong to whoever runs heldout. */
export function sandboxUser(): string {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return uid === 0 ? `${SANDBOX_UID}:${SANDBOX_UID}` : `${uid}:${gid}`;
}

/** The container's environment (`K=V`): a /tmp home, the case's HELDOUT_* paths, the spec's, then the gateway's. */
export function containerEnv(spec: SandboxSpec, gw: GatewayAttachment | undefined): string[] {
  const env: Record<string, string> = {
    HOME: '/tmp',
    TMPDIR: '/tmp',
    ...caseEnv(spec, CONTAINER_PATHS),
    ...spec.env,
    ...gw?.env,
    ...Object.assign({}, ...(spec.serviceRelays ?? []).map((r) => r.env)),
  };
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

/**
 * The image to run: the runtime image is built on the engine when missing (or stale); any other must be there
 * already (heldout pulls nothing), else the run fails with `missing`.
 */
export async function engineImage(docker: Docker, image: string, missing: string): Promise<string> {
  if (image === RUNTIME_IMAGE) {
    await ensureRuntimeImage({ docker });
    return image;
  }
  try {
    await docker.getImage(image).inspect();
  } catch (err) {
    if (statusOf(err) === 404) throw new Error(missing);
    throw err;
  }
  return image;
}

/**
 * The gateway when the engine can reach its socket: a local engine shares this host's, a remote one needs it
 * forwarded to `socketOnEngine`. Otherwise a case that may make no model call runs without it; any other fails
 * with `refusal`.
 */
export function reachableGateway(
  docker: Docker,
  gw: GatewayAttachment | undefined,
  socketOnEngine: string | undefined,
  refusal: string,
): GatewayAttachment | undefined {
  if (!gw || isLocalEngine(docker) || socketOnEngine) return gw;
  if (gw.required === false) return undefined;
  throw new Error(refusal);
}

/** The bind mount of the gateway's socket, from where the engine's host has it. */
export function gatewaySocketMount(
  docker: Docker,
  gw: GatewayAttachment,
  socketOnEngine: string | undefined,
): Docker.MountSettings {
  const source = isLocalEngine(docker) ? gw.socketPath : socketOnEngine!;
  return { Type: 'bind', Source: source, Target: GATEWAY_PATHS.socket, ReadOnly: true };
}
