/** The process backend's shell scripts: what runs inside the namespaces, and the outer line that enters them. */
import { existsSync } from 'node:fs';
import { shQuote } from '../../util/index.js';
import { SANDBOX_UID } from '../sandbox-user.js';
import type { ProcessCapabilities } from './capabilities.js';
import { which } from './capabilities.js';
import { nodePrefix, privateRootScript } from './private-root.js';

/** Where things are for one run of the process backend. */
export interface ProcessLayout {
  stage: string;
  tmp: string;
  /** The delivery as the command sees it (in place, or a read-only copy in the stage). */
  delivery: string;
  /** The command file (entry.sh) and the file that starts it in the private root (start.sh). */
  entry: string;
  start: string;
  /** Read-only and writable spec mounts; single files to bind (gateway socket, relay). */
  mounts: { hostPath: string; readOnly: boolean }[];
  files: string[];
  /** Host paths to hide under an empty tmpfs when there is no private root. */
  hide: string[];
  /**
   * Case services (issue 19): their staged directory, the lines that start them (before the entry) and check them
   * (after it, its status in $heldout_rc). They run outside the private root, which hides their directory.
   */
  services: { dir: string; start: string[]; check: string[] } | null;
}

/**
 * How the command itself is started once inside: as 65534 with no-new-privs when heldout is root, else as is. In a
 * private root the command must not keep a root's capabilities (a user namespace's root could chroot back out, or
 * unmount what hides the host): without a user to drop to, it drops every capability instead.
 */
function startCommand(entry: string, dropUser: boolean, exec = true, privateRoot = false): string {
  const run = dropUser
    ? `setpriv --reuid=${SANDBOX_UID} --regid=${SANDBOX_UID} --clear-groups --no-new-privs -- /bin/sh ${shQuote(entry)}`
    : privateRoot
      ? `setpriv --inh-caps=-all --bounding-set=-all --no-new-privs -- /bin/sh ${shQuote(entry)}`
      : `/bin/sh ${shQuote(entry)}`;
  return exec ? `exec ${run}` : run;
}

/** Runs `run` last (exec) or, with services, waits for it to check them, then exits with its status. */
function runThenCheck(run: string, services: ProcessLayout['services']): string[] {
  return services ? [run, 'heldout_rc=$?', ...services.check, 'exit $heldout_rc'] : [`exec ${run}`];
}

/**
 * inner.sh, run inside the namespaces: loopback up, then either a private root entered with chroot (the case sees
 * nothing of the host but system directories) or, where that cannot be built, the delivery re-mounted read-only and
 * the case's siblings hidden; then the command. Also returns start.sh's text (the private root's start).
 */
export function innerScript(
  layout: ProcessLayout,
  caps: ProcessCapabilities & { dropUser: boolean; netns: boolean },
): { inner: string; start: string | null } {
  const q = shQuote;
  const inner: string[] = [];
  if (caps.netns && caps.loopbackUp) inner.push(`${caps.loopbackUp} >/dev/null 2>&1 || true`);
  inner.push('set -e');
  const services = layout.services;
  if (caps.privateRoot) {
    // Services first: their /etc/hosts is then what the private root lends; they stay outside it.
    if (services) inner.push(...services.start);
    const root = `${layout.stage}/root`;
    const node = nodePrefix();
    inner.push(
      `mkdir -p ${q(root)}`,
      ...privateRootScript({
        root,
        stage: layout.stage,
        tmp: layout.tmp,
        readOnly: [layout.delivery, ...layout.mounts.filter((m) => m.readOnly).map((m) => m.hostPath)].concat(
          node ? [node] : [],
        ),
        writable: layout.mounts.filter((m) => !m.readOnly).map((m) => m.hostPath),
        files: layout.files,
        hidden: services ? [services.dir] : [],
      }),
    );
    const chroot = which('chroot') ?? 'chroot';
    inner.push('set +e', ...runThenCheck(`${q(chroot)} ${q(root)} /bin/sh ${q(layout.start)}`, services));
    const start = [`cd ${q(layout.delivery)} || exit 126`, startCommand(layout.entry, caps.dropUser, true, true)];
    return { inner: `${inner.join('\n')}\n`, start: `${start.join('\n')}\n` };
  }
  if (caps.mountns) {
    inner.push(`mount --bind ${q(layout.delivery)} ${q(layout.delivery)}`);
    inner.push(`mount -o remount,bind,ro ${q(layout.delivery)}`);
    for (const m of layout.mounts) {
      if (!m.readOnly) continue;
      inner.push(`mount --bind ${q(m.hostPath)} ${q(m.hostPath)}`);
      inner.push(`mount -o remount,bind,ro ${q(m.hostPath)}`);
    }
    for (const h of layout.hide) inner.push(`mount -t tmpfs -o ro,size=4k,mode=0555 heldout-hidden ${q(h)}`);
  }
  inner.push('set +e');
  if (services) inner.push(...services.start);
  inner.push(`cd ${q(layout.delivery)}`, ...runThenCheck(startCommand(layout.entry, caps.dropUser, false), services));
  return { inner: `${inner.join('\n')}\n`, start: null };
}

/**
 * The cap on any one file the command writes (RLIMIT_FSIZE, in bytes): one past the output budget, so a file at
 * the cap is past the budget (and the case fails the output-limit gate) while nothing larger is ever written.
 */
export function fileSizeLimit(bytes: number): string {
  const cap = Math.floor(bytes) + 1;
  const prlimit = which('prlimit');
  if (prlimit && existsSync(prlimit)) return `${shQuote(prlimit)} --pid $$ --fsize=${cap}:${cap}`;
  // POSIX sh counts ulimit -f in 512-byte blocks.
  return `ulimit -f ${Math.ceil(cap / 512)}`;
}

/** outer: enter the cgroup first (so every descendant is in it), cap file sizes, then enter the namespaces. */
export function outerScript(
  procsFiles: string[],
  innerPath: string,
  unshareFlags: string[],
  pdeathsig: boolean,
  outputBytes: number | null,
): string {
  const outer: string[] = [];
  for (const f of procsFiles) outer.push(`echo $$ > ${shQuote(f)}`);
  if (outputBytes !== null && Number.isFinite(outputBytes)) outer.push(fileSizeLimit(outputBytes));
  const deathsig = pdeathsig ? 'setpriv --pdeathsig KILL ' : '';
  outer.push(
    unshareFlags.length
      ? `exec ${deathsig}unshare ${unshareFlags.join(' ')} /bin/sh ${shQuote(innerPath)}`
      : `exec ${deathsig}/bin/sh ${shQuote(innerPath)}`,
  );
  return outer.join(' && ');
}
