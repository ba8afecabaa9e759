/**
 * Remote engines (DESIGN §7 scale-out, issue 13): where an engine is, the clear error when it stops answering, and
 * moving a case's files through the engine API instead of host bind mounts (which name paths on the wrong machine
 * when the engine is remote): named volumes populated with `putArchive` through a never-started helper container,
 * outputs read back with `getArchive` after the sandbox exits.
 */
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { dirname, join, posix, sep } from 'node:path';
import type Docker from 'dockerode';
import { statusOf } from './engine.js';
import { RUN_LABEL, registerCleanup, trackContainer, untrackContainer } from './run-registry.js';
import { type TarEntry, tarStream } from './tar.js';

/** The Unix socket path a client uses, or null for tcp/ssh (docker-modem defers the default path to a function). */
export function engineSocketPath(docker: Docker): string | null {
  const m = docker.modem as unknown as { socketPath?: unknown; socketPathCache?: unknown };
  if (typeof m.socketPath === 'string') return m.socketPath;
  if (typeof m.socketPath === 'function')
    return typeof m.socketPathCache === 'string' ? m.socketPathCache : '/var/run/docker.sock';
  return null;
}

/** Human name of the engine a client talks to, e.g. `unix:///var/run/docker.sock` or `tcp://10.0.0.5:2376`. */
export function engineWhere(docker: Docker): string {
  const socket = engineSocketPath(docker);
  if (socket) return `unix://${socket}`;
  const m = docker.modem as unknown as { host?: string; port?: string; protocol?: string };
  const scheme = m.protocol === 'ssh' ? 'ssh' : m.protocol === 'https' ? 'tcp+tls' : 'tcp';
  return `${scheme}://${m.host ?? 'localhost'}${m.port ? `:${m.port}` : ''}`;
}

/**
 * True when the engine runs on this machine (a Unix socket), so host paths mean the same thing to it; false for
 * tcp/ssh engines, whose bind mounts would name paths on another machine.
 */
export function isLocalEngine(docker: Docker): boolean {
  return engineSocketPath(docker) !== null;
}

const GONE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);

/** True when `err` says the engine itself did not answer (connection refused, reset, socket gone), not an API error. */
export function isEngineGone(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  if (err instanceof EngineGoneError) return true;
  if (statusOf(err) !== undefined) return false;
  const e = err as { code?: string; message?: string };
  if (e.code && GONE_CODES.has(e.code)) return true;
  return /socket hang up|ECONNREFUSED|ECONNRESET|connect ENOENT|EPIPE|aborted|premature close/i.test(e.message ?? '');
}

/** The engine stopped answering in the middle of a run; the session records the case as an infra-error. */
export class EngineGoneError extends Error {
  constructor(
    readonly where: string,
    cause: unknown,
  ) {
    super(
      `the docker engine at ${where} stopped answering (${(cause as Error)?.message ?? String(cause)}); ` +
        'the case was not graded — rerun with --resume once the engine is back',
      { cause },
    );
    this.name = 'EngineGoneError';
  }
}

/** Rethrows `err` as an EngineGoneError when it is a lost engine, else unchanged. */
export function asEngineError(err: unknown, docker: Docker): unknown {
  if (err instanceof EngineGoneError || !isEngineGone(err)) return err;
  return new EngineGoneError(engineWhere(docker), err);
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

interface TarHeader {
  name: string;
  type: string;
  size: number;
  mode: number;
  linkname: string;
}

function parseOctal(b: Buffer, start: number, len: number): number {
  const s = b
    .subarray(start, start + len)
    .toString('ascii')
    .replace(/\0.*$/s, '')
    .trim();
  return s ? Number.parseInt(s, 8) : 0;
}

function cstring(b: Buffer, start: number, len: number): string {
  const raw = b.subarray(start, start + len);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? len : end).toString('utf8');
}

