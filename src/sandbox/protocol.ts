/**
 * The sandbox protocol (DESIGN §7): one isolated execution of a delivery's entry command on one case. A backend
 * implements these shapes for its own names; `types.ts` gives them the names of the registered backends.
 */
import type { OutputLimits } from './output-limits.js';
import type { GatewayAttachment, ServiceRecord, ServiceRelay, ServiceSpec } from './services.js';
import type { TrialContainer, TrialSpec } from './trial.js';

export type { GatewayAttachment, ServiceReady, ServiceRecord, ServiceRelay, ServiceSpec } from './services.js';

export type { TrialContainer, TrialExecOptions, TrialExecResult, TrialImage, TrialSpec } from './trial.js';

/** Resource limits of one execution; taken from the commission's budgets. */
export interface SandboxLimits {
  wallSeconds: number;
  memoryMb: number;
  cpus: number;
  pids: number;
  /** Cap on captured stdout and on stderr, each; the rest is discarded and the run goes on. */
  outputBytes: number;
  /**
   * What the output directory may hold (output-limits.ts): past it the sandbox is stopped, only what fits is kept,
   * and the execution says why (`outputLimit`). No bound when absent.
   */
  out?: OutputLimits;
}

export interface SandboxSpec {
  /** Labels every container of the run, so SIGINT handling and `heldout gc` find them. */
  runId: string;
  caseId: string;
  trial: number;
  /** Image for the docker backend; default: the runtime image `heldout image build` makes. */
  image?: string;
  /** Entry command with placeholders {input} {output} {run} {case} {delivery}, resolved by the backend. */
  command: string;
  /** Mounted read-only (docker: at /delivery, the working directory). */
  deliveryDir: string;
  /** The case's input.md; staged with `assetsDir` (and nothing else of the case) into the sandbox read-only. */
  inputPath: string;
  assetsDir: string | null;
  /** Host directory that receives the outputs; the only writable mount besides a small /tmp. */
  outputDir: string;
  /**
   * Host paths of the evaluator (the commission, the report directory, the cases' own directories) that the delivery
   * must not see. A container sees nothing of the host anyway; the process backend hides them in its private root
   * and, where it can build none, refuses to run a case that could read them.
   */
  evaluatorPaths?: string[];
  env?: Record<string, string>;
  limits: SandboxLimits;
  gateway?: GatewayAttachment;
  /** Mapped URL services relayed in (issue 30); a backend that cannot relay them refuses the case naming them. */
  serviceRelays?: ServiceRelay[];
  /** Further read-only (or writable) mounts, e.g. the patched tree for an evaluator command. */
  mounts?: { hostPath: string; containerPath: string; readOnly: boolean }[];
  /**
   * Optional (process backend only; a container sees nothing of the host anyway): host directories to hide under an
   * empty read-only tmpfs when a mount namespace is permitted. Default: the directory holding the case's directory
   * (its sibling cases and their truth), or the case directory itself when that parent holds something the run
   * needs. A path that contains the staging, output or delivery directory is never hidden.
   */
  hidePaths?: string[];
  /** The case's services (issue 19), in start order: each is ready before the next starts, all before the case. */
  services?: ServiceSpec[];
  /** Host directory that receives `<service>.log` of each service after the case (evidence); default none kept. */
  serviceLogDir?: string;
}

/** A Dockerfile build a commission's environment or a service asks for (issue 19). */
export interface BuildRequest {
  /** Names the image (`heldout/build-<name>:<digest>`) and the build in messages. */
  name: string;
  /** Host directory sent as the build context. */
  context: string;
  /** Relative to the context; default `Dockerfile`. */
  dockerfile?: string;
  args?: Record<string, string>;
  /** Where the build's log is written (kept as evidence; a cache hit says so there). */
  logFile?: string;
}

/** A built (or cached) image. */
export interface BuiltImageRef {
  image: string;
  id: string;
  /** sha256 of the context as sent (`.dockerignore` applied), the Dockerfile's name, the build args, the bases' ids. */
  digest: string;
  /** True when an image of the same digest was there already and nothing was built. */
  cached: boolean;
  /** The images the Dockerfile starts or copies from (all present on the engine). */
  baseImages: string[];
}

/** What `heldout image build` reports: the image, its recipe, and whether this call made it. */
export interface BuiltImage {
  tag: string;
  id: string;
  recipeHash: string;
  /** True when this call built it; false when an image with the same recipe already existed. */
  built: boolean;
  ms: number;
  python: string | null;
  /** The host pytest version copied in, or null. */
  pytest: string | null;
  tools: string[];
  warnings: string[];
}

