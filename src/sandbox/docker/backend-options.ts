/** The docker backend factory's options, and the readability check its bind mounts need. */
import { stat } from 'node:fs/promises';
import type Docker from 'dockerode';
import { SANDBOX_UID } from '../sandbox-user.js';

/** How a docker backend reaches its engine and shapes its containers; every field has a default. */
export interface DockerBackendOptions<N extends string = 'docker', K extends string = 'docker'> {
  /** The isolation reports show (default `docker`); a backend made from this factory names its own engine. */
  name?: N;
  /** Name the isolation after the engine that answers (`podman` behind DOCKER_HOST) rather than `name`. */
  nameFromEngine?: boolean;
  /** The registry key (default `docker`). */
  kind?: K;
  /** The engine's client; default the process's (DOCKER_HOST or the local socket). */
  docker?: Docker;
  /** Where `auto` tries it (default 1); null: only when named. */
  autoRank?: number | null;
  /**
   * Why this engine is not installed here (e.g. no socket file), or null: then it is unavailable with that reason
   * and its cleanup has nothing to sweep (a no-op, not an error). Default: never absent.
   */
  absent?: () => string | null;
  /** What an unavailable engine's message suggests; default "start one, set DOCKER_HOST, or use --sandbox process". */
  hint?: string;
  /** Image when the spec names none; default the runtime image (built on first use if missing). */
  defaultImage?: string;
  /** Size of the /tmp tmpfs; default 64 MiB (it counts against the memory limit). */
  tmpMb?: number;
  /** `uid:gid` to run as; default 65534:65534 as root, else the caller's uid:gid. */
  user?: string;
  /** Run docker's init as PID 1 (reaps orphans, forwards signals); default true. */
  init?: boolean;
  /**
   * How files reach the sandbox: `bind` mounts host paths (the engine must share this host's filesystem), `archive`
   * moves them through the engine API into named volumes. Default HELDOUT_DOCKER_TRANSFER, else `auto`: bind for a
   * Unix-socket engine, archive for tcp/ssh.
   */
  transfer?: 'auto' | 'bind' | 'archive';
  /**
   * Path ON THE ENGINE'S HOST where the gateway's socket is reachable (e.g. forwarded there with
   * `ssh -R /run/heldout-gw.sock:<local gateway.sock> engine-host`). Needed for model-using cases on a remote engine.
   * Default HELDOUT_GATEWAY_SOCKET_ON_ENGINE.
   */
  gatewaySocketOnEngine?: string;
  /** Cap on running sandboxes on this engine over all heldout processes of this machine; default HELDOUT_MAX_SANDBOXES or 2 × engine CPUs. */
  maxRunning?: number;
  /**
   * Sandbox starts per second on this engine (ramp-up); default HELDOUT_STARTS_PER_SECOND or 32. It only has to keep
   * a burst of starts from swamping the engine: set near the engine's own start rate it throttles short cases (at
   * 8/s the bench measured throughput capped at 8 cases/s while `xargs -P` reached 13).
   */
  startsPerSecond?: number;
}

/** Rejects unless `dir` is a directory the sandbox user can read (as root, the sandbox user is not the caller). */
export async function checkReadable(dir: string, what: string): Promise<void> {
  let s: import('node:fs').Stats;
  try {
    s = await stat(dir);
  } catch {
    throw new Error(`sandbox: ${what} ${dir} does not exist`);
  }
  if (!s.isDirectory()) throw new Error(`sandbox: ${what} ${dir} is not a directory`);
  if ((process.getuid?.() ?? 0) === 0 && (s.mode & 0o005) !== 0o005) {
    throw new Error(
      `sandbox: ${what} ${dir} is not readable by the sandbox user ${SANDBOX_UID} (mode ${(s.mode & 0o777).toString(8)}); chmod o+rx it`,
    );
  }
}
