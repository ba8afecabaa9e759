/**
 * A case's pod on a docker engine (issue 19, DESIGN §7 "case services"): a holder container owns one network
 * namespace with no interface but loopback (`NetworkMode: none`) and an /etc/hosts that resolves every service name
 * to 127.0.0.1; each service, then the case container, joins it (`NetworkMode: container:<holder>`, the way a
 * Kubernetes pod's pause container holds its namespace). Nothing outside can reach in, nothing inside can reach
 * out, and no pod sees another's loopback.
 *
 * Services start in declared order, each ready (probed from inside the namespace, by the holder, which runs the
 * runtime image and so always has node) before the next; a missing image, a service that exits or is not ready by
 * its deadline is a ServiceError naming it with its log tail. While the case runs, a service that dies stops the
 * case. Every container is labelled like the case's and tracked for SIGINT; `remove()` writes each service's log
 * (evidence) and removes them all.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { CappedBuffer } from '../execution.js';
import type { SandboxSpec, ServiceRecord, ServiceSpec } from '../protocol.js';
import { describeReady, READY_PROBE } from '../ready-probe.js';
import { logTail, ServiceError } from '../service-error.js';
import { makeWorldReadable } from '../staging.js';
import { caseLabels, engineImage, sandboxUser } from './container-setup.js';
import { demultiplex } from './demultiplex.js';
import { statusOf } from './engine.js';
import { createContainer } from './flavour.js';
import { removeContainers, trackContainer } from './live-containers.js';
import { RUNTIME_IMAGE } from './runtime-image.js';

/** Cap on the log kept of each service. */
const LOG_BYTES = 1024 * 1024;

/** What the case container needs of its pod, and how the pod ends. */
export interface Pod {
  /** The case container's network mode: the holder's namespace. */
  networkMode: string;
  /** Calls `fn` once, with the error, if a service dies while the case runs. */
  onFailure(fn: (err: ServiceError) => void): void;
  /** Rejects with a ServiceError when some service is no longer running (call once the case has ended). */
  check(): Promise<void>;
  /** The services as they ran (`log` set once `remove` wrote it). */
  records(): ServiceRecord[];
  /** Writes each service's log into `logDir` (when given), then removes every container of the pod. */
  remove(logDir?: string): Promise<void>;
}

export interface PodOptions {
  user?: string;
  /** The engine gate's start pacing, awaited before each container start. */
  beforeStart?: (signal?: AbortSignal) => Promise<void>;
  /** False on engines that do not share this host's filesystem: services with files are refused. */
  bindFiles: boolean;
  signal?: AbortSignal;
}

interface Member {
  spec: ServiceSpec;
  container: Docker.Container;
  readyMs: number;
  log: string | null;
  staged: string | null;
}

async function readLog(c: Docker.Container): Promise<string> {
  const buf = new CappedBuffer(LOG_BYTES);
  try {
    const logs = (await c.logs({ stdout: true, stderr: true, follow: false })) as unknown;
    const stream = Buffer.isBuffer(logs) ? Readable.from([logs]) : (logs as NodeJS.ReadableStream);
    // one buffer for both streams keeps the lines in the order the service wrote them
    await demultiplex(stream, { stdout: buf, stderr: buf });
  } catch {
    // a container already gone has no log to give
  }
  return buf.text();
}

