/**
 * The process backend (DESIGN §7): where no docker engine answers, the entry command runs as a child process in a
 * temp directory with the same placeholders (mapped to host paths), wall-clock kill of its whole process group,
 * capped output — and whatever isolation this host permits, probed once per process:
 *
 * - network: `unshare -n` (as root) or `unshare -rn` (unprivileged user namespace) — only loopback inside;
 * - mount namespace: the delivery re-mounted read-only in place, the case's siblings (other cases, truth files)
 *   hidden under an empty read-only tmpfs; otherwise the delivery is copied and made read-only by mode;
 * - pid namespace (`--fork --kill-child --mount-proc`): nothing escapes the kill, host processes are not visible;
 * - cgroups (root on v1, or v2 with memory+pids delegated): memory (no swap), pids and cpu limits, OOM detection;
 * - as root, the command runs as uid 65534 through `setpriv` with no-new-privs.
 *
 * `Execution.weakerIsolation` names every guarantee the docker backend gives that this run did not have.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { endedExecution } from '../execution.js';
import { relayNonce, relayWrapper, type WrappedRelay } from '../gateway-wrapper.js';
import { copyOutputsBounded } from '../output-limits.js';
import { localOwner, localOwnerState } from '../owner.js';
import type { BackendOf, CleanupOptions, ExecutionOf, Removed, SandboxSpec, ServiceRecord } from '../protocol.js';
import { SANDBOX_UID, SERVICE_UID } from '../sandbox-user.js';
import { caseEnv, fillPlaceholders, prepareOutputDir, stageCase, validateSpec } from '../staging.js';
import { type ProcessCapabilities, processCapabilities, which, withOverrides } from './capabilities.js';
import { type Cgroup, createCgroup, destroyLeftoverCgroups } from './cgroup.js';
import { makeReadOnlyCopy, pathsToHide, reachableByOthers } from './host-paths.js';
import { spawnAndWait } from './launch.js';
import { innerScript, outerScript, type ProcessLayout } from './scripts.js';
import { servicesRefusal, stageServices } from './services.js';
import { weakerIsolation } from './weaker-isolation.js';

const execFileP = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => res(port));
    });
  });
}

/** What a process backend may use of this host; default: everything the probe found. */
/**
 * Tells apart the cgroups of one process: two deliveries' runs of the same case × trial start in the same
 * millisecond, and a shared cgroup would be destroyed, with the other run's processes in it, by the first to end.
 */
let cgroupSeq = 0;

export interface ProcessBackendOptions {
  /**
   * Override probed capabilities (e.g. `{ netns: false, cgroups: false }` to see how the backend degrades on a host
   * that permits less). Only switching guarantees off is meaningful.
   */
  capabilities?: Partial<ProcessCapabilities>;
}

/** Copies everything: the stage's own copies (case outputs in and out) are bounded elsewhere, if at all. */
const UNBOUNDED = {
  bytes: Number.POSITIVE_INFINITY,
  entries: Number.POSITIVE_INFINITY,
  depth: Number.POSITIVE_INFINITY,
};

/**
 * Where this host can build no private root, the evaluator's own paths must at least be out of the sandbox user's
 * reach; a case that could read them is refused (an infra error of the run), never run with them in sight.
 */
async function refuseVisible(paths: string[], dropUser: boolean, mountns: boolean): Promise<void> {
  for (const p of paths) {
    if (!existsSync(p)) continue;
    if (dropUser && !(await reachableByOthers(p))) continue;
    throw new Error(
      `sandbox process: cannot hide ${p} from the delivery on this host (${mountns ? 'no private root can be built in the mount namespace' : 'no mount namespace: unshare is not permitted'}${dropUser ? '' : ', and the delivery would run as the host user'}); run it with --sandbox docker, or where unshare may create namespaces`,
    );
  }
}

class ProcessBackend implements BackendOf<'process', 'process'> {
  readonly name = 'process' as const;
  readonly kind = 'process' as const;
  /** `auto`'s fallback where no engine answers. */
  readonly autoRank = 2;

  constructor(private readonly options: ProcessBackendOptions = {}) {}

  private async caps(): Promise<ProcessCapabilities> {
    return withOverrides(await processCapabilities(), this.options.capabilities);
  }

  async available(): Promise<boolean> {
    return (await this.unavailable()) === null;
  }

  async unavailable(): Promise<string | null> {
    return existsSync('/bin/sh') ? null : 'sandbox process: this host has no /bin/sh';
  }

  /** Mounts stay where they are on the host (read-only ones are re-mounted in place). */
  mountPoint(mount: { hostPath: string }): string {
    return mount.hostPath;
  }

