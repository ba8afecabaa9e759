/**
 * Content digest of a delivery tree (DESIGN §6): sha256 over the sorted relative paths, file modes, sizes and bytes,
 * and symlink targets.
 *
 * Exact byte layout fed to sha256 (so another implementation can reproduce a digest):
 *
 *   the string "heldout-tree-v1\n", then for every entry, in ascending byte order of its UTF-8 relative path
 *   (POSIX separators, no leading "./"):
 *
 *     regular file:  "F" 0x00 <path> 0x00 <mode> 0x00 <size> 0x00 <size bytes of content>
 *     symlink:       "L" 0x00 <path> 0x00 <target as read by readlink, verbatim> 0x00
 *     other (fifo, socket, device):
 *                    "O" 0x00 <path> 0x00 <mode> 0x00
 *
 *   where <mode> is `st_mode & 0o7777` in octal with no leading zeros ("644", "755", "4755") and <size> is the byte
 *   count in decimal. The digest is "sha256:" + lower-case hex.
 *
 * Decisions (not fixed by the design, written down here):
 * - Directories are not entries of their own (as in git): an empty directory does not change the digest, and
 *   directory modes are ignored; every file's full path is hashed, so a rename always changes it.
 * - Excluded by default: a top-level `.git` directory (git rewrites its index on `git status`, which would make a
 *   frozen checkout look tampered with). `exclude` entries are relative paths; an entry excludes that path and
 *   everything below it. The exclusion list used is recorded in freeze.json, and verification uses the same list.
 * - Symlinks are never followed: the target string is hashed, the target's content is not.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

export const DEFAULT_EXCLUDE: readonly string[] = ['.git'];

export interface TreeOptions {
  /** Relative paths (POSIX) excluded with everything below them. Default: [".git"]. */
  exclude?: readonly string[];
}

export type TreeEntry =
  | { path: string; type: 'file'; mode: number; size: number; sha256: string }
  | { path: string; type: 'symlink'; target: string }
  | { path: string; type: 'other'; mode: number };

export interface TreeScan {
  digest: string;
  entries: TreeEntry[];
}

const HEADER = Buffer.from('heldout-tree-v1\n');
const NUL = Buffer.from([0]);

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function excluded(rel: string, exclude: readonly string[]): boolean {
  for (const e of exclude) {
    const x = e.replace(/^\.\//, '').replace(/\/+$/, '');
    if (rel === x || rel.startsWith(`${x}/`)) return true;
  }
  return false;
}

async function listPaths(root: string, exclude: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  async function walk(rel: string): Promise<void> {
    const dirents = await readdir(rel ? join(root, rel) : root, { withFileTypes: true });
    for (const d of dirents) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (excluded(r, exclude)) continue;
      if (d.isDirectory()) await walk(r);
      else out.push(r);
    }
  }
  await walk('');
  return out.sort(compareBytes);
}

async function hashFile(path: string, tree: ReturnType<typeof createHash>, expectedSize: number): Promise<string> {
  const own = createHash('sha256');
  let seen = 0;
  for await (const chunk of createReadStream(path)) {
    const b = chunk as Buffer;
    seen += b.length;
    if (seen > expectedSize) break;
    tree.update(b);
    own.update(b);
  }
  if (seen !== expectedSize) throw new Error(`treeDigest: ${path} changed size while being read`);
  return `sha256:${own.digest('hex')}`;
}

/** Walks `dir` once and returns the tree digest together with the per-entry listing freeze.json records. */
export async function scanTree(dir: string, options: TreeOptions = {}): Promise<TreeScan> {
  const exclude = options.exclude ?? DEFAULT_EXCLUDE;
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new Error(`treeDigest: ${dir} is not a directory`);
  const paths = await listPaths(dir, exclude);
  const tree = createHash('sha256');
  tree.update(HEADER);
  const entries: TreeEntry[] = [];
  for (const rel of paths) {
    const abs = join(dir, rel);
    const s = await lstat(abs);
    const mode = s.mode & 0o7777;
    if (s.isSymbolicLink()) {
      const target = await readlink(abs);
      tree.update(Buffer.concat([Buffer.from('L'), NUL, Buffer.from(rel), NUL, Buffer.from(target), NUL]));
      entries.push({ path: rel, type: 'symlink', target });
    } else if (s.isFile()) {
      tree.update(
        Buffer.concat([
          Buffer.from('F'),
          NUL,
          Buffer.from(rel),
          NUL,
          Buffer.from(mode.toString(8)),
          NUL,
          Buffer.from(String(s.size)),
          NUL,
        ]),
      );
      const sha256 = await hashFile(abs, tree, s.size);
      entries.push({ path: rel, type: 'file', mode, size: s.size, sha256 });
    } else {
      tree.update(Buffer.concat([Buffer.from('O'), NUL, Buffer.from(rel), NUL, Buffer.from(mode.toString(8)), NUL]));
      entries.push({ path: rel, type: 'other', mode });
    }
  }
  return { digest: `sha256:${tree.digest('hex')}`, entries };
}

/** The delivery's content digest, `"sha256:…"` (layout above). */
export async function treeDigest(dir: string, options: TreeOptions = {}): Promise<string> {
  return (await scanTree(dir, options)).digest;
}