async function execIn(
  c: Docker.Container,
  cmd: string[],
  user?: string,
): Promise<{ exitCode: number | null; output: string }> {
  const exec = await c.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, ...(user ? { User: user } : {}) });
  const stream = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadableStream;
  const out = new CappedBuffer(64 * 1024);
  await demultiplex(stream, { stdout: out, stderr: out });
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? null, output: out.text().trim() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the pod of `spec` (holder, then each service until ready). Rejects with a ServiceError; leaves nothing. */
export async function startPod(docker: Docker, spec: SandboxSpec, options: PodOptions): Promise<Pod> {
  const services = spec.services ?? [];
  for (const s of services) {
    if ((s.files?.length ?? 0) > 0 && !options.bindFiles) {
      throw new ServiceError(
        s.name,
        'its files need an engine on this machine (bind mounts); this engine is remote (docs/scale-out.md)',
      );
    }
    const missing = `image ${s.image} is not on this engine (heldout pulls nothing; docker load or build it, or map it with images / --image-map)`;
    await engineImage(docker, s.image, missing).catch((err: Error) => {
      throw err.message === missing ? new ServiceError(s.name, missing) : err;
    });
  }
  await engineImage(docker, RUNTIME_IMAGE, `pod: the runtime image ${RUNTIME_IMAGE} is not on this engine`);

  const created: Docker.Container[] = [];
  const members: Member[] = [];
  let stopping = false;
  let failed: ServiceError | null = null;
  const listeners: ((err: ServiceError) => void)[] = [];
  const removeAll = async (logDir?: string) => {
    stopping = true;
    for (const m of members) {
      if (m.log !== null || !logDir) continue;
      await mkdir(logDir, { recursive: true });
      m.log = join(logDir, `${m.spec.name}.log`);
      await writeFile(m.log, await readLog(m.container));
    }
    const { failed } = await removeContainers(
      docker,
      created.map((c) => c.id),
    );
    const refused = failed.find((f) => statusOf(f.err) !== 409);
    if (refused) throw refused.err;
    await Promise.all(members.map((m) => (m.staged ? rm(m.staged, { recursive: true, force: true }) : null)));
  };
  const start = async (c: Docker.Container) => {
    options.signal?.throwIfAborted();
    await options.beforeStart?.(options.signal);
    await c.start();
  };

  try {
    const holder = await createContainer(docker, {
      Image: RUNTIME_IMAGE,
      Cmd: ['sleep', 'infinity'],
      Entrypoint: [],
      User: options.user ?? sandboxUser(),
      Hostname: 'heldout',
      Labels: { ...caseLabels(spec), 'heldout.pod': 'holder' },
      NetworkDisabled: false,
      HostConfig: {
        NetworkMode: 'none',
        ExtraHosts: services.map((s) => `${s.name}:127.0.0.1`),
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: 256 * 1024 * 1024,
        MemorySwap: 256 * 1024 * 1024,
        PidsLimit: 64,
        Init: true,
        LogConfig: { Type: 'none', Config: {} },
      },
    });
    created.push(holder);
    trackContainer(holder.id, docker);
    await start(holder);
    const networkMode = `container:${holder.id}`;

    for (const s of services) {
      const member = await createService(docker, spec, s, networkMode);
      created.push(member.container);
      members.push(member);
      trackContainer(member.container.id, docker);
      const t0 = performance.now();
      await start(member.container);
      await waitReady(holder, member, options.signal);
      member.readyMs = Math.round(performance.now() - t0);
      // From here on a death is the case's infra-error: the case is stopped and `check` says which service died.
      void member.container.wait().then(
        async (w: { StatusCode?: number }) => {
          if (stopping || failed) return;
          failed = new ServiceError(
            s.name,
            `exited with code ${w.StatusCode ?? '?'} while the case ran`,
            logTail(await readLog(member.container)),
          );
          for (const fn of listeners) fn(failed);
        },
        () => {},
      );
    }

    return {
      networkMode,
      onFailure(fn) {
        if (failed) fn(failed);
        else listeners.push(fn);
      },
      async check() {
        if (failed) throw failed;
        for (const m of members) {
          const state = (await m.container.inspect()).State;
          if (!state?.Running) {
            failed = new ServiceError(
              m.spec.name,
              `exited with code ${state?.ExitCode ?? '?'} while the case ran`,
              logTail(await readLog(m.container)),
            );
            throw failed;
          }
        }
      },
      records: () => members.map((m) => ({ name: m.spec.name, image: m.spec.image, readyMs: m.readyMs, log: m.log })),
      remove: removeAll,
    };
  } catch (err) {
    await removeAll(spec.serviceLogDir).catch(() => {});
    throw err;
  }
}

