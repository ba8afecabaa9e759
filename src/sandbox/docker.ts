/**
 * The docker backend (DESIGN §7, issue 3): one container per case and trial through dockerode.
 *
 * Defaults: `NetworkMode: none`, read-only root filesystem, the delivery bind-mounted read-only at /delivery (the
 * working directory), only the case's input.md and assets/ staged read-only at /case, the output directory the only
 * writable mount at /out (plus a small tmpfs /tmp and the container's private /dev/shm), a non-root user, all
 * capabilities dropped, no-new-privileges, memory (no swap), cpu and pids limits, an init process that reaps
 * orphans, logging driver `none` (output is read from the attach stream and capped; the engine stores nothing), a
 * wall-clock SIGKILL, labels `heldout=1` and `heldout.run=<runId>`, and removal afterwards in every case.
 *
 * User: 65534 (nobody) when heldout runs as root; otherwise the calling user's uid:gid, so the files the delivery
 * writes into the output directory belong to whoever runs heldout (and can be deleted by them).
 *
 * Remote engines (issue 13): any engine dockerode reaches (DOCKER_HOST unix/tcp/TLS/ssh). With `transfer: 'archive'`
 * (the default for tcp/ssh engines) nothing is bind-mounted from this host: delivery, case and outputs travel through
 * labelled named volumes filled with `putArchive` and read back with `getArchive`. Every engine is guarded by a
 * cross-process gate (a cap on running sandboxes and a start rate), and an engine that stops answering fails the run
 * with an EngineGoneError (the session records an infra-error, which `--resume` runs again).
 */
