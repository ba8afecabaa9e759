/**
 * The docker trial container (`../trial.ts`): a container of the task's image that stays up (`sleep infinity` under
 * the image's ENTRYPOINT and docker's init, as Harbor runs its `main` service) while phases `exec` in it.
 *
 * It is the task's environment, so it keeps what the environment needs and heldout's case sandbox takes away: the
 * image's user (root in most task images), a writable root filesystem, docker's default capabilities (less
 * NET_RAW, MKNOD, AUDIT_WRITE) and set-uid binaries. It keeps heldout's other guarantees: no network (unless asked
 * for and the engine has one), memory/cpu/pids limits, labels, removal on close, SIGINT and `heldout gc`. Files
 * move through the engine API (put/get archives), so a remote engine works the same; the gateway's relay runs in a
 * runtime-image sidecar sharing the container's network namespace, since a task image may have no node.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { shQuote, sleep } from '../../util/index.js';
import { CappedBuffer, capture } from '../execution.js';
import type { SandboxSpec } from '../protocol.js';
import { dirEntries, extractTar, extractTarBounded, type TarEntry, tarStream } from '../tar.js';
import type { TrialContainer, TrialExecOptions, TrialExecResult, TrialImage, TrialSpec } from '../trial.js';
import { caseLabels, engineImage, GATEWAY_PATHS, gatewaySocketMount, sandboxUser } from './container-setup.js';
import { demultiplex } from './demultiplex.js';
import { statusOf } from './engine.js';
import { createContainer } from './flavour.js';
import { trackContainer, untrackContainer } from './live-containers.js';
import { type Pod, startPod } from './pod.js';

/** What the backend lends a trial: its engine gate's start pacing, and where the gateway socket is on the engine. */
export interface TrialDeps {
  beforeStart(signal?: AbortSignal): Promise<void>;
  gatewaySocketOnEngine?: string;
  /** Engine CPUs (cpus is capped by them). */
  ncpu: number;
  /** False on an engine that does not share this host's filesystem: services with files are refused. */
  bindFiles: boolean;
}

/** The first bytes an exec prints on stderr: its pid inside the container, so a timeout can kill its tree. */
const PID_MARK = '\u001eheldout-pid:';

/** Expands `$X` / `${X}` from `vars` (unknown references become empty, as a Dockerfile's ENV does). */
function expand(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)/g, (_, a, b) => vars[(a ?? b) as string] ?? '');
}