async function createService(docker: Docker, spec: SandboxSpec, s: ServiceSpec, networkMode: string): Promise<Member> {
  let staged: string | null = null;
  const mounts: Docker.MountSettings[] = [];
  if (s.files?.length) {
    // A copy readable by whatever user the service image runs as; the evaluator's originals are never mounted.
    staged = await mkdtemp(join(os.tmpdir(), `heldout-svc-${s.name}-`));
    for (const [i, f] of s.files.entries()) {
      const copy = join(staged, String(i), basename(f.hostPath));
      await cp(f.hostPath, copy, { recursive: true, dereference: false, verbatimSymlinks: true });
      mounts.push({ Type: 'bind', Source: copy, Target: f.containerPath, ReadOnly: true });
    }
    await makeWorldReadable(staged);
  }
  const limits = s.limits ?? {};
  const memory = Math.floor((limits.memoryMb ?? 1024) * 1024 * 1024);
  const command = s.command;
  try {
    const container = await createContainer(docker, {
      Image: s.image,
      ...(typeof command === 'string'
        ? { Entrypoint: [], Cmd: ['/bin/sh', '-c', command] }
        : command
          ? { Cmd: command }
          : {}),
      ...(s.user ? { User: s.user } : {}),
      Env: Object.entries(s.env ?? {}).map(([k, v]) => `${k}=${v}`),
      Labels: { ...caseLabels(spec), 'heldout.service': s.name },
      HostConfig: {
        NetworkMode: networkMode,
        Mounts: mounts,
        // A service is evaluator-owned software (a database may switch to its own user): a container's usual
        // capabilities minus raw sockets, no new privileges, limits; the pod's loopback-only namespace contains it.
        CapDrop: ['NET_RAW'],
        SecurityOpt: ['no-new-privileges'],
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: Math.round((limits.cpus ?? 1) * 1e9),
        PidsLimit: Math.floor(limits.pids ?? 256),
        Init: true,
        LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
      },
    });
    return { spec: s, container, readyMs: 0, log: null, staged };
  } catch (err) {
    if (staged) await rm(staged, { recursive: true, force: true });
    if (statusOf(err) === 404) throw new ServiceError(s.name, `image ${s.image} is not on this engine`);
    throw new ServiceError(s.name, `could not be created: ${(err as Error).message}`);
  }
}

/** Resolves once `m` is ready; rejects with a ServiceError when it exits first or its deadline passes. */
async function waitReady(holder: Docker.Container, m: Member, signal?: AbortSignal): Promise<void> {
  const s = m.spec;
  const deadlineMs = s.timeoutSeconds * 1000;
  const t0 = Date.now();
  let settled = false;
  const exited = m.container.wait().then(async (w: { StatusCode?: number }) => {
    if (settled) return;
    throw new ServiceError(
      s.name,
      `exited with code ${w.StatusCode ?? '?'} before it was ready`,
      logTail(await readLog(m.container)),
    );
  });
  exited.catch(() => {});
  const notReady = async (why: string): Promise<never> => {
    throw new ServiceError(
      s.name,
      `was not ready within ${s.timeoutSeconds} s (${s.ready ? describeReady(s.ready) : 'running'}: ${why})`,
      logTail(await readLog(m.container)),
    );
  };
  const probe = async (): Promise<void> => {
    const ready = s.ready;
    if (!ready) {
      const state = (await m.container.inspect()).State;
      if (!state?.Running) await exited;
      return;
    }
    if ('command' in ready) {
      const cmd = typeof ready.command === 'string' ? ['/bin/sh', '-c', ready.command] : ready.command;
      let last = '';
      for (let d = 100; Date.now() - t0 < deadlineMs; d = Math.min(d * 2, 1000)) {
        signal?.throwIfAborted();
        const r = await execIn(m.container, cmd).catch((err: Error) => ({ exitCode: null, output: err.message }));
        if (r.exitCode === 0) return;
        last = r.output || `exit ${r.exitCode}`;
        await sleep(Math.min(d, Math.max(0, deadlineMs - (Date.now() - t0))));
      }
      return notReady(last.split('\n').at(-1) ?? '');
    }
    const [kind, port, path] = 'http' in ready ? ['http', ready.port, ready.http] : ['tcp', ready.tcp, ''];
    const r = await execIn(holder, ['node', '-e', READY_PROBE, kind, String(port), path, String(deadlineMs), s.name]);
    if (r.exitCode !== 0) return notReady(r.output || `probe exit ${r.exitCode}`);
  };
  // the probe ends by its own deadline; this one only guards against an exec that never returns
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<void>((_, reject) => {
    timer = setTimeout(() => notReady('the probe did not answer').catch(reject), deadlineMs + 10_000);
  });
  try {
    await Promise.race([probe(), exited, guard]);
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}
