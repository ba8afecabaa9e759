/**
 * Tar in and out of sandboxes, over `tar-stream`: `tarStream` packs entries lazily, file bodies streamed from their
 * host paths (a root filesystem for `docker import`, a case for `putArchive`, never assembled on disk);
 * `extractTar` unpacks what `getArchive` sends back from a sandbox, which is untrusted.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { describeExcess, type OutputLimits } from './output-limits.js';

/** One archive member: relative path, mode and mtime (seconds); a file's body is read from `source` as it is packed. */
export type TarEntry =
  | { type: 'dir'; path: string; mode: number; mtime?: number }
  | { type: 'file'; path: string; mode: number; mtime?: number; source: string; size: number }
  | { type: 'content'; path: string; mode: number; mtime?: number; content: Buffer }
  | { type: 'symlink'; path: string; target: string; mtime?: number };

/** One entry into the pack; resolves once the pack has taken it (its body too). */
function add(pack: tar.Pack, header: tar.Headers, body?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (body) pack.entry(header, body, done);
    else pack.entry(header, done);
  });
}

/** A file body, streamed; a file that grows or shrinks while it is read fails the archive (its header said a size). */
async function addFile(pack: tar.Pack, header: tar.Headers, source: string, size: number): Promise<void> {
  let settle: (err?: Error | null) => void = () => {};
  const taken = new Promise<void>((resolve, reject) => {
    settle = (err) => (err ? reject(err) : resolve());
  });
  taken.catch(() => {}); // a failed read below is the error that counts
  const sink = pack.entry({ ...header, size }, settle);
  let seen = 0;
  for await (const chunk of createReadStream(source, { highWaterMark: 1 << 20 })) {
    const b = chunk as Buffer;
    if (seen + b.length > size) throw new Error(`tar: ${source} grew while being archived`);
    seen += b.length;
    if (!sink.write(b)) await once(sink, 'drain');
  }
  if (seen !== size) throw new Error(`tar: ${source} shrank while being archived`);
  sink.end();
  await taken;
}

function addEntry(pack: tar.Pack, e: TarEntry): Promise<void> {
  const header = { name: e.path, mtime: new Date((e.mtime ?? 0) * 1000), uid: 0, gid: 0, uname: 'root', gname: 'root' };
  if (e.type === 'dir') {
    return add(pack, {
      ...header,
      name: e.path.endsWith('/') ? e.path : `${e.path}/`,
      type: 'directory',
      mode: e.mode,
    });
  }
  if (e.type === 'symlink') return add(pack, { ...header, type: 'symlink', linkname: e.target, mode: 0o777 });
  if (e.type === 'content') return add(pack, { ...header, type: 'file', mode: e.mode }, e.content);
  return addFile(pack, { ...header, type: 'file', mode: e.mode }, e.source, e.size);
}

/** A readable tar stream of `entries` (paths relative, no leading slash); a read error fails the stream. */
export function tarStream(entries: Iterable<TarEntry>): Readable {
  const pack = tar.pack();
  void (async () => {
    for (const e of entries) await addEntry(pack, e);
    pack.finalize();
  })().catch((err: Error) => pack.destroy(err));
  return pack;
}

/**
 * Tar entries of a host directory (relative paths), readable by any user inside the sandbox whatever the host modes
 * say (the sandbox user is not the host's). Symlinks are kept as links, never followed.
 */
export async function dirEntries(dir: string): Promise<TarEntry[]> {
  const out: TarEntry[] = [];
  async function walk(rel: string): Promise<void> {
    const names = (await readdir(rel ? join(dir, rel) : dir)).sort();
    for (const name of names) {
      const r = rel ? `${rel}/${name}` : name;
      const abs = join(dir, r);
      const s = await lstat(abs);
      const mtime = Math.floor(s.mtimeMs / 1000);
      if (s.isSymbolicLink()) out.push({ type: 'symlink', path: r, target: await readlink(abs), mtime });
      else if (s.isDirectory()) {
        out.push({ type: 'dir', path: r, mode: 0o755, mtime });
        await walk(r);
      } else if (s.isFile())
        out.push({ type: 'file', path: r, mode: s.mode & 0o111 ? 0o755 : 0o644, mtime, source: abs, size: s.size });
    }
  }
  await walk('');
  return out;
}

/**
 * Safe relative path for an archive member after dropping `strip` leading components, or null for the root itself.
 * Throws on absolute paths and `..` (an archive from a sandbox is untrusted).
 */
