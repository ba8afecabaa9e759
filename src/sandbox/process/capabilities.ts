/**
 * What isolation this host lets the process backend enforce, probed once per process: network, mount and pid
 * namespaces through `unshare`, a way to bring loopback up inside, dropping to uid 65534, pdeathsig, cgroups.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { shQuote } from '../../util/index.js';
import { cgroupSupport } from './cgroup.js';
import { privateRootProbe } from './private-root.js';

const execFileP = promisify(execFile);

export interface ProcessCapabilities {
  /** `unshare` flags that worked: [] when none; always includes -n when any namespace works. */
  unshareFlags: string[];
  netns: boolean;
  mountns: boolean;
  pidns: boolean;
  /** Root host with setpriv: the command runs as 65534 with no-new-privs. */
  dropUser: boolean;
  /** `setpriv --pdeathsig`: the sandbox dies with heldout even on SIGKILL (with a pid namespace: all of it). */
  pdeathsig: boolean;
  /** The command that brings loopback up inside a new network namespace (it starts down); null: none works. */
  loopbackUp: string | null;
  cgroups: boolean;
  /**
   * A private root can be built in the mount namespace and entered (private-root.ts): the case then sees the
   * system directories, its stage and its delivery, and nothing else of the host.
   */
  privateRoot: boolean;
}

/** The path of an executable on `path` (or the usual system directories), or null. */
export function which(name: string, path = process.env.PATH ?? '/usr/bin:/bin'): string | null {
  for (const d of path.split(delimiter)) {
    const p = join(d, name);
    if (d && existsSync(p)) return p;
  }
  for (const d of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) if (existsSync(join(d, name))) return join(d, name);
  return null;
}

async function ok(cmd: string, args: string[]): Promise<boolean> {
  try {
    await execFileP(cmd, args, { timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

let capabilities: Promise<ProcessCapabilities> | null = null;

async function probeCapabilities(): Promise<ProcessCapabilities> {
  const cgroups = (await cgroupSupport()) !== null;
  const root = (process.getuid?.() ?? -1) === 0;
  const setpriv = which('setpriv');
  const dropUser = root && setpriv !== null;
  const pdeathsig = setpriv !== null && (await ok(setpriv, ['--pdeathsig', 'KILL', 'true']));
  const none: ProcessCapabilities = {
    unshareFlags: [],
    netns: false,
    mountns: false,
    pidns: false,
    dropUser,
    pdeathsig,
    cgroups,
    loopbackUp: null,
    privateRoot: false,
  };
  const unshare = process.platform === 'linux' ? which('unshare') : null;
  if (!unshare) return none;
  const userFlags = root ? [] : ['-r'];
  // The full set: a mount namespace where a read-only re-mount takes, a pid namespace, no network.
  const probeDir = await mkdtemp(join(os.tmpdir(), 'heldout-probe-'));
  try {
    const full = [...userFlags, '-n', '-m', '-p', '-f', '--kill-child', '--mount-proc'];
    const script = `mount --bind ${shQuote(probeDir)} ${shQuote(probeDir)} && mount -o remount,bind,ro ${shQuote(probeDir)} && ! touch ${shQuote(join(probeDir, 'x'))} 2>/dev/null`;
    const withLoopback = async (flags: string[], base: ProcessCapabilities): Promise<ProcessCapabilities> => {
      for (const [tool, cmd] of [
        ['ip', 'ip link set lo up'],
        ['ifconfig', 'ifconfig lo up'],
      ] as const) {
        const path = which(tool) ?? which(tool, '/usr/sbin:/sbin');
        if (path && (await ok(unshare, [...flags, '/bin/sh', '-c', `${path} ${cmd.slice(tool.length + 1)}`]))) {
          return { ...base, loopbackUp: `${path} ${cmd.slice(tool.length + 1)}` };
        }
      }
      return base;
    };
    if (await ok(unshare, [...full, '/bin/sh', '-c', script])) {
      const chroot = which('chroot') ?? which('chroot', '/usr/sbin:/sbin');
      // Without a user to drop to, the command drops its capabilities with setpriv, or a chroot would not hold it.
      const privateRoot =
        chroot !== null &&
        (dropUser || setpriv !== null) &&
        (await ok(unshare, [...full, '/bin/sh', '-c', privateRootProbe(probeDir, chroot)]));
      return withLoopback(full, {
        ...none,
        unshareFlags: full,
        netns: true,
        mountns: true,
        pidns: true,
        privateRoot,
      });
    }
    const netOnly = [...userFlags, '-n'];
    if (await ok(unshare, [...netOnly, 'true']))
      return withLoopback(netOnly, { ...none, unshareFlags: netOnly, netns: true });
    if (!root && (await ok(unshare, ['-n', 'true'])))
      return withLoopback(['-n'], { ...none, unshareFlags: ['-n'], netns: true });
    return none;
  } finally {
    await rm(probeDir, { recursive: true, force: true });
  }
}

/** What this host lets the process backend enforce (probed once per process). */
export function processCapabilities(): Promise<ProcessCapabilities> {
  capabilities ??= probeCapabilities();
  return capabilities;
}

/**
 * The probed capabilities with some switched off (only switching off is meaningful), the unshare flags kept
 * consistent with what is left.
 */
export function withOverrides(
  probed: ProcessCapabilities,
  o: Partial<ProcessCapabilities> | undefined,
): ProcessCapabilities {
  if (!o) return probed;
  const c = { ...probed, ...o };
  let flags = probed.unshareFlags;
  if (!c.pidns) flags = flags.filter((f) => !['-p', '-f', '--kill-child', '--mount-proc'].includes(f));
  if (!c.mountns) flags = flags.filter((f) => f !== '-m' && f !== '--mount-proc');
  if (!c.mountns) c.privateRoot = false;
  if (!c.netns) flags = flags.filter((f) => f !== '-n');
  if (flags.every((f) => f === '-r')) flags = [];
  return { ...c, unshareFlags: o.unshareFlags ?? flags };
}
