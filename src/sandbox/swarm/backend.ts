/**
 * The swarm backend (DESIGN §7 scale-out, issue 13): each case × trial as a one-shot Docker Swarm service
 * (`service.ts`), labels `heldout=1` / `heldout.run=<id>`.
 *
 * Network: a Swarm task cannot join the `none` network (`network none not found`), and a task with no network joins
 * the engine's default bridge (egress). Each case therefore gets its own `--internal` overlay network (no gateway, no
 * route off the overlay, nothing else attached), removed with the case.
 *
 * Files: delivery, case and outputs travel through labelled named volumes filled and read through the engine API
 * (docker/archive-stage.ts). Volumes are node-local, so this version pins every task to the manager's own node
 * (`node.id==<manager>`, plus any constraints given); the scheduler's reservations still queue cases when the node is
 * full. Logs come from `service logs` (json-file driver, bounded by size); exit code and OOM from the task's container.
 */
import { access, constants as fsConstants } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { caseVolumes, collectCase, stageThroughArchive } from '../docker/archive-stage.js';
import {
  CONTAINER_PATHS,
  caseLabels,
  containerEnv,
  engineImage,
  GATEWAY_PATHS,
  gatewaySocketMount,
  reachableGateway,
  sandboxUser,
  withEngineDefaults,
} from '../docker/container-setup.js';
import { demultiplex } from '../docker/demultiplex.js';
import { engineAnswers, engineLabel, engineWhere, getDocker, statusOf } from '../docker/engine.js';
import { createEngineGate, type EngineGate, engineGateDir, gateSettings } from '../docker/engine-gate.js';
import { asEngineError } from '../docker/engine-gone.js';
import { cleanupEngine } from '../docker/gc.js';
import { buildOnEngine } from '../docker/image-build.js';
import { RUNTIME_IMAGE } from '../docker/runtime-image.js';
import { capture, endedExecution } from '../execution.js';
import { gatewayWrapper, relaysRefused } from '../gateway-wrapper.js';
import { trimOutputs } from '../output-limits.js';
import type {
  BackendOf,
  BuildRequest,
  BuiltImageRef,
  CleanupOptions,
  ExecutionOf,
  Removed,
  SandboxSpec,
} from '../protocol.js';
import { fillPlaceholders, prepareOutputDir, validateSpec } from '../staging.js';
import { registerCleanup } from '../teardown.js';
import { serviceName, serviceOptions } from './service.js';
import { taskContainersGone, waitForTask } from './task.js';

/** How a swarm backend reaches its manager and places its tasks; every field has a default. */
export interface SwarmBackendOptions {
  /** A client of a swarm manager; default the process's engine (DOCKER_HOST or the local socket). */
  docker?: Docker;
  /** Extra placement constraints, e.g. `['node.labels.heldout==yes']` (Swarm syntax); default HELDOUT_SWARM_CONSTRAINTS (comma-separated). */
  constraints?: string[];
  /** Image when the spec names none; default the runtime image (built on the manager's engine when missing). */
  defaultImage?: string;
  /** Size of the /tmp tmpfs; default 64 MiB. */
  tmpMb?: number;
  /** `uid:gid` to run as; default 65534:65534 as root, else the caller's uid:gid. */
  user?: string;
  /** Running cases over every heldout process of this machine; default HELDOUT_MAX_SANDBOXES or 2 × manager CPUs. */
  maxRunning?: number;
  /** Service creations per second (ramp-up); default HELDOUT_STARTS_PER_SECOND or 32. */
  startsPerSecond?: number;
  /** Path on the manager node's host where the gateway socket is reachable (e.g. forwarded with `ssh -R`). */
  gatewaySocketOnEngine?: string;
  /** How long a task may wait to be scheduled (no node with the reserved resources) before the case fails; default 300 s. */
  scheduleTimeoutSeconds?: number;
}

class SwarmBackend implements BackendOf<'docker', 'swarm'> {
  readonly name = 'docker' as const;
  readonly kind = 'swarm' as const;
  /** Never picked by `auto`: scheduling through a swarm is a deliberate choice. */
  readonly autoRank = null;
  private readonly docker: Docker;
  private infoPromise: Promise<{ nodeId: string; ncpu: number; manager: boolean }> | null = null;
  private gatePromise: Promise<EngineGate> | null = null;