function parsePax(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < body.length) {
    const sp = body.indexOf(0x20, i);
    if (sp === -1) break;
    const len = Number.parseInt(body.subarray(i, sp).toString('ascii'), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const rec = body.subarray(sp + 1, i + len - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
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
  await mkdir(into, { recursive: true });
  const links = new Set<string>();
  const written: string[] = [];
  let buf = Buffer.alloc(0);
  let header: TarHeader | null = null;
  let file: import('node:fs').WriteStream | null = null;
  let remaining = 0;
  let padding = 0;
  let pax: Record<string, string> = {};
  let longName: string | null = null;
  let meta: Buffer[] | null = null;

  const target = (rel: string) => {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (links.has(parts.slice(0, i).join('/')))
        throw new Error(`archive member ${rel} goes through a symlink of the same archive`);
    }
    return join(into, ...parts);
  };

  const begin = async (h: TarHeader) => {
    if (h.type === 'x' || h.type === 'g' || h.type === 'L' || h.type === 'K') {
      meta = [];
      return;
    }
    const name = pax.path ?? longName ?? h.name;
    const linkname = pax.linkpath ?? h.linkname;
    pax = {};
    longName = null;
    const rel = safeMemberPath(name, strip);
    if (rel === null) return;
    const abs = target(rel);
    if (!abs.startsWith(into + sep) && abs !== into) throw new Error(`archive member escapes: ${name}`);
    if (h.type === '5') {
      await mkdir(abs, { recursive: true });
    } else if (h.type === '2') {
      await mkdir(dirname(abs), { recursive: true });
      await symlink(linkname, abs);
      links.add(rel);
      written.push(rel);
    } else if (h.type === '0' || h.type === '\0' || h.type === '' || h.type === '7') {
      await mkdir(dirname(abs), { recursive: true });
      file = createWriteStream(abs, { flags: 'wx', mode: h.mode & 0o777 ? (h.mode & 0o111 ? 0o755 : 0o644) : 0o644 });
      written.push(rel);
    }
    // hard links, devices, fifos: not outputs; skipped
  };

  const endEntry = async (h: TarHeader) => {
    if (meta) {
      const body = Buffer.concat(meta);
      meta = null;
      if (h.type === 'x') pax = { ...pax, ...parsePax(body) };
      else if (h.type === 'L') longName = body.toString('utf8').replace(/\0+$/, '');
    }
    if (file) {
      const f = file;
      file = null;
      await new Promise<void>((resolve, reject) => f.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }
  };

  const writeChunk = async (chunk: Buffer) => {
    if (meta) meta.push(Buffer.from(chunk));
    else if (file) {
      const f = file;
      if (!f.write(chunk)) await new Promise<void>((r) => f.once('drain', () => r()));
    }
  };

  let ended = false;
  for await (const raw of stream as AsyncIterable<Buffer>) {
    if (ended) continue;
    buf = buf.length ? Buffer.concat([buf, raw]) : Buffer.from(raw);
    while (buf.length > 0 && !ended) {
      if (header) {
        if (remaining > 0) {
          const take = Math.min(remaining, buf.length);
          await writeChunk(buf.subarray(0, take));
          buf = buf.subarray(take);
          remaining -= take;
          if (remaining > 0) break;
        }
        if (padding > 0) {
          const take = Math.min(padding, buf.length);
          buf = buf.subarray(take);
          padding -= take;
          if (padding > 0) break;
        }
        await endEntry(header);
        header = null;
        continue;
      }
      if (buf.length < 512) break;
      const block = buf.subarray(0, 512);
      buf = buf.subarray(512);
      if (block.every((x) => x === 0)) {
        ended = true;
        break;
      }
      const prefix = cstring(block, 345, 155);
      const base = cstring(block, 0, 100);
      const h: TarHeader = {
        name: prefix && block.toString('ascii', 257, 262) === 'ustar' ? `${prefix}/${base}` : base,
        type: String.fromCharCode(block[156]!),
        size: parseOctal(block, 124, 12),
        mode: parseOctal(block, 100, 8),
        linkname: cstring(block, 157, 100),
      };
      if (h.type === '\0') h.type = '0';
      header = h;
      remaining = h.type === '5' || h.type === '2' || h.type === '1' ? 0 : h.size;
      padding = remaining % 512 === 0 ? 0 : 512 - (remaining % 512);
      if (h.type !== '0' && h.type !== '7' && h.type !== 'x' && h.type !== 'g' && h.type !== 'L' && h.type !== 'K') {
        // a body we do not keep (devices have none; hard links none)
        remaining = h.type === '5' || h.type === '2' || h.type === '1' ? 0 : h.size;
      }
      await begin(h);
      if (remaining === 0 && padding === 0) {
        await endEntry(h);
        header = null;
      }
    }
  }
  if (header) await endEntry(header);
  return written.sort();
}

/** One named volume of an archive-staged sandbox. */
export interface StagedVolume {
  /** Path inside the sandbox. */
  target: string;
  readOnly: boolean;
  /** Content put into the volume before the sandbox starts (relative paths); [] for an empty writable volume. */
  entries: TarEntry[];
}

/** Volumes created and filled for one sandbox; `mounts` go into its HostConfig (or a Swarm ContainerSpec). */
export interface ArchiveStage {
  mounts: Docker.MountSettings[];
  /** Copies the volume mounted at `target` into a host directory (after the sandbox exits). */
  collect(target: string, into: string): Promise<string[]>;
  /** Removes the helper container and every volume; never rejects. */
  remove(): Promise<void>;
}

async function removeVolumeOnceFree(docker: Docker, name: string): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      await docker.getVolume(name).remove({ force: true } as object);
      return;
    } catch (err) {
      if (statusOf(err) !== 409) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Creates one labelled named volume per entry of `volumes` on `docker`'s engine and fills it through a helper
 * container that mounts them all writable; the helper runs only `chmod 0777` on the writable mount points (after the
 * files are in, never the delivery's code). Needs `chmod` in the image (the runtime image has it).
 * Works the same on a local or a remote engine: only the engine API carries bytes.
 */
export async function stageThroughArchive(
  docker: Docker,
  opts: { name: string; image: string; labels: Record<string, string>; volumes: StagedVolume[] },
): Promise<ArchiveStage> {
  const names: string[] = [];
  let helper: Docker.Container | null = null;
  let unregister = () => {};
  const remove = async () => {
    unregister();
    if (helper) {
      await helper.remove({ force: true }).catch(() => {});
      untrackContainer(helper.id);
    }
    for (const n of names)
      await docker
        .getVolume(n)
        .remove({ force: true } as object)
        .catch(() => {});
  };
  // SIGINT: the volumes go with the run's containers (the helper is tracked like them). Those are removed at the
  // same time, and an engine refuses (409) a volume a container still uses: retry until they are gone.
  unregister = registerCleanup(async () => {
    for (const n of names) await removeVolumeOnceFree(docker, n);
  });
  try {
    const vols = opts.volumes.map((v, i) => ({ ...v, volume: `${opts.name}-v${i}` }));
    for (const v of vols) {
      await docker.createVolume({ Name: v.volume, Labels: opts.labels });
      names.push(v.volume);
    }
    const writableTargets = vols.filter((v) => !v.readOnly).map((v) => v.target);
    helper = await docker.createContainer({
      Image: opts.image,
      Cmd: ['chmod', '0777', ...writableTargets],
      Entrypoint: [],
      User: '0:0',
      Labels: opts.labels,
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: 'none',
        Mounts: vols.map((v) => ({ Type: 'volume' as const, Source: v.volume, Target: v.target, ReadOnly: false })),
      },
    });
    trackContainer(helper.id, docker, opts.labels[RUN_LABEL] ?? 'unknown');
    for (const v of vols) {
      if (v.entries.length > 0) await helper.putArchive(tarStream(v.entries) as unknown as string, { path: v.target });
    }
    const writable = vols.filter((v) => !v.readOnly).map((v) => v.target);
    if (writable.length > 0) {
      // A fresh volume's root is root-owned 0755 and an archive cannot change the mount point itself: one short run
      // of the helper (root, no network, our command only) opens it to the sandbox user.
      await helper.start();
      const done = (await helper.wait()) as { StatusCode: number };
      if (done.StatusCode !== 0)
        throw new Error(
          `sandbox: could not open the output volume to the sandbox user (chmod exit ${done.StatusCode})`,
        );
    }
    const h = helper;
    return {
      mounts: vols.map((v) => ({ Type: 'volume', Source: v.volume, Target: v.target, ReadOnly: v.readOnly })),
      async collect(target, into) {
        const stream = (await h.getArchive({ path: target })) as NodeJS.ReadableStream;
        return extractTar(stream, into, 1);
      },
      remove,
    };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** Tar entries for a case: input.md and assets/ only (nothing else of the case directory). */
export async function caseEntries(inputPath: string, assetsDir: string | null): Promise<TarEntry[]> {
  const s = await lstat(inputPath);
  const entries: TarEntry[] = [{ type: 'file', path: 'input.md', mode: 0o644, source: inputPath, size: s.size }];
  if (assetsDir) {
    entries.push({ type: 'dir', path: 'assets', mode: 0o755 });
    for (const e of await dirEntries(assetsDir)) entries.push({ ...e, path: posix.join('assets', e.path) });
  }
  return entries;
}
