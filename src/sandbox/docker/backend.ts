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
 * Turns (issue 24): given the caller's concurrency slot as `turn`, a case is prepared ahead of it on a local engine
 * (staged, created, started; the shell holds on stdin after the gateway relay is up) and holds the turn (and the
 * engine gate's slot) only from the line that releases the shell to the command's exit. A container costs ≈ 0.2 s
 * to start here, which is then spent while other cases run rather than inside the caller's slots.
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
import { access, constants as fsConstants } from 'node:fs/promises';
import os from 'node:os';
import type Docker from 'dockerode';
import { capture, endedExecution } from '../execution.js';
import { relayNonce, relaysRefused, relayWrapper, type WrappedRelay } from '../gateway-wrapper.js';
import { stripUnsafeModes, trimOutputs, watchOutputs } from '../output-limits.js';
import type {
  BackendOf,
  BuildRequest,
  BuiltImage,
  BuiltImageRef,
  CleanupOptions,
  ExecutionOf,
  GatewayAttachment,
  Removed,
  RunOptions,
  SandboxSpec,
  TrialContainer,
  TrialSpec,
  Turn,
} from '../protocol.js';
import { fillPlaceholders, prepareOutputDir, validateSpec } from '../staging.js';
import { checkReadable, type DockerBackendOptions } from './backend-options.js';
import {
  CONTAINER_PATHS,
  caseLabels,
  containerEnv,
  engineImage,
  GATEWAY_PATHS,
  reachableGateway,
  sandboxUser,
  withEngineDefaults,
} from './container-setup.js';
import { demultiplex } from './demultiplex.js';
import { engineAnswers, engineLabel, engineWhere, getDocker, isLocalEngine, statusOf } from './engine.js';
import { createEngineGate, type EngineGate, engineGateDir, gateSettings } from './engine-gate.js';
import { asEngineError, isEngineGone } from './engine-gone.js';
import { createContainer, engineFlavour } from './flavour.js';
import { cleanupEngine } from './gc.js';
import { awaitTurn, HOLD_LINE, turnWithGate } from './hold.js';
import { buildOnEngine } from './image-build.js';
import { trackContainer, untrackContainer } from './live-containers.js';
import { type Pod, startPod } from './pod.js';
import { buildRuntimeImage, ensureRuntimeImage, RUNTIME_IMAGE } from './runtime-image.js';
import { type Staged, serviceSocket, stageArchive, stageBind } from './stage.js';
import { openDockerTrial } from './trial.js';

export type { DockerBackendOptions } from './backend-options.js';

class DockerBackend<N extends string, K extends string> implements BackendOf<N, K> {
  readonly kind: K;
  private readonly baseName: N;
  /** With `nameFromEngine`, the engine found answering (`podman` behind DOCKER_HOST), once asked. */
  private engineName: N | null = null;
  /** `auto` takes docker whenever an engine answers. */
  readonly autoRank: number | null;
  /** On a local engine a case's container is made and started ahead of its turn (`run`, file comment). */
  readonly takesTurns = true;
  private readonly docker: Docker;
  private ncpu: Promise<number> | null = null;
  /** True where the engine may not set OOMKilled (cgroup v2 docker of some versions; podman 4 on cgroup v1). */
  private oomUnreported: Promise<boolean> | null = null;
  private gatePromise: Promise<EngineGate> | null = null;

  private readonly options: DockerBackendOptions<N, K>;

  constructor(options: DockerBackendOptions<N, K> & { name: N; kind: K }) {
    this.options = withEngineDefaults(options);
    this.baseName = options.name;
    this.kind = options.kind;
    this.autoRank = options.autoRank === undefined ? 1 : options.autoRank;
    this.docker = options.docker ?? getDocker();
  }

  async available(): Promise<boolean> {
    return (await this.unavailable()) === null;
  }

  async unavailable(timeoutMs = 2000): Promise<string | null> {
    const absent = this.options.absent?.() ?? null;
    if (absent !== null) return `sandbox ${this.kind}: ${absent}`;
    if (await engineAnswers(timeoutMs, this.docker)) {
      await this.nameEngine();
      return null;
    }
    const hint = this.options.hint ?? 'start one, set DOCKER_HOST, or use --sandbox process';
    return `sandbox ${this.kind}: no ${this.name} engine answers at ${engineLabel(this.docker)} (${hint})`;
  }

  async runningCap(): Promise<number> {
    this.info();
    return gateSettings(await this.ncpu!, this.options).maxRunning;
  }

  /** Containers see mounts where the spec puts them. */
  mountPoint(mount: { containerPath: string }): string {
    return mount.containerPath;
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

  /** The isolation reports show: the engine's own name where it is asked for (`nameFromEngine`), else the given one. */
  get name(): N {
    return this.engineName ?? this.baseName;
  }

  private async nameEngine(): Promise<void> {
    if (this.options.nameFromEngine && this.engineName === null)
      this.engineName = (await engineFlavour(this.docker)) as N;
  }

  private info(): void {
    if (this.ncpu) return;
    const info = this.docker.info() as Promise<{ NCPU?: number; CgroupVersion?: string }>;
    this.ncpu = info.then((i) => i.NCPU ?? os.availableParallelism()).catch(() => os.availableParallelism());
    this.oomUnreported = Promise.all([info, engineFlavour(this.docker)])
      .then(([i, flavour]) => i.CgroupVersion === '2' || flavour === 'podman')
      .catch(() => false);
  }

  async run(spec: SandboxSpec, options: RunOptions = {}): Promise<ExecutionOf<N>> {
    // A remote engine's attach may not carry stdin (ssh): there the whole run holds the turn, as without one.
    if (options.turn && !isLocalEngine(this.docker)) {
      const release = await options.turn(options.signal);
      try {
        return await this.run(spec, { signal: options.signal });
      } finally {
        release();
      }
    }
    validateSpec(spec);
    options.signal?.throwIfAborted();
    await checkReadable(spec.deliveryDir, 'delivery');
    await access(spec.inputPath, fsConstants.R_OK);
    this.info();
    await this.nameEngine();
    let release: (() => void) | null = null;
    try {
      const wanted = spec.image ?? this.options.defaultImage ?? RUNTIME_IMAGE;
      const image = await engineImage(
        this.docker,
        wanted,
        `sandbox: image ${wanted} is not on this engine (heldout pulls nothing; docker pull/build/load it first)`,
      );
      const gate = await this.gate();
      // With a turn, the gate's slot is taken with it, just before the command starts.
      const hold = options.turn ? turnWithGate(options.turn, gate) : undefined;
      if (!hold) release = await gate.acquire(options.signal);
      await prepareOutputDir(spec.outputDir);
      const gw = this.gateway(spec);
      if (this.archive && spec.serviceRelays?.length)
        throw new Error(`sandbox ${this.name}: ${relaysRefused(spec, `the engine ${engineWhere(this.docker)}`)}`);
      const staged = this.archive
        ? await stageArchive(this.docker, spec, image, gw, this.options.gatewaySocketOnEngine)
        : await stageBind(spec);
      let pod: Pod | null = null;
      try {
        // Case services (issue 19): a pod whose loopback-only namespace the case container joins.
        if (spec.services?.length) pod = await this.startPod(spec, options.signal);
        const execution = await this.runContainer(spec, image, gw, staged, options.signal, pod, hold);
        if (pod) {
          await pod.remove(spec.serviceLogDir);
          execution.services = pod.records();
        }
        return execution;
      } finally {
        await pod?.remove(spec.serviceLogDir);
        await staged.remove();
      }
    } catch (err) {
      throw asEngineError(err, this.docker);
    } finally {
      release?.();
    }
  }

  private async startPod(spec: SandboxSpec, signal?: AbortSignal): Promise<Pod> {
    const gate = await this.gate();
    return startPod(this.docker, spec, {
      user: this.options.user,
      bindFiles: !this.archive,
      beforeStart: (s) => gate.beforeStart(s),
      signal,
    });
  }

  /** Bind mode shares this host's socket; archive mode needs the engine to reach it. */
  private gateway(spec: SandboxSpec): GatewayAttachment | undefined {
    if (!this.archive) return spec.gateway;
    return reachableGateway(
      this.docker,
      spec.gateway,
      this.options.gatewaySocketOnEngine,
      `sandbox docker: the model gateway cannot reach sandboxes on the remote engine ${engineWhere(this.docker)}: ` +
        'its Unix socket is on this host. Forward it to the engine host (ssh -R <engine path>:<gateway.sock>) and ' +
        'pass gatewaySocketOnEngine, or run model-using commissions on a local engine (docs/scale-out.md)',
    );
  }

  private async runContainer(
    spec: SandboxSpec,
    image: string,
    gw: GatewayAttachment | undefined,
    staged: Staged,
    signal?: AbortSignal,
    pod: Pod | null = null,
    hold?: Turn,
  ): Promise<ExecutionOf<N>> {
    const limits = spec.limits;
    // Held: the shell waits (after the relay is up) for the line the turn sends on stdin; the command gets /dev/null.
    const command = `${hold ? HOLD_LINE : ''}${fillPlaceholders(spec.command, CONTAINER_PATHS)}`;
    const relays: WrappedRelay[] = gw ? [{ port: gw.port, script: staged.relay, socket: GATEWAY_PATHS.socket }] : [];
    for (const r of spec.serviceRelays ?? [])
      relays.push({ port: r.port, script: staged.relay, socket: serviceSocket(r.name), service: r.name });
    const script = relays.length ? relayWrapper(command, relays, relayNonce(spec)) : command;
    const ncpu = await this.ncpu!;
    const memory = Math.floor(limits.memoryMb * 1024 * 1024);
    const tmpMb = this.options.tmpMb ?? 64;

    const container = await createContainer(this.docker, {
      Image: image,
      Cmd: ['/bin/sh', '-c', script],
      Entrypoint: [],
      WorkingDir: CONTAINER_PATHS.delivery,
      User: this.options.user ?? sandboxUser(),
      Env: containerEnv(spec, gw),
      // In a pod the holder names the host (a joined namespace takes no hostname of its own).
      ...(pod ? {} : { Hostname: 'heldout' }),
      Labels: caseLabels(spec),
      AttachStdin: Boolean(hold),
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      OpenStdin: Boolean(hold),
      StdinOnce: Boolean(hold),
      NetworkDisabled: !pod,
      HostConfig: {
        NetworkMode: pod?.networkMode ?? 'none',
        ReadonlyRootfs: true,
        Mounts: staged.mounts,
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
        // No file the delivery writes grows past the output budget (output-limits.ts: one byte past it fails the gate).
        Ulimits: limits.out ? [{ Name: 'fsize', Soft: limits.out.bytes + 1, Hard: limits.out.bytes + 1 }] : undefined,
        LogConfig: { Type: 'none', Config: {} },
        AutoRemove: false,
        Privileged: false,
      },
    });
    trackContainer(container.id, this.docker);
    let timedOut = false;
    let aborted = false;
    let serviceDied: Error | null = null;
    let timer: NodeJS.Timeout | undefined;
    const kill = () => container.kill({ signal: 'SIGKILL' }).catch(() => {});
    pod?.onFailure((err) => {
      serviceDied = err;
      void kill();
    });
    const onAbort = () => {
      aborted = true;
      void kill();
    };
    // Bind mode: the outputs land on this host as they are written, so a flood is stopped as it happens.
    const watch = watchOutputs(
      this.archive ? '' : spec.outputDir,
      this.archive ? undefined : limits.out,
      () => void kill(),
    );
    let releaseTurn: (() => void) | null = null;
    try {
      const captured = capture(limits.outputBytes);
      const stream = (await container.attach(
        hold
          ? { stream: true, stdin: true, stdout: true, stderr: true, hijack: true }
          : { stream: true, stdout: true, stderr: true },
      )) as NodeJS.ReadWriteStream;
      const drained = demultiplex(stream, captured);
      signal?.addEventListener('abort', onAbort, { once: true });
      await (await this.gate()).beforeStart(signal);
      let t0 = performance.now();
      await container.start();
      const waiting = container.wait() as Promise<{ StatusCode: number }>;
      if (hold) {
        releaseTurn = await awaitTurn(hold, waiting, stream, signal);
        t0 = performance.now();
      }
      timer = setTimeout(() => {
        timedOut = true;
        void kill();
      }, limits.wallSeconds * 1000);
      const waited = await waiting;
      const wallMs = Math.round(performance.now() - t0);
      releaseTurn?.();
      clearTimeout(timer);
      watch.stop();
      // the attach stream ends with the container; do not hang on a stuck connection
      await Promise.race([drained, new Promise((r) => setTimeout(r, 5000))]);
      (stream as unknown as { destroy?: () => void }).destroy?.();
      if (aborted) throw signal?.reason ?? new Error('sandbox run aborted');
      if (serviceDied) throw serviceDied;
      await pod?.check();
      const inspected = await container.inspect();
      const status = inspected.State?.ExitCode ?? waited.StatusCode;
      let oom = inspected.State?.OOMKilled === true;
      // Where the engine may never set OOMKilled, a SIGKILL we did not send is the memory limit.
      if (!oom && !timedOut && !watch.exceeded && status === 137 && (await this.oomUnreported!)) oom = true;
      await staged.collect();
      const trimmed = limits.out ? await trimOutputs(spec.outputDir, limits.out) : null;
      await stripUnsafeModes(spec.outputDir);
      const signalled = timedOut ? 'SIGKILL' : null;
      return await endedExecution(
        this.name,
        { status, signal: signalled, timedOut, oom, wallMs },
        captured,
        spec.outputDir,
        [],
        watch.exceeded ?? trimmed,
        limits.out?.bytes ?? null,
      );
    } finally {
      releaseTurn?.();
      clearTimeout(timer);
      watch.stop();
      signal?.removeEventListener('abort', onAbort);
      // An engine that went away keeps its container until `heldout gc`; the run's own error says why.
      await container.remove({ force: true, v: true }).catch((err) => {
        if (statusOf(err) !== 404 && statusOf(err) !== 409 && !isEngineGone(err)) throw err;
      });
      untrackContainer(container.id);
    }
  }

  /** Builds on this engine (cached by the context's digest); issue 19. */
  async build(request: BuildRequest): Promise<BuiltImageRef> {
    try {
      return await buildOnEngine(this.docker, request);
    } catch (err) {
      throw asEngineError(err, this.docker);
    }
  }

  runtimeImage(options: { tag?: string; ifMissing?: boolean } = {}): Promise<BuiltImage> {
    const made = options.ifMissing ? ensureRuntimeImage : buildRuntimeImage;
    return made({ tag: options.tag, docker: this.docker }).catch((err) => {
      throw asEngineError(err, this.docker);
    });
  }

  async cleanup(runId?: string, options: CleanupOptions = {}): Promise<Removed> {
    if ((this.options.absent?.() ?? null) !== null) return {};
    return cleanupEngine(this.docker, runId, options.keepLive, this.name);
  }

  /** A trial container (docker/trial.ts), holding one of the engine gate's slots until it is closed. */
  async openTrial(spec: TrialSpec, options: { signal?: AbortSignal } = {}): Promise<TrialContainer> {
    this.info();
    const gate = await this.gate();
    const release = await gate.acquire(options.signal);
    try {
      const gateway = this.gateway({ gateway: spec.gateway } as SandboxSpec);
      const trial = await openDockerTrial(
        this.docker,
        { ...spec, gateway },
        {
          beforeStart: (signal) => gate.beforeStart(signal),
          gatewaySocketOnEngine: this.archive ? this.options.gatewaySocketOnEngine : undefined,
          ncpu: await this.ncpu!,
          bindFiles: !this.archive,
        },
        options.signal,
      );
      return { ...trial, close: () => trial.close().finally(release) };
    } catch (err) {
      release();
      throw asEngineError(err, this.docker);
    }
  }
}

/**
 * A backend on any engine speaking the docker API (a remote one through `docker`, podman's service): `name` and
 * `kind` say what reports and the registry call it; the run's options say how files travel.
 */
export function createDockerBackend<N extends string = 'docker', K extends string = 'docker'>(
  options: DockerBackendOptions<N, K> = {},
): BackendOf<N, K> {
  return new DockerBackend<N, K>({
    ...options,
    name: options.name ?? ('docker' as N),
    kind: options.kind ?? ('docker' as K),
  });
}

/**
 * The docker backend on the default engine (DOCKER_HOST or the local socket); named after the engine that answers
 * there, so a run on DOCKER_HOST=<a podman socket> reports `podman`.
 */
export const dockerBackend = createDockerBackend<'docker' | 'podman'>({ nameFromEngine: true });