function envRecord(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of list ?? []) {
    const eq = kv.indexOf('=');
    if (eq > 0) out[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return out;
}

/** Tar entries putting a host file at `to`, or a directory's contents under `to` (paths relative to /). */
async function entriesFor(from: string, to: string): Promise<TarEntry[]> {
  const target = path.posix.normalize(to).replace(/^\/+/, '').replace(/\/+$/, '');
  const s = await stat(from);
  if (!s.isDirectory()) {
    const name = to.endsWith('/') ? path.posix.join(target, path.basename(from)) : target;
    return [{ type: 'file', path: name, mode: s.mode & 0o111 ? 0o755 : 0o644, source: from, size: s.size }];
  }
  // The directories themselves get entries only below `to`: an existing `to` (or a parent) keeps its owner and mode.
  return (await dirEntries(from)).map((e) => ({ ...e, path: target ? `${target}/${e.path}` : e.path }));
}

/** A stderr capture that takes the pid mark off the front of the stream. */
class MarkedStderr extends CappedBuffer {
  private head = '';
  private done = false;
  pid: number | null = null;
  override push(chunk: Buffer): void {
    if (this.done) {
      super.push(chunk);
      return;
    }
    this.head += chunk.toString('latin1');
    const nl = this.head.indexOf('\n');
    if (nl === -1 && this.head.length < 64) return;
    this.done = true;
    const line = nl === -1 ? '' : this.head.slice(0, nl);
    let rest = this.head;
    if (line.startsWith(PID_MARK)) {
      this.pid = Number(line.slice(PID_MARK.length)) || null;
      rest = this.head.slice(nl + 1);
    }
    if (rest) super.push(Buffer.from(rest, 'latin1'));
  }
}

/** Opens a trial container on `docker`; see the file comment. */
export async function openDockerTrial(
  docker: Docker,
  spec: TrialSpec,
  deps: TrialDeps,
  signal?: AbortSignal,
): Promise<TrialContainer> {
  const wanted = spec.image;
  await engineImage(
    docker,
    wanted,
    `sandbox: image ${wanted} is not on this engine (heldout pulls nothing; build, load or map it first)`,
  );
  const info = (await docker.getImage(wanted).inspect()) as {
    Config?: { WorkingDir?: string; User?: string; Env?: string[]; Entrypoint?: string[] | null };
  };
  const image: TrialImage = {
    workdir: info.Config?.WorkingDir || '/',
    user: info.Config?.User || 'root',
    env: envRecord(info.Config?.Env),
    entrypoint: info.Config?.Entrypoint ?? null,
  };
  const notes: string[] = [];
  let network = 'none';
  let pod: Pod | null = null;
  if (spec.services?.length) {
    if (spec.network) notes.push("the task's services run in a loopback-only pod: the trial has no network");
    const podSpec = { runId: spec.runId, caseId: spec.caseId, trial: spec.trial, services: spec.services };
    pod = await startPod(docker, podSpec as SandboxSpec, {
      beforeStart: deps.beforeStart,
      bindFiles: deps.bindFiles,
      signal,
    });
    network = pod.networkMode;
  } else if (spec.network) {
    const nets = (await docker.listNetworks()) as { Name: string }[];
    if (nets.some((n) => n.Name === 'bridge')) network = 'bridge';
    else notes.push('the task allows the network, but the engine has no bridge network: the trial ran without one');
  }
  const env = { ...image.env };
  for (const [k, v] of spec.layerEnv ?? []) env[k] = expand(v, env);
  Object.assign(env, spec.env);
  const labels = { ...caseLabels(spec), 'heldout.role': 'trial' };
  const memory = Math.floor(spec.limits.memoryMb * 1024 * 1024);
  const created = createContainer(docker, {
    Image: wanted,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    Cmd: ['sh', '-c', 'sleep infinity'],
    ...(spec.workdir ? { WorkingDir: spec.workdir } : {}),
    ...(spec.user ? { User: spec.user } : {}),
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    // A container joining the pod's namespace takes the holder's host name (and /etc/hosts, naming the services).
    ...(pod ? {} : { Hostname: 'heldout' }),
    Labels: labels,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: false,
    NetworkDisabled: network === 'none',
    HostConfig: {
      NetworkMode: network,
      ReadonlyRootfs: false,
      CapDrop: ['NET_RAW', 'MKNOD', 'AUDIT_WRITE'],
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: Math.round(Math.min(spec.limits.cpus, deps.ncpu) * 1e9),
      PidsLimit: Math.floor(spec.limits.pids),
      Init: true,
      LogConfig: { Type: 'none', Config: {} },
      AutoRemove: false,
      Privileged: false,
    },
  });
  const container = await created.catch(async (err) => {
    await pod?.remove(spec.serviceLogDir);
    throw err;
  });
  trackContainer(container.id, docker);
  let sidecar: Docker.Container | null = null;
  const close = async () => {
    for (const c of [sidecar, container]) {
      if (!c) continue;
      await c.remove({ force: true, v: true }).catch(() => {});
      untrackContainer(c.id);
    }
    await pod?.remove(spec.serviceLogDir).catch(() => {});
  };
  const own = capture(64 * 1024);
  try {
    for (const f of spec.files ?? [])
      await container.putArchive(tarStream(await entriesFor(f.from, f.to)), { path: '/' });
    const stream = (await container.attach({ stream: true, stdout: true, stderr: true })) as NodeJS.ReadableStream;
    void demultiplex(stream, own);
    signal?.throwIfAborted();
    await deps.beforeStart(signal);
    await container.start();
    // One exec round trip gives a failing entrypoint the moment it takes to end the container, then it is looked at.
    await execute(container, ['true'], {}).catch(() => {});
    await exitedAtStart(container, own);
    if (spec.gateway) {
      try {
        sidecar = await startRelay(docker, pod ? network : `container:${container.id}`, spec, deps);
      } catch (err) {
        // A relay cannot join a container whose entrypoint has already failed: that failure is the one to report.
        await exitedAtStart(container, own);
        throw err;
      }
    }
  } catch (err) {
    await close();
    throw err;
  }

  const execIn = (argv: string[], o: TrialExecOptions = {}) => execute(container, argv, o);
  return {
    image,
    network,
    notes,
    exec: execIn,
    async put(from, to) {
      await container.putArchive(tarStream(await entriesFor(from, to)), { path: '/' });
    },
    async get(from, to, limits) {
      let stream: NodeJS.ReadableStream;
      try {
        stream = (await container.getArchive({ path: from })) as NodeJS.ReadableStream;
      } catch (err) {
        if (statusOf(err) === 404) return false;
        throw err;
      }
      const tmp = await mkdtemp(path.join(os.tmpdir(), 'heldout-trial-get-'));
      let over: string | null = null;
      try {
        if (limits) over = await extractTarBounded(stream, tmp, limits);
        else await extractTar(stream, tmp);
        const top = path.join(tmp, path.posix.basename(from.replace(/\/+$/, '')) || '.');
        // Past the limits before its first member: nothing of it fits, so nothing is put in place.
        if (!over || (await lstat(top).catch(() => null))) {
          await rm(to, { recursive: true, force: true });
          await mkdir(path.dirname(to), { recursive: true });
          await rename(top, to);
        }
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
      return over ?? true;
    },
    logs: () => `${own.stdout.text()}${own.stderr.text()}`,
    async servicesFailed() {
      if (!pod) return null;
      try {
        await pod.check();
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    },
    services: () => pod?.records() ?? [],
    async state() {
      const s = await container.inspect().catch(() => null);
      return {
        running: s?.State?.Running === true,
        exitCode: s && !s.State?.Running ? (s.State?.ExitCode ?? null) : null,
        oomKilled: s?.State?.OOMKilled === true,
      };
    },
    close,
  };
}

/** Throws with the container's own output when its entrypoint has already ended it. */
async function exitedAtStart(container: Docker.Container, own: ReturnType<typeof capture>): Promise<void> {
  const state = await container.inspect();
  if (state.State?.Running) return;
  await sleep(100); // the last of its output is still on the way
  throw new Error(
    `it exited at start (status ${state.State?.ExitCode}): ${tailOf(`${own.stdout.text()}${own.stderr.text()}`)}`,
  );
}

/** Waits for an exec to have an exit code (it has none until its process started). */
async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
  for (let i = 0; ; i++) {
    const s = (await exec.inspect()) as { Running: boolean; ExitCode: number | null };
    if (!s.Running && s.ExitCode !== null) return s.ExitCode;
    if (i > 200) return null;
    await sleep(25);
  }
}

function tailOf(text: string): string {
  const t = text.trim().split('\n').slice(-10).join('\n');
  return t.length > 1500 ? t.slice(-1500) : t || '(no output)';
}

/** One exec: its pid marked on stderr, output capped, killed with its process tree at the timeout. */
async function execute(container: Docker.Container, argv: string[], o: TrialExecOptions): Promise<TrialExecResult> {
  const cap = o.outputBytes ?? 1024 * 1024;
  const out = { stdout: new CappedBuffer(cap), stderr: new MarkedStderr(cap) };
  const exec = await container.exec({
    Cmd: ['sh', '-c', `printf '${PID_MARK}%s\\n' "$$" >&2; exec "$@"`, 'sh', ...argv],
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    ...(o.user ? { User: o.user } : {}),
    ...(o.cwd ? { WorkingDir: o.cwd } : {}),
    Env: Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`),
  });
  const t0 = performance.now();
  const stream = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadableStream;
  const drained = demultiplex(stream, out);
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  if (o.timeoutSeconds !== undefined) {
    timer = setTimeout(() => {
      timedOut = true;
      if (out.stderr.pid) void killTree(container, out.stderr.pid);
    }, o.timeoutSeconds * 1000);
  }
  try {
    // The stream stays open while a background child holds it: the exec is over when the engine says so.
    let ended = false;
    void drained.then(() => {
      ended = true;
    });
    for (;;) {
      // Until the process has started, an exec is neither running nor has an exit code.
      const s = (await exec.inspect()) as { Running: boolean; ExitCode: number | null };
      if (!s.Running && s.ExitCode !== null) {
        await Promise.race([drained, sleep(2000)]);
        (stream as unknown as { destroy?: () => void }).destroy?.();
        return {
          exitCode: timedOut ? null : s.ExitCode,
          timedOut,
          stdout: out.stdout.text(),
          stderr: out.stderr.text(),
          wallMs: Math.round(performance.now() - t0),
        };
      }
      await Promise.race([drained, sleep(ended ? 100 : 250)]);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Stops, then kills, a process and every descendant (children read from /proc), as root. */
async function killTree(container: Docker.Container, pid: number): Promise<void> {
  const walk = (sig: string) =>
    `w(){ for c in $(cat /proc/$1/task/*/children 2>/dev/null); do w $c; done; kill -${sig} $1 2>/dev/null; }; w ${pid}`;
  for (const sig of ['STOP', 'KILL']) {
    const exec = await container
      .exec({ Cmd: ['sh', '-c', walk(sig)], User: '0', AttachStdout: false })
      .catch(() => null);
    await exec?.start({ Detach: true }).catch(() => {});
    await sleep(50);
  }
  // A stopped process left out of the walk (it forked mid-walk) would hold the exec open: continue it to its death.
  const cont = await container
    .exec({ Cmd: ['sh', '-c', `kill -CONT ${pid} 2>/dev/null`], User: '0' })
    .catch(() => null);
  await cont?.start({ Detach: true }).catch(() => {});
}

/** The gateway relay in a runtime-image container that joins the trial's network namespace; resolves once it listens. */
async function startRelay(
  docker: Docker,
  networkMode: string,
  spec: TrialSpec,
  deps: TrialDeps,
): Promise<Docker.Container> {
  const gw = spec.gateway!;
  const image = await engineImage(docker, 'heldout/runtime:1', 'sandbox: the runtime image is missing');
  const socketMount = gatewaySocketMount(docker, gw, deps.gatewaySocketOnEngine);
  const relay = await createContainer(docker, {
    Image: image,
    Entrypoint: [],
    Cmd: ['node', GATEWAY_PATHS.relay, String(gw.port), GATEWAY_PATHS.socket],
    User: sandboxUser(),
    Labels: { ...caseLabels(spec), 'heldout.role': 'trial-relay' },
    name: `heldout-relay-${spec.runId}-${randomBytes(4).toString('hex')}`.replace(/[^A-Za-z0-9_.-]/g, '_'),
    HostConfig: {
      NetworkMode: networkMode,
      // The relay script is put in through the engine (any engine); nothing of a delivery runs in this container.
      ReadonlyRootfs: false,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Mounts: [socketMount],
      Memory: 128 * 1024 * 1024,
      PidsLimit: 32,
      LogConfig: { Type: 'none', Config: {} },
    },
  });
  trackContainer(relay.id, docker);
  try {
    await relayUp(relay, gw, deps);
  } catch (err) {
    await relay.remove({ force: true }).catch(() => {});
    untrackContainer(relay.id);
    throw err;
  }
  return relay;
}

async function relayUp(relay: Docker.Container, gw: NonNullable<TrialSpec['gateway']>, deps: TrialDeps): Promise<void> {
  await relay.putArchive(
    tarStream([
      {
        type: 'file',
        path: GATEWAY_PATHS.relay.slice(1),
        mode: 0o644,
        source: gw.relayScript,
        size: (await stat(gw.relayScript)).size,
      },
    ]),
    { path: '/' },
  );
  await deps.beforeStart();
  await relay.start();
  const port = `0100007F:${gw.port.toString(16).toUpperCase().padStart(4, '0')}`;
  const probe = `i=0; while [ $i -lt 200 ]; do grep -q ${shQuote(` ${port} 00000000:0000 0A`)} /proc/net/tcp && exit 0; sleep 0.05; i=$((i+1)); done; exit 1`;
  const exec = await relay.exec({ Cmd: ['sh', '-c', probe], AttachStdout: true, AttachStderr: true });
  const s = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadableStream;
  await demultiplex(s, capture(4096));
  if ((await exitCodeOf(exec)) !== 0)
    throw new Error('sandbox: the gateway relay of the trial did not start listening');
}
