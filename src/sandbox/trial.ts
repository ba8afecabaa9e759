/**
 * The trial-container protocol: one container that stays up across the phases of a trial (Harbor's model — the
 * agent, then the verifier, on the same container state), each phase an `exec` in it. Backend-neutral shapes; the
 * docker backend implements them (`docker/trial.ts`). A backend without containers has no `openTrial`.
 */
import type { OutputLimits } from './output-limits.js';
import type { GatewayAttachment, ServiceRecord, ServiceSpec } from './services.js';

/** What a trial container is made from; everything but the image and limits defaults to the image's own. */
export interface TrialSpec {
  /** Labels the container like every sandbox (SIGINT handling and `heldout gc` find it). */
  runId: string;
  caseId: string;
  trial: number;
  image: string;
  /** Replaces the image's ENTRYPOINT ([] clears it); undefined keeps it (it runs with `sleep infinity` as its command). */
  entrypoint?: string[];
  /** The working directory of the container and every exec (created when missing); default the image's WORKDIR. */
  workdir?: string;
  /** The container's user; default the image's USER. */
  user?: string;
  /**
   * ENV instructions laid over the image's environment, in order; `$X`/`${X}` in a value refer to the environment so
   * far (the image's, then earlier entries), as a Dockerfile's ENV does.
   */
  layerEnv?: [string, string][];
  /** Further environment, literal, set last. */
  env?: Record<string, string>;
  limits: { memoryMb: number; cpus: number; pids: number };
  /** Ask for a network: given only where the engine has one (see `TrialContainer.network`); default none. */
  network?: boolean;
  /** The model gateway, reached through a relay that shares the trial's network namespace (loopback only). */
  gateway?: GatewayAttachment;
  /** Host files or directories put in place before the container starts (a directory's contents go under `to`). */
  files?: { from: string; to: string }[];
  /**
   * Services started first, in a pod the container then joins (issue 19: loopback only, each name resolving to
   * 127.0.0.1); a service that cannot start rejects `openTrial` with a ServiceError naming it.
   */
  services?: ServiceSpec[];
  /** Where each service's log is written when the trial closes. */
  serviceLogDir?: string;
}

/** The image's own configuration, as the engine reports it. */
export interface TrialImage {
  workdir: string;
  user: string;
  env: Record<string, string>;
  entrypoint: string[] | null;
}

export interface TrialExecOptions {
  /** Default: the container's user. */
  user?: string;
  /** Default: the container's working directory. */
  cwd?: string;
  env?: Record<string, string>;
  /** The process and everything it started are killed after this long; default no limit. */
  timeoutSeconds?: number;
  /** Cap on each of stdout and stderr kept; default 1 MiB. */
  outputBytes?: number;
}

export interface TrialExecResult {
  /** null when it was killed by the timeout. */
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** A running trial container. Every method but `close` rejects once the container is gone. */
export interface TrialContainer {
  readonly image: TrialImage;
  /** The network the container has: `none`, or the engine network it was given. */
  readonly network: string;
  /** What was asked for that could not be given (e.g. a network on an engine without one), one sentence each. */
  readonly notes: string[];
  /** Runs `argv` in the container; resolves when it exits or its timeout killed it (with what it started). */
  exec(argv: string[], options?: TrialExecOptions): Promise<TrialExecResult>;
  /** Copies a host file (to the path `to`) or a directory's contents (under `to`) in, owned by root. */
  put(from: string, to: string): Promise<void>;
  /**
   * Copies the file or directory at `from` out to the host path `to`; resolves false when it does not exist. With
   * `limits` (counted over what is copied, `to` itself at depth 1) only what fits is copied and the engine's archive
   * is not read past it: resolves with why it stopped (a string) instead of true.
   */
  get(from: string, to: string, limits?: OutputLimits): Promise<boolean | string>;
  /** What the container's own process (its entrypoint) printed, capped. */
  logs(): string;
  /** Null while every service of the pod runs; else why one stopped (it names the service, with its log tail). */
  servicesFailed(): Promise<string | null>;
  /** The pod's services as they ran (their logs written once the trial is closed). */
  services(): ServiceRecord[];
  /** Whether it still runs, its exit code once it stopped, and whether the memory limit killed something. */
  state(): Promise<{ running: boolean; exitCode: number | null; oomKilled: boolean }>;
  /** Removes the container and everything started for it; never rejects. */
  close(): Promise<void>;
}