export function safeMemberPath(name: string, strip: number): string | null {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (name.startsWith('/') || parts.includes('..')) throw new Error(`archive member escapes: ${JSON.stringify(name)}`);
  const rest = parts.slice(strip);
  return rest.length === 0 ? null : rest.join('/');
}

/**
 * Extracts a tar stream (ustar, PAX and GNU long names: what `getArchive` sends) into `into`, dropping `strip` leading
 * path components. Files, directories and symlinks only; never writes through a symlink it created, never outside
 * `into`. Resolves with the relative paths written.
 */
export async function extractTar(stream: NodeJS.ReadableStream, into: string, strip = 0): Promise<string[]> {
  return (await unpackTar(stream, into, strip, null)).written;
}

/**
 * `extractTar` within output limits counted over the members (a member's depth is its path's segments): members are
 * written in archive order while they fit; the first that does not ends the extraction and the stream (so a flood
 * is never read to its end). Resolves with why it stopped, or null when everything fit.
 */
export async function extractTarBounded(
  stream: NodeJS.ReadableStream,
  into: string,
  limits: OutputLimits,
): Promise<string | null> {
  return (await unpackTar(stream, into, 0, limits)).over;
}

async function unpackTar(
  stream: NodeJS.ReadableStream,
  into: string,
  strip: number,
  limits: OutputLimits | null,
): Promise<{ written: string[]; over: string | null }> {
  await mkdir(into, { recursive: true });
  const links = new Set<string>();
  const written: string[] = [];
  const used = { bytes: 0, entries: 0 };
  let over: string | null = null;

  /** Why `rel` (of `size` bytes) does not fit, or null; counts it when it does. */
  const admit = (parts: string[], size: number): string | null => {
    if (!limits) return null;
    if (parts.length > limits.depth) return describeExcess(limits, 'depth');
    if (used.entries + 1 > limits.entries) return describeExcess(limits, 'entries');
    if (used.bytes + size > limits.bytes) return describeExcess(limits, 'bytes');
    used.entries++;
    used.bytes += size;
    return null;
  };

  const unpack = async (h: tar.Headers, body: Readable): Promise<boolean> => {
    const rel = safeMemberPath(h.name, strip);
    const parts = rel?.split('/') ?? [];
    for (let i = 1; i < parts.length; i++) {
      if (links.has(parts.slice(0, i).join('/')))
        throw new Error(`archive member ${rel} goes through a symlink of the same archive`);
    }
    const abs = join(into, ...parts);
    if (rel !== null && !abs.startsWith(into + sep) && abs !== into)
      throw new Error(`archive member escapes: ${h.name}`);
    const kept = h.type === 'directory' || h.type === 'symlink' || h.type === 'file' || h.type === 'contiguous-file';
    if (rel !== null && kept) {
      over = admit(parts, h.type === 'directory' || h.type === 'symlink' ? 0 : (h.size ?? 0));
      if (over) return false;
    }
    if (rel !== null && h.type === 'directory') {
      await mkdir(abs, { recursive: true });
    } else if (rel !== null && h.type === 'symlink') {
      await mkdir(dirname(abs), { recursive: true });
      await symlink(h.linkname ?? '', abs);
      links.add(rel);
      written.push(rel);
    } else if (rel !== null && (h.type === 'file' || h.type === 'contiguous-file')) {
      await mkdir(dirname(abs), { recursive: true });
      const mode = h.mode ?? 0;
      await pipeline(body, createWriteStream(abs, { flags: 'wx', mode: mode & 0o111 ? 0o755 : 0o644 }));
      written.push(rel);
      return true;
    }
    // hard links, devices, fifos: not outputs; their bodies (if any) are skipped
    body.resume();
    await finished(body);
    return true;
  };

  const extract = tar.extract();
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    let last = Promise.resolve();
    const end = (err?: unknown) => {
      if (failed) return;
      failed = true;
      (stream as Partial<Readable>).destroy?.();
      extract.destroy();
      if (err) reject(err);
      else resolve();
    };
    extract.on('entry', (header: tar.Headers, body: Readable, next: () => void) => {
      last = unpack(header, body).then((more) => (more ? next() : end()), end);
    });
    extract.on('finish', () => void last.then(() => !failed && resolve()));
    extract.on('error', (err) => end(err));
    stream.on('error', (err) => end(err));
    stream.pipe(extract);
  });
  return { written: written.sort(), over };
}
