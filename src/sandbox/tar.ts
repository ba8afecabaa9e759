/**
 * A minimal streaming tar (ustar + PAX long names) writer: enough to hand `docker import` a root filesystem without
 * assembling it on disk first. Entries are produced lazily; file bodies are streamed from their host paths.
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

export type TarEntry =
  | { type: 'dir'; path: string; mode: number; mtime?: number }
  | { type: 'file'; path: string; mode: number; mtime?: number; source: string; size: number }
  | { type: 'content'; path: string; mode: number; mtime?: number; content: Buffer }
  | { type: 'symlink'; path: string; target: string; mtime?: number };

const BLOCK = 512;

function octal(value: number, width: number): string {
  // width includes the terminating NUL
  return value.toString(8).padStart(width - 1, '0');
}

function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return Buffer.from(`${len}${body}`);
}

function header(
  name: string,
  opts: { mode: number; size: number; mtime: number; typeflag: string; linkname?: string; uid?: number; gid?: number },
): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(name, 0, 100, 'utf8');
  b.write(octal(opts.mode & 0o7777, 8), 100, 8, 'ascii');
  b.write(octal(opts.uid ?? 0, 8), 108, 8, 'ascii');
  b.write(octal(opts.gid ?? 0, 8), 116, 8, 'ascii');
  b.write(octal(opts.size, 12), 124, 12, 'ascii');
  b.write(octal(Math.floor(opts.mtime), 12), 136, 12, 'ascii');
  b.fill(' ', 148, 156); // checksum placeholder
  b.write(opts.typeflag, 156, 1, 'ascii');
  if (opts.linkname) b.write(opts.linkname, 157, 100, 'utf8');
  b.write('ustar\0', 257, 6, 'ascii');
  b.write('00', 263, 2, 'ascii');
  b.write('root', 265, 32, 'ascii');
  b.write('root', 297, 32, 'ascii');
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += b[i];
  b.write(`${octal(sum, 7)}\0 `, 148, 8, 'ascii');
  return b;
}

function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return rest === 0 ? Buffer.alloc(0) : Buffer.alloc(BLOCK - rest);
}

/** Headers for one entry; long names and link targets go into a PAX extended header before it. */
function headersFor(
  path: string,
  opts: { mode: number; size: number; mtime: number; typeflag: string; linkname?: string },
): Buffer[] {
  const out: Buffer[] = [];
  const records: Buffer[] = [];
  let name = path;
  let linkname = opts.linkname;
  if (Buffer.byteLength(path) > 99) {
    records.push(paxRecord('path', path));
    name = path.slice(0, 99);
  }
  if (linkname && Buffer.byteLength(linkname) > 99) {
    records.push(paxRecord('linkpath', linkname));
    linkname = linkname.slice(0, 99);
  }
  if (records.length > 0) {
    const body = Buffer.concat(records);
    out.push(
      header('PaxHeader', { mode: 0o644, size: body.length, mtime: opts.mtime, typeflag: 'x' }),
      body,
      padding(body.length),
    );
  }
  out.push(header(name, { ...opts, linkname }));
  return out;
}

async function* generate(entries: Iterable<TarEntry>): AsyncGenerator<Buffer> {
  for (const e of entries) {
    const mtime = e.mtime ?? 0;
    if (e.type === 'dir') {
      const p = e.path.endsWith('/') ? e.path : `${e.path}/`;
      yield* headersFor(p, { mode: e.mode, size: 0, mtime, typeflag: '5' });
    } else if (e.type === 'symlink') {
      yield* headersFor(e.path, { mode: 0o777, size: 0, mtime, typeflag: '2', linkname: e.target });
    } else if (e.type === 'content') {
      yield* headersFor(e.path, { mode: e.mode, size: e.content.length, mtime, typeflag: '0' });
      yield e.content;
      yield padding(e.content.length);
    } else {
      yield* headersFor(e.path, { mode: e.mode, size: e.size, mtime, typeflag: '0' });
      let seen = 0;
      for await (const chunk of createReadStream(e.source, { highWaterMark: 1 << 20 })) {
        const b = chunk as Buffer;
        if (seen + b.length > e.size) throw new Error(`tar: ${e.source} grew while being archived`);
        seen += b.length;
        yield b;
      }
      if (seen !== e.size) throw new Error(`tar: ${e.source} shrank while being archived`);
      yield padding(e.size);
    }
  }
  yield Buffer.alloc(BLOCK * 2);
}

/** A readable tar stream of `entries` (paths relative, no leading slash). */
export function tarStream(entries: Iterable<TarEntry>): Readable {
  return Readable.from(generate(entries), { objectMode: false });
}