  private readonly options: SwarmBackendOptions;

  constructor(options: SwarmBackendOptions = {}) {
    this.options = {
      ...withEngineDefaults(options),
      constraints: options.constraints ?? process.env.HELDOUT_SWARM_CONSTRAINTS?.split(',').filter(Boolean),
    };
    this.docker = options.docker ?? getDocker();
  }

  private info() {
    this.infoPromise ??= (
      this.docker.info() as Promise<{ NCPU?: number; Swarm?: { NodeID?: string; ControlAvailable?: boolean } }>
    ).then((i) => ({ nodeId: i.Swarm?.NodeID ?? '', ncpu: i.NCPU ?? 1, manager: i.Swarm?.ControlAvailable === true }));
    this.infoPromise.catch(() => {
      this.infoPromise = null;
    });
    return this.infoPromise;
  }

  /** True when the engine answers and is a swarm manager (it can create services). */
  async available(): Promise<boolean> {
    return (await this.unavailable()) === null;
  }

  async unavailable(timeoutMs = 2000): Promise<string | null> {
    const where = engineLabel(this.docker);
    if (!(await engineAnswers(timeoutMs, this.docker))) {
      return `sandbox swarm: no docker engine answers at ${where} (set DOCKER_HOST to a manager)`;
    }
    if (
      await this.info().then(
        (i) => i.manager,
        () => false,
      )
    )
      return null;
    return `sandbox swarm: the engine at ${where} is not a swarm manager (run docker swarm init there, or point DOCKER_HOST at a manager)`;
  }

  async runningCap(): Promise<number> {
    const ncpu = await this.info().then(
      (i) => i.ncpu,
      () => 1,
    );
    return gateSettings(ncpu, this.options).maxRunning;
  }

  /** Tasks see mounts where the spec puts them. */
  mountPoint(mount: { containerPath: string }): string {
    return mount.containerPath;
  }

  private gate(ncpu: number): Promise<EngineGate> {
    this.gatePromise ??= (async () => {
      return createEngineGate({
        ...gateSettings(ncpu, this.options),
        dir: engineGateDir(`swarm:${engineWhere(this.docker)}`),
      });
    })();
    return this.gatePromise;
  }

  async run(spec: SandboxSpec, options: { signal?: AbortSignal } = {}): Promise<ExecutionOf<'docker'>> {
    validateSpec(spec);
    options.signal?.throwIfAborted();
    if (spec.services?.length) throw new Error(SERVICES_REFUSED);
    // Tasks run on any node of the swarm: this host's relay sockets are not there.
    if (spec.serviceRelays?.length) throw new Error(`sandbox swarm: ${relaysRefused(spec, 'a swarm')}`);
    await access(spec.inputPath, fsConstants.R_OK);
    let release: (() => void) | null = null;
    try {
      const info = await this.info();
      if (!info.manager) {
        throw new Error(
          `sandbox swarm: the engine at ${engineWhere(this.docker)} is not a swarm manager (docker swarm init, or point DOCKER_HOST at a manager)`,
        );
      }
      const wanted = spec.image ?? this.options.defaultImage ?? RUNTIME_IMAGE;
      const image = await engineImage(
        this.docker,
        wanted,
        `sandbox swarm: image ${wanted} is not on the manager's engine (heldout pulls nothing)`,
      );
      const gate = await this.gate(info.ncpu);
      release = await gate.acquire(options.signal);
      return await this.runService(spec, image, info.nodeId, gate, options.signal);
    } catch (err) {
      throw asEngineError(err, this.docker);
    } finally {
      release?.();
    }
  }