import { randomBytes } from 'node:crypto';
import { access, constants as fsConstants, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { engineAnswers, getDocker, statusOf } from './engine.js';
import { ensureRuntimeImage, RUNTIME_IMAGE, SANDBOX_UID } from './image.js';
import {
  asEngineError,
  caseEntries,
  dirEntries,
  engineWhere,
  isEngineGone,
  isLocalEngine,
  type StagedVolume,
  stageThroughArchive,
} from './remote.js';
import {
  createEngineGate,
  type EngineGate,
  engineGateDir,
  LABEL,
  RUN_LABEL,
  trackContainer,
  untrackContainer,
} from './run-registry.js';
import {
  CappedBuffer,
  CONTAINER_PATHS,
  demultiplex,
  endedExecution,
  fillPlaceholders,
  gatewayWrapper,
  prepareOutputDir,
  stageCase,
  validateSpec,
} from './staging.js';
import type { Execution, GatewayAttachment, SandboxBackend, SandboxSpec } from './types.js';

export interface DockerBackendOptions {
  docker?: Docker;
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

/** The gate options from explicit values, the environment, or the engine's CPU count. */
export function gateSettings(
  ncpu: number,
  explicit: { maxRunning?: number; startsPerSecond?: number },
  env: NodeJS.ProcessEnv = process.env,
): { maxRunning: number; startsPerSecond: number } {
  const num = (v: string | undefined) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : undefined);
  return {
    maxRunning: Math.max(1, Math.floor(explicit.maxRunning ?? num(env.HELDOUT_MAX_SANDBOXES) ?? Math.max(2, 2 * ncpu))),
    startsPerSecond: explicit.startsPerSecond ?? num(env.HELDOUT_STARTS_PER_SECOND) ?? 32,
  };
}

const GATEWAY_DIR = '/gateway';
const GATEWAY_SOCKET = `${GATEWAY_DIR}/gateway.sock`;
const GATEWAY_RELAY = `${GATEWAY_DIR}/relay.mjs`;
/** Archive mode: the relay travels in a volume of its own (a file cannot be a volume). */
const GATEWAY_RELAY_DIR = `${GATEWAY_DIR}/relay`;

/** Where a sandbox's files come from and how its outputs come back. */
interface Staged {
  mounts: Docker.MountSettings[];
  relay: string;
  /** Archive mode: copies /out (and writable extra mounts) back to the host after exit. */
  collect(): Promise<void>;
  remove(): Promise<void>;
}

function defaultUser(): string {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return uid === 0 ? `${SANDBOX_UID}:${SANDBOX_UID}` : `${uid}:${gid}`;
}

async function checkReadable(dir: string, what: string): Promise<void> {
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

class DockerBackend implements SandboxBackend {
  readonly name = 'docker' as const;
  readonly kind = 'docker' as const;
  private readonly docker: Docker;
  private ncpu: Promise<number> | null = null;
  private cgroupV2: Promise<boolean> | null = null;
  private gatePromise: Promise<EngineGate> | null = null;

  private readonly options: DockerBackendOptions;

  constructor(options: DockerBackendOptions = {}) {
    this.options = {
      ...options,
      gatewaySocketOnEngine: options.gatewaySocketOnEngine ?? process.env.HELDOUT_GATEWAY_SOCKET_ON_ENGINE,
    };
    this.docker = options.docker ?? getDocker();
  }

  available(): Promise<boolean> {
    return engineAnswers(2000, this.docker);
  }

  /** True when files travel through the engine API rather than bind mounts. */
  get archive(): boolean {
    const fromEnv = process.env.HELDOUT_DOCKER_TRANSFER;
    const t =
      this.options.transfer ?? (fromEnv === 'bind' || fromEnv === 'archive' || fromEnv === 'auto' ? fromEnv : 'auto');
    return t === 'archive' || (t === 'auto' && !isLocalEngine(this.docker));
  }

  private gate(): Promise<EngineGate> {
    this.gatePromise ??= this.ncpu!.then((ncpu) =>
      createEngineGate({ ...gateSettings(ncpu, this.options), dir: engineGateDir(engineWhere(this.docker)) }),
    );
    return this.gatePromise;
  }

  private info(): void {
    if (this.ncpu) return;
    const info = this.docker.info() as Promise<{ NCPU?: number; CgroupVersion?: string }>;
    this.ncpu = info.then((i) => i.NCPU ?? os.availableParallelism()).catch(() => os.availableParallelism());
    this.cgroupV2 = info.then((i) => i.CgroupVersion === '2').catch(() => false);
  }

  private async image(spec: SandboxSpec): Promise<string> {
    const image = spec.image ?? this.options.defaultImage ?? RUNTIME_IMAGE;
    if (image === RUNTIME_IMAGE) {
      await ensureRuntimeImage({ docker: this.docker });
      return image;
    }
    try {
      await this.docker.getImage(image).inspect();
    } catch (err) {
      if (statusOf(err) === 404) {
        throw new Error(
          `sandbox: image ${image} is not on this engine (heldout pulls nothing; docker pull/build/load it first)`,
        );
      }
      throw err;
    }
    return image;
  }

  async run(spec: SandboxSpec, options: { signal?: AbortSignal } = {}): Promise<Execution> {
    validateSpec(spec);
    options.signal?.throwIfAborted();
    await checkReadable(spec.deliveryDir, 'delivery');
    await access(spec.inputPath, fsConstants.R_OK);
    this.info();
    let release: (() => void) | null = null;
    try {
      const image = await this.image(spec);
      release = await (await this.gate()).acquire(options.signal);
      await prepareOutputDir(spec.outputDir);
      const staged = this.archive ? await this.stageArchive(spec, image) : await this.stageBind(spec);
      try {
        return await this.runContainer(spec, image, staged, options.signal);
      } finally {
        await staged.remove();
      }
    } catch (err) {
      throw asEngineError(err, this.docker);
    } finally {
      release?.();
    }
  }

  private gatewayCheck(gw: GatewayAttachment | undefined): GatewayAttachment | undefined {
    if (!gw || !this.archive || isLocalEngine(this.docker) || this.options.gatewaySocketOnEngine) return gw;
    if (gw.required === false) return undefined;
    throw new Error(
      `sandbox docker: the model gateway cannot reach sandboxes on the remote engine ${engineWhere(this.docker)}: ` +
        'its Unix socket is on this host. Forward it to the engine host (ssh -R <engine path>:<gateway.sock>) and ' +
        'pass gatewaySocketOnEngine, or run model-using commissions on a local engine (docs/scale-out.md)',
    );
  }

  private async stageBind(spec: SandboxSpec): Promise<Staged> {
    const stage = await mkdtemp(join(os.tmpdir(), 'heldout-case-'));
    try {
      await stageCase(spec, stage);
    } catch (err) {
      await rm(stage, { recursive: true, force: true });
      throw err;
    }
    const mounts: Docker.MountSettings[] = [
      { Type: 'bind', Source: spec.deliveryDir, Target: CONTAINER_PATHS.delivery, ReadOnly: true },
      { Type: 'bind', Source: stage, Target: CONTAINER_PATHS.case, ReadOnly: true },
      { Type: 'bind', Source: spec.outputDir, Target: CONTAINER_PATHS.output, ReadOnly: false },
    ];
    const gw = spec.gateway;
    if (gw) {
      mounts.push({ Type: 'bind', Source: gw.socketPath, Target: GATEWAY_SOCKET, ReadOnly: true });
      mounts.push({ Type: 'bind', Source: gw.relayScript, Target: GATEWAY_RELAY, ReadOnly: true });
    }
    for (const m of spec.mounts ?? []) {
      mounts.push({ Type: 'bind', Source: m.hostPath, Target: m.containerPath, ReadOnly: m.readOnly });
    }
    return {
      mounts,
      relay: GATEWAY_RELAY,
      collect: async () => {},
      remove: () => rm(stage, { recursive: true, force: true }),
    };
  }

  private async stageArchive(spec: SandboxSpec, image: string): Promise<Staged> {
    const gw = this.gatewayCheck(spec.gateway);
    const volumes: StagedVolume[] = [
      { target: CONTAINER_PATHS.delivery, readOnly: true, entries: await dirEntries(spec.deliveryDir) },
      { target: CONTAINER_PATHS.case, readOnly: true, entries: await caseEntries(spec.inputPath, spec.assetsDir) },
      {
        target: CONTAINER_PATHS.output,
        readOnly: false,
        entries: [{ type: 'dir', path: '.run', mode: 0o777 }],
      },
    ];
    const extra = spec.mounts ?? [];
    for (const m of extra)
      volumes.push({ target: m.containerPath, readOnly: m.readOnly, entries: await dirEntries(m.hostPath) });
    if (gw) {
      const { size } = await stat(gw.relayScript);
      volumes.push({
        target: GATEWAY_RELAY_DIR,
        readOnly: true,
        entries: [{ type: 'file', path: 'relay.mjs', mode: 0o644, source: gw.relayScript, size }],
      });
    }
    const stage = await stageThroughArchive(this.docker, {
      name: `heldout-${spec.runId}-${spec.caseId}-t${spec.trial}-${randomBytes(4).toString('hex')}`.replace(
        /[^A-Za-z0-9_.-]/g,
        '_',
      ),
      image,
      labels: { [LABEL]: '1', [RUN_LABEL]: spec.runId, 'heldout.case': spec.caseId },
      volumes,
    });
    const mounts = [...stage.mounts];
    if (gw) {
      const socket = isLocalEngine(this.docker) ? gw.socketPath : this.options.gatewaySocketOnEngine!;
      mounts.push({ Type: 'bind', Source: socket, Target: GATEWAY_SOCKET, ReadOnly: true });
    }
    return {
      mounts,
      relay: `${GATEWAY_RELAY_DIR}/relay.mjs`,
      collect: async () => {
        await stage.collect(CONTAINER_PATHS.output, spec.outputDir);
        for (const m of extra) if (!m.readOnly) await stage.collect(m.containerPath, m.hostPath);
      },
      remove: () => stage.remove(),
    };
  }

  private async runContainer(
    spec: SandboxSpec,
    image: string,
    staged: Staged,
    signal?: AbortSignal,
  ): Promise<Execution> {
    const limits = spec.limits;
    const command = fillPlaceholders(spec.command, CONTAINER_PATHS);
    const gw: GatewayAttachment | undefined = this.archive ? this.gatewayCheck(spec.gateway) : spec.gateway;
    const script = gw ? gatewayWrapper(command, gw.port, staged.relay, GATEWAY_SOCKET) : command;
    const env: Record<string, string> = {
      HOME: '/tmp',
      TMPDIR: '/tmp',
      HELDOUT_CASE_ID: spec.caseId,
      HELDOUT_TRIAL: String(spec.trial),
      HELDOUT_INPUT: CONTAINER_PATHS.input,
      HELDOUT_CASE_DIR: CONTAINER_PATHS.case,
      HELDOUT_OUTPUT: CONTAINER_PATHS.output,
      HELDOUT_RUN_DIR: CONTAINER_PATHS.run,
      ...spec.env,
      ...gw?.env,
    };
    const mounts = staged.mounts;
    const ncpu = await this.ncpu!;
    const memory = Math.floor(limits.memoryMb * 1024 * 1024);
    const tmpMb = this.options.tmpMb ?? 64;

    const container = await this.docker.createContainer({
      Image: image,
      Cmd: ['/bin/sh', '-c', script],
      Entrypoint: [],
      WorkingDir: CONTAINER_PATHS.delivery,
      User: this.options.user ?? defaultUser(),
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Hostname: 'heldout',
      Labels: {
        [LABEL]: '1',
        [RUN_LABEL]: spec.runId,
        'heldout.case': spec.caseId,
        'heldout.trial': String(spec.trial),
      },
      AttachStdin: false,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      OpenStdin: false,
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: 'none',
        ReadonlyRootfs: true,
        Mounts: mounts,
        Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${tmpMb}m,mode=1777` },
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: Math.round(Math.min(limits.cpus, ncpu) * 1e9),
        PidsLimit: Math.floor(limits.pids),
        IpcMode: 'private',
        ShmSize: 16 * 1024 * 1024,
        Init: this.options.init ?? true,
        LogConfig: { Type: 'none', Config: {} },
        AutoRemove: false,
        Privileged: false,
      },
    });
    trackContainer(container.id, this.docker, spec.runId);
    let timedOut = false;
    let aborted = false;
    let timer: NodeJS.Timeout | undefined;
    const kill = () => container.kill({ signal: 'SIGKILL' }).catch(() => {});
    const onAbort = () => {
      aborted = true;
      void kill();
    };
    try {
      const stdout = new CappedBuffer(limits.outputBytes);
      const stderr = new CappedBuffer(limits.outputBytes);
      const stream = (await container.attach({ stream: true, stdout: true, stderr: true })) as NodeJS.ReadableStream;
      const drained = demultiplex(stream, stdout, stderr);
      signal?.addEventListener('abort', onAbort, { once: true });
      await (await this.gate()).beforeStart(signal);
      const t0 = performance.now();
      await container.start();
      timer = setTimeout(() => {
        timedOut = true;
        void kill();
      }, limits.wallSeconds * 1000);
      const waited = (await container.wait()) as { StatusCode: number };
      const wallMs = Math.round(performance.now() - t0);
      clearTimeout(timer);
      // the attach stream ends with the container; do not hang on a stuck connection
      await Promise.race([drained, new Promise((r) => setTimeout(r, 5000))]);
      (stream as unknown as { destroy?: () => void }).destroy?.();
      if (aborted) throw signal?.reason ?? new Error('sandbox run aborted');
      const inspected = await container.inspect();
      const status = inspected.State?.ExitCode ?? waited.StatusCode;
      let oom = inspected.State?.OOMKilled === true;
      // cgroup v2 engines of some versions never set OOMKilled: a SIGKILL we did not send is the memory limit.
      if (!oom && !timedOut && status === 137 && (await this.cgroupV2!)) oom = true;
      await staged.collect();
      return await endedExecution({
        backend: 'docker',
        status,
        signal: timedOut ? 'SIGKILL' : null,
        timedOut,
        oom,
        wallMs,
        stdout,
        stderr,
        outputDir: spec.outputDir,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // An engine that went away keeps its container until `heldout gc`; the run's own error says why.
      await container.remove({ force: true, v: true }).catch((err) => {
        if (statusOf(err) !== 404 && statusOf(err) !== 409 && !isEngineGone(err)) throw err;
      });
      untrackContainer(container.id);
    }
  }

  async cleanup(runId?: string): Promise<number> {
    const { gc } = await import('./run-registry.js');
    const r = await gc({ docker: this.docker, runId });
    return r.containers + r.networks + r.volumes + r.services;
  }
}

export function createDockerBackend(options: DockerBackendOptions = {}): SandboxBackend {
  return new DockerBackend(options);
}

/** The docker backend on the default engine (DOCKER_HOST or the local socket). */
export const dockerBackend: SandboxBackend = createDockerBackend();