/** What one execution did; gates are computed from it (DESIGN §4). */
export interface ExecutionOf<Isolation extends string = string> {
  /** The isolation the execution had: `docker` also for swarm tasks (they are docker containers). */
  backend: Isolation;
  /** Shell convention on both backends: a death by signal n is 128+n (and `signal` names it); null: never launched. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  oom: boolean;
  wallMs: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Why the outputs went past `limits.out` (the sandbox was stopped and only what fits was kept), or null. */
  outputLimit?: string | null;
  /** Relative paths of the files left in outputDir. */
  outputs: string[];
  /** Guarantees this backend could not give on this machine (e.g. "no network namespace"); empty for docker. */
  weakerIsolation: string[];
  /** The case's services as they ran (issue 19). */
  services?: ServiceRecord[];
}

/** What `cleanup` removed, counted by the kind of thing (containers, volumes, cgroups, …), and what it `kept`. */
export type Removed = Record<string, number>;

/** How `cleanup` treats leftovers whose owner process is still alive. */
export interface CleanupOptions {
  /** Leave what a live process owns (and, without a run id, what cannot be checked from here). Default false. */
  keepLive?: boolean;
}

/**
 * A caller's concurrency slot: resolves with its release once granted (a release may be called more than once).
 * A backend that takes turns holds one only while an entry command runs.
 */
export type Turn = (signal?: AbortSignal) => Promise<() => void>;

/** How one `run` is driven: an abort signal, and the caller's turn (see `BackendOf.run`). */
export interface RunOptions {
  signal?: AbortSignal;
  turn?: Turn;
}

/** A sandbox implementation, registered by its `kind` in `registry.ts`. */
export interface BackendOf<Isolation extends string = string, Kind extends string = string> {
  /** The isolation this backend gives (what reports show); `kind` says how it schedules. */
  readonly name: Isolation;
  /** The registry key that selects this backend (`swarm` schedules docker isolation as Swarm services). */
  readonly kind: Kind;
  /** Where `auto` tries this backend, lowest first (the first that can run here wins); null: only when named. */
  readonly autoRank: number | null;
  /** Resolves true when this backend can run here (an engine answers, unshare is permitted, …). */
  available(): Promise<boolean>;
  /** Why this backend cannot run here, null when it can: the error a run that named it fails with. Never rejects. */
  unavailable(timeoutMs?: number): Promise<string | null>;
  /**
   * Runs one execution; always resolves (infra failures reject), and leaves nothing running behind it. With a `turn`
   * (only where `takesTurns`), the entry command starts only once the turn is granted and the turn is released as
   * soon as the command has exited: staging, creating, starting and removing happen outside it.
   */
  run(spec: SandboxSpec, options?: RunOptions): Promise<ExecutionOf<Isolation>>;
  /**
   * True when `run` honours `options.turn` (prepares each execution ahead of its turn); otherwise the caller holds its
   * concurrency slot around the whole `run`.
   */
  readonly takesTurns?: boolean;
  /**
   * The most sandboxes this backend runs at once over every heldout process of this machine (its engine gate), which
   * a run's concurrency cannot exceed; absent when only the caller's concurrency bounds it. Never rejects.
   */
  runningCap?(): Promise<number>;
  /** Where a `spec.mounts` entry is seen from inside this backend's sandbox (the path a command must name). */
  mountPoint(mount: { hostPath: string; containerPath: string }): string;
  /**
   * Builds an image from a Dockerfile where this backend runs its sandboxes, or finds it cached by its context's
   * digest; rejects naming a base image the engine lacks (heldout pulls nothing). Absent: this backend runs no images.
   */
  build?(request: BuildRequest): Promise<BuiltImageRef>;
  /**
   * Builds heldout's runtime image (`heldout image build`) on this backend's engine from this host's files, always
   * or (`ifMissing`) only when it is missing or from another recipe. Absent: this backend runs no images.
   */
  runtimeImage?(options?: { tag?: string; ifMissing?: boolean }): Promise<BuiltImage>;
  /**
   * Removes every leftover labelled with `runId` (or every heldout leftover when omitted), counted by kind. With
   * `keepLive`, what a live process still owns stays (a sweep then takes only what dead runs left), counted as
   * `kept`. Rejects when the place the leftovers live cannot be reached (an engine that does not answer).
   */
  cleanup(runId?: string, options?: CleanupOptions): Promise<Removed>;
  /**
   * Starts a trial container that stays up while phases run in it (`trial.ts`); only backends with containers have
   * it (docker). Rejects when the image is missing or the container cannot start; the caller must `close` it.
   */
  openTrial?(spec: TrialSpec, options?: { signal?: AbortSignal }): Promise<TrialContainer>;
}
