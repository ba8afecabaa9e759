/**
 * The swarm backend (DESIGN §7 scale-out, issue 13): each case × trial as a one-shot Docker Swarm service — restart
 * condition none, one replica, resource reservations equal to the limits (the scheduler only places a case where its
 * memory and CPUs are free), placement constraints, labels `heldout=1` / `heldout.run=<id>`, read-only root
 * filesystem, non-root user, all capabilities dropped, an init, pids limit.
 *
 * Network: a Swarm task cannot join the `none` network (`network none not found`), and a task with no network joins
 * the engine's default bridge (egress). Each case therefore gets its own `--internal` overlay network (no gateway, no
 * route off the overlay, nothing else attached), removed with the case.
 *
 * Files: delivery, case and outputs travel through labelled named volumes filled and read through the engine API
 * (remote.ts). Volumes are node-local, so this version pins every task to the manager's own node (`node.id==<manager>`,
 * plus any constraints given); the scheduler's reservations still queue cases when the node is full. Logs come from
 * `service logs` (json-file driver, bounded by size); exit code and OOM from the task's container.
 */
import { randomBytes } from 'node:crypto';
import { access, constants as fsConstants, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { gateSettings } from './docker.js';
import { engineAnswers, getDocker, statusOf } from './engine.js';
import { ensureRuntimeImage, RUNTIME_IMAGE, SANDBOX_UID } from './image.js';
import {
  asEngineError,
  caseEntries,
  dirEntries,
  engineWhere,
  isLocalEngine,
  type StagedVolume,
  stageThroughArchive,
} from './remote.js';
import { createEngineGate, type EngineGate, engineGateDir, LABEL, RUN_LABEL, registerCleanup } from './run-registry.js';
import {
  CappedBuffer,
  CONTAINER_PATHS,
  demultiplex,
  endedExecution,
  fillPlaceholders,
  gatewayWrapper,
  prepareOutputDir,
  validateSpec,
} from './staging.js';
import type { Execution, SandboxBackend, SandboxSpec } from './types.js';

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

const GATEWAY_SOCKET = '/gateway/gateway.sock';
const GATEWAY_RELAY_DIR = '/gateway/relay';
const TERMINAL = new Set(['complete', 'failed', 'rejected', 'shutdown', 'orphaned', 'remove']);

interface TaskInfo {
  ID: string;
  Status?: {
    State?: string;
    Err?: string;
    Message?: string;
    ContainerStatus?: { ContainerID?: string; ExitCode?: number };
  };
}

function defaultUser(): string {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return uid === 0 ? `${SANDBOX_UID}:${SANDBOX_UID}` : `${uid}:${gid}`;
}

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** Swarm names: at most 63 characters, letters, digits, '-' and '_', starting with a letter or digit. */
function serviceName(spec: SandboxSpec): string {
  const tail = `${spec.trial}-${randomBytes(4).toString('hex')}`;
  const head = safeName(`heldout-${spec.caseId}`)
    .replace(/\./g, '-')
    .slice(0, 63 - tail.length - 1);
  return `${head}-${tail}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class SwarmBackend implements SandboxBackend {
  readonly name = 'docker' as const;
  readonly kind = 'swarm' as const;
  private readonly docker: Docker;
  private infoPromise: Promise<{ nodeId: string; ncpu: number; manager: boolean }> | null = null;
  private gatePromise: Promise<EngineGate> | null = null;

  private readonly options: SwarmBackendOptions;

  constructor(options: SwarmBackendOptions = {}) {
    this.options = {
      ...options,
      gatewaySocketOnEngine: options.gatewaySocketOnEngine ?? process.env.HELDOUT_GATEWAY_SOCKET_ON_ENGINE,
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
    if (!(await engineAnswers(2000, this.docker))) return false;
    try {
      return (await this.info()).manager;
    } catch {
      return false;
    }
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

  private async image(spec: SandboxSpec): Promise<string> {
    const image = spec.image ?? this.options.defaultImage ?? RUNTIME_IMAGE;
    if (image === RUNTIME_IMAGE) await ensureRuntimeImage({ docker: this.docker });
    else {
      try {
        await this.docker.getImage(image).inspect();
      } catch (err) {
        if (statusOf(err) === 404)
          throw new Error(`sandbox swarm: image ${image} is not on the manager's engine (heldout pulls nothing)`);
        throw err;
      }
    }
    return image;
  }

  async run(spec: SandboxSpec, options: { signal?: AbortSignal } = {}): Promise<Execution> {
    validateSpec(spec);
    options.signal?.throwIfAborted();
    await access(spec.inputPath, fsConstants.R_OK);
    let release: (() => void) | null = null;
    try {
      const info = await this.info();
      if (!info.manager) {
        throw new Error(
          `sandbox swarm: the engine at ${engineWhere(this.docker)} is not a swarm manager (docker swarm init, or point DOCKER_HOST at a manager)`,
        );
      }
      const image = await this.image(spec);
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
  ): Promise<Execution> {
    const limits = spec.limits;
    const labels = {
      [LABEL]: '1',
      [RUN_LABEL]: spec.runId,
      'heldout.case': spec.caseId,
      'heldout.trial': String(spec.trial),
    };
    await prepareOutputDir(spec.outputDir);
    const gw = this.gatewayFor(spec);
    const volumes: StagedVolume[] = [
      { target: CONTAINER_PATHS.delivery, readOnly: true, entries: await dirEntries(spec.deliveryDir) },
      { target: CONTAINER_PATHS.case, readOnly: true, entries: await caseEntries(spec.inputPath, spec.assetsDir) },
      { target: CONTAINER_PATHS.output, readOnly: false, entries: [{ type: 'dir', path: '.run', mode: 0o777 }] },
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
    const name = serviceName(spec);
    const stage = await stageThroughArchive(this.docker, { name, image, labels, volumes });
    let network: Docker.Network | null = null;
    let service: Docker.Service | null = null;
    const unregister = registerCleanup(async () => {
      if (service) await service.remove().catch(() => {});
      // The overlay network outlives the service's task for a moment; it goes once the task container has.
      if (service) await this.taskContainersGone(service.id).catch(() => {});
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
      const script = gw ? gatewayWrapper(command, gw.port, `${GATEWAY_RELAY_DIR}/relay.mjs`, GATEWAY_SOCKET) : command;
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
      const mounts: Docker.MountSettings[] = [
        ...stage.mounts,
        {
          Type: 'tmpfs',
          Target: '/tmp',
          TmpfsOptions: { SizeBytes: (this.options.tmpMb ?? 64) * 1024 * 1024, Mode: 0o1777 },
        } as Docker.MountSettings,
      ];
      // The gateway's socket is on this host: a task pinned to a manager reached through its Unix socket shares it.
      if (gw) {
        const socket = isLocalEngine(this.docker) ? gw.socketPath : this.options.gatewaySocketOnEngine!;
        mounts.push({ Type: 'bind', Source: socket, Target: GATEWAY_SOCKET, ReadOnly: true });
      }
      const memory = Math.floor(limits.memoryMb * 1024 * 1024);
      const nano = Math.round(limits.cpus * 1e9);
      // The engine keeps a task's log in json-file pieces; output past the window (4 pieces) loses its beginning, so
      // the window is generous (≥ 256 MiB on the node's disk while the case exists) and captures keep the head.
      const logBytes = Math.max(4 * limits.outputBytes, 64 * 1024 * 1024);
      await gate.beforeStart(signal);
      const created = (await this.docker.createService({
        Name: name,
        Labels: labels,
        TaskTemplate: {
          ContainerSpec: {
            Image: image,
            Command: ['/bin/sh', '-c', script],
            Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
            Dir: CONTAINER_PATHS.delivery,
            User: this.options.user ?? defaultUser(),
            Hostname: 'heldout',
            Labels: labels,
            ReadOnly: true,
            Mounts: mounts,
            Init: true,
            CapabilityDrop: ['ALL'],
            StopGracePeriod: 0,
          },
          Resources: {
            Limits: { NanoCPUs: nano, MemoryBytes: memory, Pids: Math.floor(limits.pids) },
            Reservations: { NanoCPUs: nano, MemoryBytes: memory },
          },
          RestartPolicy: { Condition: 'none', MaxAttempts: 0 },
          Placement: { Constraints: [`node.id==${nodeId}`, ...(this.options.constraints ?? [])] },
          Networks: [{ Target: network.id }],
          LogDriver: { Name: 'json-file', Options: { 'max-size': String(logBytes), 'max-file': '4' } },
        },
        Mode: { Replicated: { Replicas: 1 } },
      } as Docker.CreateServiceOptions)) as { id?: string; ID?: string };
      service = this.docker.getService(created.id ?? created.ID!);
      const svc = service;
      const result = await this.waitForTask(svc, spec, signal);
      const stdout = new CappedBuffer(limits.outputBytes);
      const stderr = new CappedBuffer(limits.outputBytes);
      // Read once the task is over: the whole log while it fits the driver's window (see logBytes above).
      const logs = (await svc.logs({ stdout: true, stderr: true, follow: false, details: false })) as unknown;
      await demultiplex(
        Buffer.isBuffer(logs) ? Readable.from([logs]) : (logs as NodeJS.ReadableStream),
        stdout,
        stderr,
      );
      await stage.collect(CONTAINER_PATHS.output, spec.outputDir);
      for (const m of extra) if (!m.readOnly) await stage.collect(m.containerPath, m.hostPath);
      return await endedExecution({
        backend: 'docker',
        status: result.status,
        signal: result.timedOut ? 'SIGKILL' : null,
        timedOut: result.timedOut,
        oom: result.oom,
        wallMs: result.wallMs,
        stdout,
        stderr,
        outputDir: spec.outputDir,
      });
    } finally {
      unregister();
      if (service) {
        const id = service.id;
        await service.remove().catch((err) => {
          if (statusOf(err) !== 404) throw err;
        });
        await this.taskContainersGone(id);
      }
      if (network) await network.remove().catch(() => {});
      await stage.remove();
    }
  }

  /** The gateway when the manager's node can reach its socket; a remote manager needs a forwarded socket. */
  private gatewayFor(spec: SandboxSpec): SandboxSpec['gateway'] {
    const gw = spec.gateway;
    if (!gw || isLocalEngine(this.docker) || this.options.gatewaySocketOnEngine) return gw;
    if (gw.required === false) return undefined;
    throw new Error(
      `sandbox swarm: the model gateway cannot reach tasks on the remote manager ${engineWhere(this.docker)}: its Unix ` +
        'socket is on this host. Forward it (ssh -R <path on the manager>:<gateway.sock>) and pass gatewaySocketOnEngine (docs/scale-out.md)',
    );
  }

  /** Polls the service's task to a terminal state; kills it at the wall-clock limit. */
  private async waitForTask(
    service: Docker.Service,
    spec: SandboxSpec,
    signal?: AbortSignal,
  ): Promise<{ status: number | null; timedOut: boolean; oom: boolean; wallMs: number }> {
    const scheduleDeadline = Date.now() + (this.options.scheduleTimeoutSeconds ?? 300) * 1000;
    let started: number | null = null;
    let timedOut = false;
    let containerId: string | undefined;
    for (let i = 0; ; i++) {
      if (signal?.aborted) throw signal.reason ?? new Error('sandbox run aborted');
      const tasks = (await this.docker.listTasks({ filters: { service: [service.id] } })) as TaskInfo[];
      const task = tasks[0];
      const state = task?.Status?.State ?? 'new';
      containerId = task?.Status?.ContainerStatus?.ContainerID || containerId;
      if (started === null && (state === 'running' || TERMINAL.has(state))) started = performance.now();
      if (TERMINAL.has(state)) {
        let wallMs = Math.round(performance.now() - (started ?? performance.now()));
        if (state === 'rejected' || (!containerId && state !== 'complete')) {
          throw new Error(`sandbox swarm: task ${state}: ${task?.Status?.Err ?? task?.Status?.Message ?? 'no reason'}`);
        }
        let status = task?.Status?.ContainerStatus?.ExitCode ?? null;
        let oom = false;
        if (containerId) {
          try {
            const c = await this.docker.getContainer(containerId).inspect();
            status = c.State?.ExitCode ?? status;
            oom = c.State?.OOMKilled === true;
            // The container's own clock: polling may first see the task after it has already ended.
            const ran = Date.parse(c.State?.FinishedAt ?? '') - Date.parse(c.State?.StartedAt ?? '');
            if (Number.isFinite(ran) && ran >= 0) wallMs = ran;
          } catch (err) {
            if (statusOf(err) !== 404) throw err;
          }
        }
        return { status, timedOut, oom: oom && !timedOut, wallMs };
      }
      if (started === null && Date.now() > scheduleDeadline) {
        throw new Error(
          `sandbox swarm: no node could take the case within ${this.options.scheduleTimeoutSeconds ?? 300} s (state ${state}: ${task?.Status?.Err ?? task?.Status?.Message ?? ''})`,
        );
      }
      if (!timedOut && started !== null && performance.now() - started > spec.limits.wallSeconds * 1000) {
        timedOut = true;
        if (containerId)
          await this.docker
            .getContainer(containerId)
            .kill({ signal: 'SIGKILL' })
            .catch(() => {});
      }
      await sleep(Math.min(50 + i * 25, 250));
    }
  }

  /** A removed service's task container lingers a moment; its volumes cannot go before it does. */
  private async taskContainersGone(serviceId: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const left = await this.docker.listContainers({
        all: true,
        filters: { label: [`com.docker.swarm.service.id=${serviceId}`] },
      });
      if (left.length === 0) return;
      await sleep(100);
    }
  }

  async cleanup(runId?: string): Promise<number> {
    const { gc } = await import('./run-registry.js');
    const r = await gc({ docker: this.docker, runId });
    return r.services + r.containers + r.networks + r.volumes;
  }
}

/** A swarm backend on a manager's engine (`docker swarm init` makes the local engine one). */
export function createSwarmBackend(options: SwarmBackendOptions = {}): SandboxBackend {
  return new SwarmBackend(options);
}

/** The swarm backend on the default engine. */
export const swarmBackend: SandboxBackend = createSwarmBackend();