  async run(spec: SandboxSpec, options: { signal?: AbortSignal } = {}): Promise<ExecutionOf<'process'>> {
    validateSpec(spec);
    options.signal?.throwIfAborted();
    const caps = await this.caps();
    const refused = servicesRefusal(spec, caps);
    if (refused) throw new Error(refused);
    const stage = await mkdtemp(join(os.tmpdir(), 'heldout-proc-'));
    let cgroup: Cgroup | null = null;
    try {
      await chmod(stage, 0o755);
      const caseDir = join(stage, 'case');
      await stageCase(spec, caseDir);
      // The command writes into the stage, never beside the run's records: what fits the budget is copied back.
      const outputDir = resolve(spec.outputDir);
      await prepareOutputDir(outputDir);
      const out = join(stage, 'out');
      await copyOutputsBounded(outputDir, out, UNBOUNDED);
      await prepareOutputDir(out);
      const tmp = join(stage, 'tmp');
      await mkdir(tmp, { mode: 0o1777 });
      await chmod(tmp, 0o1777);
      const bin = join(stage, 'bin');
      await mkdir(bin);
      await chmod(bin, 0o755);

      // As root, run as 65534 — when everything the run needs is reachable by that user.
      const deliveryDir = resolve(spec.deliveryDir);
      const svc = spec.serviceRelays ?? [];
      const gwPaths = [...(spec.gateway ? [spec.gateway.relayScript] : []), ...svc.map((r) => r.relayScript)];
      const sockets = [...(spec.gateway ? [spec.gateway.socketPath] : []), ...svc.map((r) => r.socketPath)];
      const dropUser =
        caps.dropUser &&
        (await Promise.all(sockets.map((p) => reachableByOthers(p, true)))).every(Boolean) &&
        (
          await Promise.all(
            [...gwPaths, ...(spec.mounts ?? []).map((m) => m.hostPath)].map((p) => reachableByOthers(p)),
          )
        ).every(Boolean);
      // What an earlier run of this output directory left was copied in by root; as on docker, where the sandbox
      // user wrote it, the command may overwrite it.
      if (dropUser) await execFileP('chown', ['-R', '-h', `${SANDBOX_UID}:${SANDBOX_UID}`, out]);
      if (!caps.privateRoot) await refuseVisible(spec.evaluatorPaths ?? [], dropUser, caps.mountns);
      // The delivery: re-mounted read-only in place inside a mount namespace, otherwise (or when 65534 could not
      // reach it where it is) a read-only copy.
      const copyDelivery = !caps.mountns || (dropUser && !(await reachableByOthers(deliveryDir)));
      let delivery = deliveryDir;
      if (copyDelivery) {
        delivery = join(stage, 'delivery');
        await cp(deliveryDir, delivery, { recursive: true, dereference: false, verbatimSymlinks: true });
        await makeReadOnlyCopy(delivery);
      }
      const map = { input: join(caseDir, 'input.md'), case: caseDir, output: out, run: join(out, '.run'), delivery };
      let command = fillPlaceholders(spec.command, map);

      // Entry commands say `python`; not every host has it. In a private root only system directories exist.
      const systemPath = '/usr/local/bin:/usr/bin:/bin';
      const hostPath = caps.privateRoot
        ? `${dirname(process.execPath)}${delimiter}${systemPath}`
        : dropUser
          ? systemPath
          : (process.env.PATH ?? systemPath);
      if (!which('python', hostPath)) {
        const py3 = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : which('python3', hostPath);
        if (py3) await symlink(py3, join(bin, 'python'));
      }
      const env: Record<string, string> = {
        PATH: `${bin}${delimiter}${hostPath}`,
        HOME: tmp,
        TMPDIR: tmp,
        LANG: 'C.UTF-8',
        ...caseEnv(spec, map),
        ...spec.env,
      };
      const gw = spec.gateway;
      // A new network namespace starts with loopback down; the gateway's and services' relays need it up.
      const netns = caps.netns && (caps.loopbackUp !== null || (!gw && !svc.length));
      const unshareFlags = netns ? caps.unshareFlags : caps.unshareFlags.filter((f) => f !== '-n');
      const relays: WrappedRelay[] = [];
      for (const r of [...(gw ? [{ ...gw, name: undefined }] : []), ...svc]) {
        let port = r.port;
        const relayEnv = { ...r.env };
        if (!netns) {
          // Host loopback is shared: every case needs a port of its own.
          port = await freePort();
          for (const k of Object.keys(relayEnv))
            relayEnv[k] = relayEnv[k].replaceAll(`127.0.0.1:${r.port}`, `127.0.0.1:${port}`);
        }
        Object.assign(env, relayEnv);
        relays.push({ port, script: r.relayScript, socket: r.socketPath, service: r.name });
      }
      if (relays.length) command = relayWrapper(command, relays, relayNonce(spec), process.execPath);

      // Case services (issue 19): children of the case's own namespaces, started before the entry.
      const pod = spec.services?.length
        ? await stageServices(spec, stage, {
            node: process.execPath,
            env: { PATH: env.PATH, HOME: tmp, TMPDIR: tmp, LANG: 'C.UTF-8' },
            uid: dropUser ? SERVICE_UID : null,
          })
        : null;
      const needed = [stage, deliveryDir, ...(spec.mounts ?? []).map((m) => m.hostPath)];
      needed.push(...sockets, ...gwPaths);
      const hide = caps.mountns && !caps.privateRoot ? pathsToHide(spec, needed) : [];
      const layout: ProcessLayout = {
        stage,
        tmp,
        delivery,
        entry: join(stage, 'entry.sh'),
        start: join(stage, 'start.sh'),
        mounts: spec.mounts ?? [],
        files: [...new Set([...sockets, ...gwPaths])],
        hide,
        services: pod ? { dir: pod.dir, start: pod.start, check: pod.check } : null,
      };
      await writeFile(layout.entry, `${command}\n`, { mode: 0o644 });
      const scripts = innerScript(layout, { ...caps, dropUser, netns });
      if (scripts.start) await writeFile(layout.start, scripts.start, { mode: 0o644 });
      const innerPath = join(stage, 'inner.sh');
      await writeFile(innerPath, scripts.inner, { mode: 0o644 });

      cgroup = !caps.cgroups
        ? null
        : await createCgroup(
            `${spec.runId}--${spec.caseId}-${spec.trial}-${++cgroupSeq}-${localOwner()}-${Date.now()}`,
            {
              memoryBytes: Math.floor(spec.limits.memoryMb * 1024 * 1024),
              pids: Math.floor(spec.limits.pids),
              cpus: spec.limits.cpus,
            },
          );
      const outer = outerScript(
        cgroup?.procsFiles ?? [],
        innerPath,
        unshareFlags,
        caps.pdeathsig,
        spec.limits.out?.bytes ?? null,
      );

      const weaker = weakerIsolation(spec, { ...caps, dropUser, netns }, cgroup, hide, copyDelivery);
      if (caps.netns && !netns) {
        weaker[0] =
          'network: host network kept (no tool here brings loopback up in a new namespace, and the gateway relay needs it)';
      }
      if (pod) weaker.push(...pod.weakerIsolation);
      let services: ServiceRecord[] | undefined;
      const ran = await spawnAndWait(spec, outer, env, stage, cgroup, out, options.signal);
      if (pod) {
        const failed = await pod.failure();
        const records = await pod.records(spec.serviceLogDir);
        if (failed) throw failed;
        services = records;
      }
      await rm(outputDir, { recursive: true, force: true });
      const copied = await copyOutputsBounded(out, outputDir, spec.limits.out ?? UNBOUNDED);
      await chmod(outputDir, 0o777).catch(() => {});
      const execution = await endedExecution(
        'process',
        ran.ended,
        ran.captured,
        outputDir,
        weaker,
        ran.outputLimit ?? copied,
        spec.limits.out?.bytes ?? null,
      );
      if (services) execution.services = services;
      return execution;
    } finally {
      await cgroup?.destroy();
      await rm(stage, { recursive: true, force: true }).catch(async () => {
        // a read-only copy: make it writable again, then remove
        await execFileP('chmod', ['-R', 'u+w', stage]).catch(() => {});
        await rm(stage, { recursive: true, force: true });
      });
    }
  }

