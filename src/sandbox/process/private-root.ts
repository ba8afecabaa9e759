/**
 * The process backend's private root (issue 17): inside its own mount namespace a case sees a fresh root made of
 * the host's system directories and what programs need of /etc (read-only), a minimal /dev, /proc, its stage (case
 * copy, /tmp, outputs), the delivery (read-only) and what the spec mounts — and nothing else of the host: not the
 * commission, not the run's records, not other runs' files in the temporary directory, not the evaluator's
 * checkout, not the machine's credentials in /etc. What a container gets from its image, the host lends here
 * read-only; everything evaluator-owned is simply not in the tree.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { shQuote } from '../../util/index.js';

/** The host's system directories a case runs on (programs and libraries), lent read-only. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What of the host's /etc programs need to run (the loader's cache, name service, time zone, certificates, the
 * alternatives links under /usr/bin, Python's site configuration), lent read-only. The rest of /etc stays out: it
 * may hold a machine's credentials (npmrc, pip.conf, gitconfig, environment, docker/).
 */
const ETC_ENTRIES = [
  'alternatives',
  'ca-certificates',
  'debian_version',
  'gai.conf',
  'host.conf',
  'hosts',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'magic',
  'magic.mime',
  'mime.types',
  'networks',
  'nsswitch.conf',
  'os-release',
  'protocols',
  'services',
  'shells',
  'ssl',
  'terminfo',
  'timezone',
];

/** Who exists inside: root (what a user namespace maps the caller to) and the sandbox user. */
const PASSWD = 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n';
const GROUP = 'root:x:0:\nnogroup:x:65534:\n';

/** Device nodes a program expects; everything else of /dev stays out. */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/** What a case's private root holds besides the system directories. */
export interface PrivateRootPlan {
  /** Empty directory (inside the stage) the root is mounted on. */
  root: string;
  /** The case's stage: input copy, tmp, bin, outputs, scripts. Visible at its own path. */
  stage: string;
  /** The stage's tmp, also mounted at /tmp. */
  tmp: string;
  /** Read-only at their own paths (the delivery, read-only spec mounts, the node running the gateway relay). */
  readOnly: string[];
  /** Writable at their own paths. */
  writable: string[];
  /** Single files (the gateway socket and relay script) bound at their own paths. */
  files: string[];
  /** Directories of the stage the case must not see (the services' staged files), under an empty tmpfs. */
  hidden?: string[];
}

function readdirOr(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/** The node installation the relay runs with, when it is not under a system directory already. */
export function nodePrefix(execPath = process.execPath): string | null {
  const real = resolve(execPath);
  if (SYSTEM_DIRS.some((d) => within(real, d))) return null;
  return dirname(dirname(real));
}

/** Shell lines (run inside the mount namespace, as root there) that build the private root at `plan.root`. */
export function privateRootScript(plan: PrivateRootPlan): string[] {
  const R = (p: string) => shQuote(`${plan.root}${p}`);
  const q = shQuote;
  const lines = [`mount -t tmpfs -o size=8m,mode=0755 heldout-root ${q(plan.root)}`];
  const bindDir = (path: string, ro: boolean) => {
    lines.push(`mkdir -p ${R(path)}`, `mount --bind ${q(path)} ${R(path)}`);
    if (ro) lines.push(`mount -o remount,bind,ro ${R(path)}`);
  };
  const lend = (p: string) => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      return;
    }
    // Merged /usr: /bin, /lib… are links into /usr; the same links make the same tree.
    if (st.isSymbolicLink()) lines.push(`ln -s ${q(readlinkSync(p))} ${R(p)}`);
    else if (st.isDirectory()) bindDir(p, true);
    else if (st.isFile())
      lines.push(`touch ${R(p)}`, `mount --bind ${q(p)} ${R(p)}`, `mount -o remount,bind,ro ${R(p)}`);
  };
  for (const d of SYSTEM_DIRS) lend(d);
  lines.push(`mkdir -p ${R('/etc')}`);
  const python = readdirOr('/etc').filter((n) => /^python3(\.\d+)?$/.test(n));
  for (const name of [...ETC_ENTRIES, ...python]) lend(`/etc/${name}`);
  lines.push(`printf ${q(PASSWD)} > ${R('/etc/passwd')}`, `printf ${q(GROUP)} > ${R('/etc/group')}`);
  lines.push(`mkdir -p ${R('/dev')}`, `mount -t tmpfs -o size=64k,mode=0755 heldout-dev ${R('/dev')}`);
  for (const dev of DEVICES) {
    if (!existsSync(`/dev/${dev}`)) continue;
    lines.push(`touch ${R(`/dev/${dev}`)}`, `mount --bind ${q(`/dev/${dev}`)} ${R(`/dev/${dev}`)}`);
  }
  lines.push(
    `ln -s /proc/self/fd ${R('/dev/fd')}`,
    `ln -s /proc/self/fd/0 ${R('/dev/stdin')}`,
    `ln -s /proc/self/fd/1 ${R('/dev/stdout')}`,
    `ln -s /proc/self/fd/2 ${R('/dev/stderr')}`,
    `mkdir -p ${R('/dev/shm')}`,
    `mount -t tmpfs -o size=16m,mode=1777,nosuid,nodev heldout-shm ${R('/dev/shm')}`,
    `mkdir -p ${R('/proc')}`,
    `mount --rbind /proc ${R('/proc')}`,
  );
  // /tmp first: the stage itself usually lives under the host's /tmp, and must stay visible at its own path.
  lines.push(`mkdir -p ${R('/tmp')}`, `mount --bind ${q(plan.tmp)} ${R('/tmp')}`);
  bindDir(plan.stage, false);
  for (const h of plan.hidden ?? []) lines.push(`mount -t tmpfs -o ro,size=4k,mode=0555 heldout-hidden ${R(h)}`);
  for (const p of plan.readOnly) bindDir(p, true);
  for (const p of plan.writable) bindDir(p, false);
  for (const f of plan.files) {
    lines.push(`mkdir -p ${R(dirname(f))}`, `touch ${R(f)}`, `mount --bind ${q(f)} ${R(f)}`);
  }
  // Nothing more will be mounted: the root itself becomes read-only (its tmpfs held only mount points and links).
  lines.push(`mount -o remount,ro heldout-root ${q(plan.root)}`);
  return lines;
}

/** The probe: the same private root a case gets (over an empty stage), entered with chroot. */
export function privateRootProbe(stage: string, chroot: string): string {
  const root = `${stage}/root`;
  const lines = privateRootScript({ root, stage, tmp: stage, readOnly: [], writable: [], files: [] });
  return [`mkdir -p ${shQuote(root)}`, ...lines, `${shQuote(chroot)} ${shQuote(root)} /bin/sh -c true`].join(' && ');
}
