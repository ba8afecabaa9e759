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
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { shQuote } from '../../util/index.js';
import { gatewayWrapper } from '../gateway-wrapper.js';
import type { BackendOf, ExecutionOf, Removed, SandboxSpec } from '../protocol.js';
import { SANDBOX_UID } from '../sandbox-user.js';
import { caseEnv, fillPlaceholders, prepareOutputDir, stageCase, validateSpec } from '../staging.js';
import { type ProcessCapabilities, processCapabilities, which, withOverrides } from './capabilities.js';
import { type Cgroup, createCgroup, destroyLeftoverCgroups } from './cgroup.js';
import { makeReadOnlyCopy, pathsToHide, reachableByOthers } from './host-paths.js';
import { spawnAndWait } from './launch.js';
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
    const cgroupsAllowed = caps.cgroups;
    const stage = await mkdtemp(join(os.tmpdir(), 'heldout-proc-'));
    let cgroup: Cgroup | null = null;
    try {
      await chmod(stage, 0o755);
      const caseDir = join(stage, 'case');
      await stageCase(spec, caseDir);
      await prepareOutputDir(spec.outputDir);
      const tmp = join(stage, 'tmp');
      await mkdir(tmp, { mode: 0o1777 });
      await chmod(tmp, 0o1777);
      const bin = join(stage, 'bin');
      await mkdir(bin);
      await chmod(bin, 0o755);

      // As root, run as 65534 — when everything the run needs is reachable by that user.
      const deliveryDir = resolve(spec.deliveryDir);
      const outputDir = resolve(spec.outputDir);
      const gwPaths = spec.gateway ? [spec.gateway.relayScript] : [];
      const dropUser =
        caps.dropUser &&
        (await reachableByOthers(outputDir, true)) &&
        (!spec.gateway || (await reachableByOthers(spec.gateway.socketPath, true))) &&
        (
          await Promise.all(
            [...gwPaths, ...(spec.mounts ?? []).map((m) => m.hostPath)].map((p) => reachableByOthers(p)),
          )
        ).every(Boolean);
      // The delivery: re-mounted read-only in place inside a mount namespace, otherwise (or when 65534 could not
      // reach it where it is) a read-only copy.
      const copyDelivery = !caps.mountns || (dropUser && !(await reachableByOthers(deliveryDir)));
      let delivery = deliveryDir;
      if (copyDelivery) {
        delivery = join(stage, 'delivery');
        await cp(deliveryDir, delivery, { recursive: true, dereference: false, verbatimSymlinks: true });
        await makeReadOnlyCopy(delivery);
      }
      const map = {
        input: join(caseDir, 'input.md'),
        case: caseDir,
        output: outputDir,
        run: join(outputDir, '.run'),
        delivery,
      };
      let command = fillPlaceholders(spec.command, map);

      // Entry commands say `python`; not every host has it.
      const hostPath = dropUser ? '/usr/local/bin:/usr/bin:/bin' : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin');
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
      // A new network namespace starts with loopback down; the gateway relay needs it up.
      const netns = caps.netns && (caps.loopbackUp !== null || !gw);
      const unshareFlags = netns ? caps.unshareFlags : caps.unshareFlags.filter((f) => f !== '-n');
      if (gw) {
        let port = gw.port;
        const gwEnv = { ...gw.env };
        if (!netns) {
          // Host loopback is shared: every case needs a port of its own.
          port = await freePort();
          for (const k of Object.keys(gwEnv))
            gwEnv[k] = gwEnv[k].replaceAll(`127.0.0.1:${gw.port}`, `127.0.0.1:${port}`);
        }
        Object.assign(env, gwEnv);
        command = gatewayWrapper(command, port, gw.relayScript, gw.socketPath, process.execPath);
      }

      // Case services (issue 19): children of the case's own namespaces, started before the entry.
      const pod = spec.services?.length
        ? await stageServices(spec, stage, {
            node: process.execPath,
            env: { PATH: env.PATH, HOME: tmp, TMPDIR: tmp, LANG: 'C.UTF-8' },
            uid: dropUser ? SANDBOX_UID : null,
          })
        : null;
      const needed = [stage, outputDir, deliveryDir, ...(spec.mounts ?? []).map((m) => m.hostPath)];
      if (gw) needed.push(gw.socketPath, gw.relayScript);
      const hide = caps.mountns ? pathsToHide(spec, needed) : [];

      // inner.sh runs inside the namespaces: mounts, then the command (as 65534 when we are root).
      const inner: string[] = [];
      if (netns && caps.loopbackUp) inner.push(`${caps.loopbackUp} >/dev/null 2>&1 || true`);
      inner.push('set -e');
      if (caps.mountns) {
        inner.push(`mount --bind ${shQuote(delivery)} ${shQuote(delivery)}`);
        inner.push(`mount -o remount,bind,ro ${shQuote(delivery)}`);
        for (const m of spec.mounts ?? []) {
          if (m.readOnly) {
            inner.push(`mount --bind ${shQuote(m.hostPath)} ${shQuote(m.hostPath)}`);
            inner.push(`mount -o remount,bind,ro ${shQuote(m.hostPath)}`);
          }
        }
        for (const h of hide) inner.push(`mount -t tmpfs -o ro,size=4k,mode=0555 heldout-hidden ${shQuote(h)}`);
      }
      inner.push('set +e');
      if (pod) inner.push(...pod.start);
      inner.push(`cd ${shQuote(delivery)}`);
      const entry = join(stage, 'entry.sh');
      await writeFile(entry, `${command}\n`, { mode: 0o644 });
      const run = dropUser
        ? `setpriv --reuid=${SANDBOX_UID} --regid=${SANDBOX_UID} --clear-groups --no-new-privs -- /bin/sh ${shQuote(entry)}`
        : `/bin/sh ${shQuote(entry)}`;
      // With services the shell stays to check them once the entry is done; its status is passed on.
      if (pod) inner.push(run, 'heldout_rc=$?', ...pod.check, 'exit $heldout_rc');
      else inner.push(`exec ${run}`);
      const innerPath = join(stage, 'inner.sh');
      await writeFile(innerPath, `${inner.join('\n')}\n`, { mode: 0o644 });

      // outer: enter the cgroup first (so every descendant is in it), then the namespaces.
      cgroup = !cgroupsAllowed
        ? null
        : await createCgroup(
            `${spec.runId}--${spec.caseId}-${spec.trial}-${process.pid}-${Date.now()}-${++cgroupSeq}`,
            {
              memoryBytes: Math.floor(spec.limits.memoryMb * 1024 * 1024),
              pids: Math.floor(spec.limits.pids),
              cpus: spec.limits.cpus,
            },
          );
      const outer: string[] = [];
      for (const f of cgroup?.procsFiles ?? []) outer.push(`echo $$ > ${shQuote(f)}`);
      const deathsig = caps.pdeathsig ? 'setpriv --pdeathsig KILL ' : '';
      outer.push(
        unshareFlags.length
          ? `exec ${deathsig}unshare ${unshareFlags.join(' ')} /bin/sh ${shQuote(innerPath)}`
          : `exec ${deathsig}/bin/sh ${shQuote(innerPath)}`,
      );

      const weaker = weakerIsolation(spec, { ...caps, dropUser, netns }, cgroup, hide, copyDelivery);
      if (caps.netns && !netns) {
        weaker[0] =
          'network: host network kept (no tool here brings loopback up in a new namespace, and the gateway relay needs it)';
      }
      if (pod) weaker.push(...pod.weakerIsolation);
      const execution = await spawnAndWait(spec, outer.join(' && '), env, stage, cgroup, weaker, options.signal);
      if (pod) {
        const failed = await pod.failure();
        const records = await pod.records(spec.serviceLogDir);
        if (failed) throw failed;
        execution.services = records;
      }
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
   * Without cgroups there is nothing to find: process groups die with their run (and with heldout, via pdeathsig).
   */
  async cleanup(runId?: string): Promise<Removed> {
    if (!(await this.caps()).cgroups) return { cgroups: 0 };
    return { cgroups: await destroyLeftoverCgroups(runId ? `heldout-${runId}--` : 'heldout-') };
  }
}

/** A process backend; `capabilities` switches guarantees off (to see how it degrades where a host permits less). */
export function createProcessBackend(options: ProcessBackendOptions = {}): BackendOf<'process', 'process'> {
  return new ProcessBackend(options);
}

/** The process backend with everything this host permits. */
export const processBackend = createProcessBackend();