  /**
   * Kills and removes what a killed run left in its cgroups (`heldout-<runId>--…`; all heldout ones without runId).
   * Each name carries its owner (`…-<pid>.<start>-<ms>`), so `keepLive` keeps a live process's. Without cgroups
   * there is nothing to find: process groups die with their run (and with heldout, via pdeathsig).
   */
  async cleanup(runId?: string, options: CleanupOptions = {}): Promise<Removed> {
    if (!(await this.caps()).cgroups) return { cgroups: 0 };
    const keep = (name: string) => {
      if (!options.keepLive) return false;
      const owner = /-(\d+\.\d+)-\d+$/.exec(name)?.[1];
      const state = owner ? localOwnerState(owner) : 'unknown';
      return state === 'live' || (state === 'unknown' && runId === undefined);
    };
    const { removed, kept } = await destroyLeftoverCgroups(runId ? `heldout-${runId}--` : 'heldout-', keep);
    return kept > 0 ? { cgroups: removed, kept } : { cgroups: removed };
  }
}

/** A process backend; `capabilities` switches guarantees off (to see how it degrades where a host permits less). */
export function createProcessBackend(options: ProcessBackendOptions = {}): BackendOf<'process', 'process'> {
  return new ProcessBackend(options);
}

/** The process backend with everything this host permits. */
export const processBackend = createProcessBackend();