  private async runService(
    spec: SandboxSpec,
    image: string,
    nodeId: string,
    gate: EngineGate,
    signal?: AbortSignal,
  ): Promise<ExecutionOf<'docker'>> {
    const labels = caseLabels(spec);
    await prepareOutputDir(spec.outputDir);
    // The gateway's socket is on this host: a task pinned to a manager reached through its Unix socket shares it.
    const gw = reachableGateway(
      this.docker,
      spec.gateway,
      this.options.gatewaySocketOnEngine,
      `sandbox swarm: the model gateway cannot reach tasks on the remote manager ${engineWhere(this.docker)}: its Unix ` +
        'socket is on this host. Forward it (ssh -R <path on the manager>:<gateway.sock>) and pass gatewaySocketOnEngine (docs/scale-out.md)',
    );
    const name = serviceName(spec);
    const stage = await stageThroughArchive(this.docker, { name, image, labels, volumes: await caseVolumes(spec, gw) });
    let network: Docker.Network | null = null;
    let service: Docker.Service | null = null;
    const unregister = registerCleanup(async () => {
      if (service) await service.remove().catch(() => {});
      // The overlay network outlives the service's task for a moment; it goes once the task container has.
      if (service) await taskContainersGone(this.docker, service.id).catch(() => {});
      if (network) await network.remove().catch(() => {});
    });
    try {
      network = await this.docker.createNetwork({
        Name: name,
        Driver: 'overlay',
        Internal: true,
        Attachable: false,
        Labels: labels,
      });
      const command = fillPlaceholders(spec.command, CONTAINER_PATHS);
      const relay = `${GATEWAY_PATHS.relayDir}/relay.mjs`;
      await gate.beforeStart(signal);
      const created = (await this.docker.createService(
        serviceOptions(spec, {
          name,
          image,
          script: gw ? gatewayWrapper(command, gw.port, relay, GATEWAY_PATHS.socket) : command,
          env: containerEnv(spec, gw),
          user: this.options.user ?? sandboxUser(),
          labels,
          volumes: stage.mounts,
          socket: gw ? gatewaySocketMount(this.docker, gw, this.options.gatewaySocketOnEngine) : undefined,
          networkId: network.id,
          constraints: [`node.id==${nodeId}`, ...(this.options.constraints ?? [])],
          tmpMb: this.options.tmpMb ?? 64,
        }),
      )) as { id?: string; ID?: string };
      service = this.docker.getService(created.id ?? created.ID!);
      const svc = service;
      const scheduleTimeoutSeconds = this.options.scheduleTimeoutSeconds ?? 300;
      const result = await waitForTask(
        this.docker,
        svc,
        { wallSeconds: spec.limits.wallSeconds, scheduleTimeoutSeconds },
        signal,
      );
      const captured = capture(spec.limits.outputBytes);
      // Read once the task is over: the whole log while it fits the driver's window (service.ts).
      const logs = (await svc.logs({ stdout: true, stderr: true, follow: false, details: false })) as unknown;
      await demultiplex(Buffer.isBuffer(logs) ? Readable.from([logs]) : (logs as NodeJS.ReadableStream), captured);
      await collectCase(stage, spec);
      const ended = { ...result, signal: result.timedOut ? 'SIGKILL' : null };
      const trimmed = spec.limits.out ? await trimOutputs(spec.outputDir, spec.limits.out) : null;
      return await endedExecution('docker', ended, captured, spec.outputDir, [], trimmed);
    } finally {
      unregister();
      if (service) {
        const id = service.id;
        await service.remove().catch((err) => {
          if (statusOf(err) !== 404) throw err;
        });
        await taskContainersGone(this.docker, id);
      }
      if (network) await network.remove().catch(() => {});
      await stage.remove();
    }
  }

  /** Builds on the manager's engine, where every task is pinned (issue 19). */
  build(request: BuildRequest): Promise<BuiltImageRef> {
    return buildOnEngine(this.docker, request).catch((err) => {
      throw asEngineError(err, this.docker);
    });
  }

  cleanup(runId?: string, options: CleanupOptions = {}): Promise<Removed> {
    return cleanupEngine(this.docker, runId, options.keepLive);
  }
}

/**
 * Why a case with services does not run here: a pod needs its members to join one container's network namespace,
 * which Swarm tasks cannot (docs/scale-out.md).
 */
export const SERVICES_REFUSED =
  'sandbox swarm: this commission declares case services, which need a pod (one loopback-only network namespace ' +
  'shared by the services and the case); Swarm tasks cannot join another container’s namespace, so the swarm backend ' +
  'refuses them: run it with --sandbox docker (docs/scale-out.md, "Case services")';

/** A swarm backend on a manager's engine (`docker swarm init` makes the local engine one). */
export function createSwarmBackend(options: SwarmBackendOptions = {}): BackendOf<'docker', 'swarm'> {
  return new SwarmBackend(options);
}

/** The swarm backend on the default engine. */
export const swarmBackend = createSwarmBackend();
