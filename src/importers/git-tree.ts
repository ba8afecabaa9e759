import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Git's tree hash of a directory, computed from its files as `git write-tree` would record them (blob and tree
 * objects, SHA-1): the pin an AgentSWE editing task gives its product (`upstream.git_tree`) can then be checked on a
 * plain checkout, without git. `.git` is left out; empty directories, as in git, contribute nothing.
 */

/** One entry of a tree: a file (its mode and bytes) or a subtree. */
export type TreeEntry =
  | { name: string; kind: 'file'; mode: '100644' | '100755' | '120000'; bytes: Buffer }
  | { name: string; kind: 'tree'; entries: TreeEntry[] };

const sha1 = (b: Buffer) => createHash('sha1').update(b).digest();

/** The object id of a blob with these bytes. */
export function blobId(bytes: Buffer): Buffer {
  return sha1(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]));
}

// Git orders tree entries by name, with a subtree compared as if its name ended in '/'.
const sortKey = (e: TreeEntry) => Buffer.from(e.kind === 'tree' ? `${e.name}/` : e.name);

/** The object id of a tree (null for a tree with no file anywhere below it, which git does not record). Pure. */
export function treeId(entries: TreeEntry[]): Buffer | null {
  const parts: Buffer[] = [];
  for (const e of [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)))) {
    const id = e.kind === 'file' ? blobId(e.bytes) : treeId(e.entries);
    if (!id) continue;
    parts.push(Buffer.from(`${e.kind === 'file' ? e.mode : '40000'} ${e.name}\0`), id);
  }
  if (parts.length === 0) return null;
  const body = Buffer.concat(parts);
  return sha1(Buffer.concat([Buffer.from(`tree ${body.length}\0`), body]));
}

/** Reads a directory into tree entries (`keep` filters relative paths; `.git` is never read). */
export function readTree(dir: string, keep: (rel: string) => boolean = () => true, prefix = ''): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (const name of readdirSync(dir)) {
    if (name === '.git') continue;
    const abs = path.join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    const st = lstatSync(abs);
    if (st.isDirectory()) out.push({ name, kind: 'tree', entries: readTree(abs, keep, rel) });
    else if (!keep(rel)) continue;
    else if (st.isSymbolicLink())
      out.push({ name, kind: 'file', mode: '120000', bytes: Buffer.from(readlinkSync(abs)) });
    else if (st.isFile())
      out.push({ name, kind: 'file', mode: st.mode & 0o111 ? '100755' : '100644', bytes: readFileSync(abs) });
  }
  return out;
}

/** Git's tree hash (40 hex digits) of a directory's files. */
export function gitTreeHash(dir: string, keep?: (rel: string) => boolean): string {
  return (treeId(readTree(dir, keep)) ?? sha1(Buffer.from('tree 0\0'))).toString('hex');
}
