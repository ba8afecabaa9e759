/**
 * The only way the loader touches a package's files. A package may be hostile or broken (a link to `/etc/passwd`
 * or `/dev/zero`, a FIFO, a directory where a file belongs, a loop of links, a file of gigabytes): every entry is
 * classified without following a link out of its root, only regular files of bounded size are read, a FIFO is never
 * opened, and every I/O error becomes a reason string instead of an exception.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
} from 'node:fs';
import path from 'node:path';

/** The most bytes the loader reads of one package file (YAML, Markdown, truth.json). */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** What an entry is, seen from inside its root. `refused`: it exists but must not be used; `reason` says why. */
export type Entry =
  | { kind: 'file'; real: string; size: number }
  | { kind: 'dir'; real: string }
  | { kind: 'missing' }
  | { kind: 'refused'; reason: string };

/**
 * Whether a path a package names (an artifact, a check's file or module, the patch, the starter, a service's file,
 * a build context) stays inside the directory it is resolved in: relative, no `..` segment, no NUL byte.
 */
export function isInsidePath(p: string): boolean {
  if (p.includes('\0') || /^([/\\]|[A-Za-z]:)/.test(p)) return false;
  return !p.split(/[/\\]/).includes('..');
}

/** Whether `p` is `root` or below it (both real paths). */
export function within(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** The real path of a directory, or why it is none (`missing`: nothing is there). Never throws. */
export function realDir(dir: string): { real: string } | { reason: string; missing: boolean } {
  try {
    const real = realpathSync.native(dir);
    if (!lstatSync(real).isDirectory()) return { reason: 'not a directory', missing: false };
    return { real };
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException)?.code === 'ENOENT';
    return { reason: missing ? 'not a directory' : ioReason(err, 'not a directory'), missing };
  }
}

/**
 * What `abs` is, as seen from `root` (a real path; `rootName` names it in a refusal): links are followed only while
 * they stay inside it; a FIFO, socket or device is refused by type, never opened. Never throws.
 */
export function entryAt(root: string, abs: string, rootName = 'the package'): Entry {
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      const link = linkTarget(abs);
      return link === null ? { kind: 'missing' } : { kind: 'refused', reason: `is a link to a missing file (${link})` };
    }
    return { kind: 'refused', reason: ioReason(err, 'cannot be resolved') };
  }
  if (!within(root, real)) return { kind: 'refused', reason: `is a link that leads out of ${rootName} (to ${real})` };
  try {
    const st = lstatSync(real);
    if (st.isFile()) return { kind: 'file', real, size: st.size };
    if (st.isDirectory()) return { kind: 'dir', real };
    return { kind: 'refused', reason: `is ${special(st)}, not a regular file` };
  } catch (err) {
    return { kind: 'refused', reason: ioReason(err, 'cannot be read') };
  }
}

/** Reads a regular file found by `entryAt`, at most `MAX_FILE_BYTES`; the reason when it cannot. Never throws. */
export function readEntry(
  e: Extract<Entry, { kind: 'file' }>,
  max = MAX_FILE_BYTES,
): { text: string } | { reason: string } {
  if (e.size > max) return { reason: `is ${e.size} bytes, more than the ${max} a package file may have` };
  let fd: number | null = null;
  try {
    // O_NONBLOCK: should the file have been swapped for a FIFO since it was looked at, opening it does not hang.
    fd = openSync(e.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return { reason: `is ${special(st)}, not a regular file` };
    const buf = Buffer.alloc(Math.min(st.size, max) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n === buf.length) break;
    }
    if (n > max) return { reason: `is more than the ${max} bytes a package file may have` };
    return { text: buf.subarray(0, n).toString('utf8') };
  } catch (err) {
    return { reason: ioReason(err, 'cannot be read') };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The names in a directory found by `entryAt`, sorted; the reason when it cannot be listed. Never throws. */
export function listDir(e: Extract<Entry, { kind: 'dir' }>): { names: string[] } | { reason: string } {
  try {
    return { names: readdirSync(e.real).sort() };
  } catch (err) {
    return { reason: ioReason(err, 'cannot be listed') };
  }
}

/** Why an entry that should be a regular file is not one. */
export function notFile(e: Exclude<Entry, { kind: 'file' }>): string {
  if (e.kind === 'dir') return 'must be a regular file, not a directory';
  if (e.kind === 'missing') return 'missing';
  return e.reason;
}

/** Entries one walked directory (a case's `assets/`, a service's files) may hold; past it, it is refused. */
export const MAX_TREE_ENTRIES = 100_000;

/**
 * Every entry under directory `shown` (real path `real`) that is not a regular file or directory inside it, each
 * real directory walked once so a link back up cannot loop it; empty when the tree may be used. Never throws.
 */
export function treeRefusals(shown: string, real: string, rootName: string): { path: string; reason: string }[] {
  const out: { path: string; reason: string }[] = [];
  const seen = new Set<string>([real]);
  const todo: { shown: string; e: Extract<Entry, { kind: 'dir' }> }[] = [{ shown, e: { kind: 'dir', real } }];
  let entries = 0;
  while (todo.length > 0) {
    const d = todo.pop()!;
    const listed = listDir(d.e);
    if ('reason' in listed) {
      out.push({ path: d.shown, reason: listed.reason });
      continue;
    }
    for (const name of listed.names) {
      if (++entries > MAX_TREE_ENTRIES) {
        out.push({ path: shown, reason: `holds more than ${MAX_TREE_ENTRIES} entries` });
        return out;
      }
      const child = path.join(d.shown, name);
      const c = entryAt(real, child, rootName);
      if (c.kind === 'refused') out.push({ path: child, reason: c.reason });
      else if (c.kind === 'dir' && !seen.has(c.real)) {
        seen.add(c.real);
        todo.push({ shown: child, e: c });
      }
    }
  }
  return out;
}

/** `→ <target>` when `abs` is a symbolic link (a dangling one, here), else null. */
function linkTarget(abs: string): string | null {
  try {
    if (!lstatSync(abs).isSymbolicLink()) return null;
    return `→ ${path.resolve(path.dirname(abs), readlinkSync(abs))}`;
  } catch {
    return null;
  }
}

function special(st: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}) {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** An I/O error as a reason a reader understands; the code is kept for the rest. */
export function ioReason(err: unknown, fallback: string): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ELOOP':
      return 'is a loop of symbolic links';
    case 'ENOTDIR':
      return 'is below something that is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read: permission denied';
    case 'ENAMETOOLONG':
      return 'has a path too long to open';
    case 'EISDIR':
      return 'is a directory, not a file';
    default:
      return code ? `${fallback} (${code})` : `${fallback}: ${(err as Error)?.message ?? String(err)}`;
  }
}
