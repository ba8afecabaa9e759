/**
 * The default runtime image, made without any registry (DESIGN §7, §16): a root filesystem assembled from the
 * host's `node`, a python3 with its standard library, `sh` and core utilities (plus `git` when present), every shared
 * library `ldd` lists for them and for python's extension modules, `/etc/passwd` with the non-root user, streamed as
 * a tar straight into `docker import` (no copy on disk). It takes a few seconds.
 *
 * Layout inside the image (usr-merged: /bin, /sbin, /lib, /lib64 are links into /usr):
 *   /usr/bin/node, /usr/bin/pythonX.Y (+ python3, python links), /usr/lib/pythonX.Y/ (stdlib, lib-dynload/),
 *   /usr/bin/{sh,cat,ls,env,…}, libraries at the paths ldd names, /etc/{passwd,group}, /tmp, /delivery, /case, /out.
 *
 * The image carries the label `heldout.recipe=<sha256 of the recipe>`: the recipe is the list of entries with each
 * source's path, size, mode and mtime (and inline contents), so a new host node/python or a changed recipe rebuilds
 * on the next `ensureRuntimeImage()`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { followProgress, getDocker, statusOf } from './engine.js';
import { type TarEntry, tarStream } from './tar.js';

const execFileP = promisify(execFile);

export const RUNTIME_IMAGE = 'heldout/runtime:1';
/** Bump when the recipe's logic changes (the content hash covers sources, this covers code). */
const RECIPE_VERSION = '1';
/** The non-root user the sandbox runs as. */
export const SANDBOX_UID = 65534;

const REQUIRED_TOOLS = ['sh', 'cat', 'ls', 'env', 'mkdir', 'cp', 'rm', 'sleep', 'head'];
const OPTIONAL_TOOLS = [
  'tail',
  'wc',
  'mv',
  'chmod',
  'touch',
  'grep',
  'sed',
  'awk',
  'true',
  'false',
  'test',
  '[',
  'dirname',
  'basename',
  'tee',
  'sort',
  'uniq',
  'cut',
  'tr',
  'find',
  'xargs',
  'date',
  'id',
  'pwd',
  'ln',
  'stat',
  'uname',
  'printf',
  'echo',
  'readlink',
  'realpath',
  'mktemp',
  'cmp',
  'diff',
  'patch',
  'sha256sum',
  'md5sum',
  'timeout',
  'expr',
  'seq',
  'nproc',
  'tar',
  'gzip',
  'gunzip',
  'base64',
  'ps',
  'kill',
  'du',
  'df',
  'git',
];
const TOOL_DIRS = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'];

/** Standard-library parts left out (DESIGN §16: minus test/; also GUI and installer parts). */
const STDLIB_SKIP_TOP = new Set([
  'test',
  'idlelib',
  'tkinter',
  'turtledemo',
  'ensurepip',
  'site-packages',
  'dist-packages',
]);
const DYNLOAD_SKIP = /^(_test|xxlimited|_xxtestfuzz|_ctypes_test|_tkinter|xxsubtype)/;

export interface PythonInfo {
  exe: string;
  version: string;
  stdlib: string;
  dynload: string;
}

export interface RuntimeRecipe {
  hash: string;
  entries: TarEntry[];
  node: string;
  python: PythonInfo | null;
  tools: string[];
  /** Libraries ldd could not resolve (a warning; the binary needing them may fail in the image). */
  missing: string[];
  env: string[];
}

const PY_PROBE = [
  'import sys, sysconfig, os, json',
  'print(json.dumps({"exe": os.path.realpath(sys.executable), "version": "%d.%d" % sys.version_info[:2],',
  ' "stdlib": sysconfig.get_paths()["stdlib"], "dynload": sysconfig.get_config_var("DESTSHARED") or ""}))',
].join('\n');

/**
 * The python to copy: $HELDOUT_PYTHON, else Debian's /usr/bin/python3, else whatever `python3` on PATH really is
 * (pyenv's `python3` is a shim; the probe asks the interpreter for its real executable and prefix).
 */
export async function findPython(): Promise<PythonInfo | null> {
  const candidates = [process.env.HELDOUT_PYTHON, '/usr/bin/python3', 'python3'].filter(Boolean) as string[];
  for (const c of candidates) {
    if (c.startsWith('/') && !existsSync(c)) continue;
    try {
      const { stdout } = await execFileP(c, ['-c', PY_PROBE], { timeout: 15_000 });
      const info = JSON.parse(stdout) as PythonInfo;
      if (!info.dynload || !existsSync(info.dynload)) info.dynload = join(info.stdlib, 'lib-dynload');
      if (existsSync(join(info.stdlib, 'os.py'))) return info;
    } catch {
      // next candidate
    }
  }
  return null;
}

/** Host path → path inside the usr-merged image (relative, no leading slash). */
function imagePath(hostPath: string): string {
  const p = posix.normalize(hostPath);
  const merged = /^\/(bin|sbin|lib|lib32|lib64|libx32)(\/|$)/.test(p) ? `/usr${p}` : p;
  return merged.replace(/^\/+/, '');
}

function findTool(name: string): string | null {
  for (const d of TOOL_DIRS) {
    const p = join(d, name);
    if (existsSync(p)) return p;
  }
  return null;
}

/** The ELF interpreter (PT_INTERP) of a binary, e.g. /lib64/ld-linux-x86-64.so.2; null when not ELF64 or none. */
export async function elfInterpreter(file: string): Promise<string | null> {
  const fh = await open(file, 'r');
  try {
    const h = Buffer.alloc(64);
    await fh.read(h, 0, 64, 0);
    if (h.readUInt32BE(0) !== 0x7f454c46 || h[4] !== 2 || h[5] !== 1) return null; // ELF, 64-bit, little-endian
    const phoff = Number(h.readBigUInt64LE(0x20));
    const phentsize = h.readUInt16LE(0x36);
    const phnum = h.readUInt16LE(0x38);
    const ph = Buffer.alloc(phentsize * phnum);
    await fh.read(ph, 0, ph.length, phoff);
    for (let i = 0; i < phnum; i++) {
      const o = i * phentsize;
      if (ph.readUInt32LE(o) !== 3) continue; // PT_INTERP
      const off = Number(ph.readBigUInt64LE(o + 8));
      const size = Number(ph.readBigUInt64LE(o + 32));
      const buf = Buffer.alloc(size);
      await fh.read(buf, 0, size, off);
      return buf.toString('utf8').replace(/\0+$/, '');
    }
    return null;
  } finally {
    await fh.close();
  }
}

function parseLdd(out: string, libs: Set<string>, missing: Set<string>): void {
  for (const line of out.split('\n')) {
    const m = /=>\s+(\S+)\s+\(0x/.exec(line) ?? /^\s+(\/\S+)\s+\(0x/.exec(line);
    if (m) libs.add(m[1]);
    const nf = /^\s+(\S+)\s+=>\s+not found/.exec(line);
    if (nf) missing.add(nf[1]);
  }
}

/**
 * The shared libraries of many files: what `ldd` prints, obtained by asking the dynamic loader directly
 * (LD_TRACE_LOADED_OBJECTS, several at a time: ldd's shell wrapper costs more than the tracing), falling back to
 * `ldd` itself. Nothing of the traced files is executed.
 */
async function lddAll(files: string[], rtld: string | null): Promise<{ libs: Set<string>; missing: Set<string> }> {
  const libs = new Set<string>();
  const missing = new Set<string>();
  if (rtld) {
    const queue = [...files];
    const worker = async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
        try {
          const { stdout } = await execFileP(rtld, [f], { env: { LD_TRACE_LOADED_OBJECTS: '1' }, maxBuffer: 4 << 20 });
          parseLdd(stdout, libs, missing);
        } catch (err) {
          parseLdd((err as { stdout?: string }).stdout ?? '', libs, missing); // not a dynamic object: nothing to add
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    libs.add(rtld);
    return { libs, missing };
  }
  for (let i = 0; i < files.length; i += 200) {
    let out = '';
    try {
      out = (await execFileP('ldd', files.slice(i, i + 200), { maxBuffer: 32 << 20 })).stdout;
    } catch (err) {
      // ldd exits non-zero when one file is not dynamic; its stdout still lists the others
      out = (err as { stdout?: string }).stdout ?? '';
    }
    parseLdd(out, libs, missing);
  }
  return { libs, missing };
}

class EntrySet {
  readonly entries = new Map<string, TarEntry>();
  private readonly dirs = new Set<string>();

  dir(path: string, mode = 0o755): void {
    const p = path.replace(/\/+$/, '');
    if (!p || this.dirs.has(p)) return;
    this.dir(posix.dirname(p) === '.' ? '' : posix.dirname(p));
    this.dirs.add(p);
    this.entries.set(p, { type: 'dir', path: p, mode });
  }

  private parent(path: string): void {
    const d = posix.dirname(path);
    if (d !== '.') this.dir(d);
  }

  async file(path: string, source: string, mode?: number): Promise<void> {
    if (this.entries.has(path)) return;
    const l = await lstat(source);
    const real = l.isSymbolicLink() ? await realpath(source) : source;
    const s = l.isSymbolicLink() ? await stat(real) : l;
    this.parent(path);
    this.entries.set(path, {
      type: 'file',
      path,
      source: real,
      size: s.size,
      mode: mode ?? s.mode & 0o7777,
      mtime: Math.floor(s.mtimeMs / 1000),
    });
  }

  content(path: string, content: string | Buffer, mode = 0o644): void {
    this.parent(path);
    this.entries.set(path, { type: 'content', path, content: Buffer.from(content), mode });
  }

  symlink(path: string, target: string): void {
    if (this.entries.has(path)) return;
    this.parent(path);
    this.entries.set(path, { type: 'symlink', path, target });
  }
}

async function addTree(
  set: EntrySet,
  hostDir: string,
  imageDir: string,
  filter: (rel: string, isDir: boolean) => boolean,
): Promise<string[]> {
  const sos: string[] = [];
  async function walk(rel: string): Promise<void> {
    const dirents = await readdir(rel ? join(hostDir, rel) : hostDir, { withFileTypes: true });
    for (const d of dirents) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      const abs = join(hostDir, r);
      let isDir = d.isDirectory();
      if (d.isSymbolicLink()) {
        // stdlib symlinks (Debian's sitecustomize.py → /etc/…) are copied as the file they point to
        try {
          isDir = (await stat(abs)).isDirectory();
        } catch {
          continue;
        }
      }
      if (!filter(r, isDir)) continue;
      if (isDir) {
        set.dir(`${imageDir}/${r}`);
        await walk(r);
      } else {
        await set.file(`${imageDir}/${r}`, abs);
        if (d.name.endsWith('.so')) sos.push(abs);
      }
    }
  }
  await walk('');
  return sos;
}

/** Assembles the recipe (entries + content hash) from the host. Pure of side effects besides probing. */
export async function runtimeRecipe(): Promise<RuntimeRecipe> {
  const set = new EntrySet();
  for (const top of ['bin', 'sbin', 'lib', 'lib64']) set.symlink(top, `usr/${top}`);
  for (const d of [
    'usr/bin',
    'usr/sbin',
    'usr/lib',
    'usr/lib64',
    'usr/local/bin',
    'etc',
    'delivery',
    'case',
    'out',
    'gateway',
    'proc',
    'sys',
    'dev',
  ]) {
    set.dir(d);
  }
  set.dir('tmp', 0o1777);

  const binaries: string[] = [];
  // node
  const node = await realpath(process.execPath);
  await set.file('usr/bin/node', node, 0o755);
  binaries.push(node);

  // python
  const python = await findPython();
  if (python) {
    const v = python.version;
    await set.file(`usr/bin/python${v}`, python.exe, 0o755);
    set.symlink('usr/bin/python3', `python${v}`);
    set.symlink('usr/bin/python', `python${v}`);
    binaries.push(python.exe);
    const stdlibImage = `usr/lib/python${v}`;
    const dynloadInside = python.dynload.startsWith(`${python.stdlib}/`);
    const sos = await addTree(set, python.stdlib, stdlibImage, (rel, isDir) => {
      const parts = rel.split('/');
      if (parts.length === 1 && isDir && (STDLIB_SKIP_TOP.has(parts[0]) || parts[0].startsWith('config-')))
        return false;
      if (isDir && parts[parts.length - 1] === 'tests' && parts[0] === 'lib2to3') return false;
      const name = parts[parts.length - 1];
      if (!isDir && name.endsWith('.pyc') && /\.opt-\d\.pyc$/.test(name)) return false;
      if (
        !isDir &&
        dynloadInside &&
        `${python.stdlib}/${rel}`.startsWith(`${python.dynload}/`) &&
        DYNLOAD_SKIP.test(name)
      ) {
        return false;
      }
      if (!isDir && (name.endsWith('.a') || name.endsWith('.exe'))) return false;
      return true;
    });
    binaries.push(...sos);
    if (!dynloadInside && existsSync(python.dynload)) {
      const more = await addTree(
        set,
        python.dynload,
        `${stdlibImage}/lib-dynload`,
        (rel, isDir) => isDir || !DYNLOAD_SKIP.test(basename(rel)),
      );
      binaries.push(...more);
    }
  }

  // shell and core utilities
  const tools: string[] = [];
  for (const name of [...REQUIRED_TOOLS, ...OPTIONAL_TOOLS]) {
    const found = findTool(name);
    if (!found) {
      if (REQUIRED_TOOLS.includes(name))
        throw new Error(`image build: the host has no '${name}' to copy into the runtime image`);
      continue;
    }
    const real = await realpath(found);
    const target = imagePath(real);
    await set.file(target, real);
    const link = `usr/bin/${name}`;
    if (link !== target) set.symlink(link, `/${target}`);
    binaries.push(real);
    tools.push(name);
  }

  // shared libraries
  const { libs, missing } = await lddAll([...new Set(binaries)], await elfInterpreter(node).catch(() => null));
  const libDirs = new Set<string>();
  for (const lib of [...libs].sort()) {
    const target = imagePath(lib);
    await set.file(target, lib, 0o755);
    libDirs.add(posix.dirname(`/${target}`));
  }

  // users
  set.content(
    'etc/passwd',
    `root:x:0:0:root:/root:/bin/sh\nnobody:x:${SANDBOX_UID}:${SANDBOX_UID}:nobody:/tmp:/usr/sbin/nologin\n`,
  );
  set.content('etc/group', `root:x:0:\nnogroup:x:${SANDBOX_UID}:\n`);
  set.content('etc/hostname', 'heldout\n');
  if (tools.includes('git')) set.dir('usr/share/git-core/templates');

  const standard = /^\/usr\/lib(64)?(\/[a-z0-9_]+-linux-gnu[a-z0-9_]*)?$/;
  const extraLibDirs = [...libDirs].filter((d) => !standard.test(d)).sort();
  const env = [
    'PATH=/usr/local/bin:/usr/bin:/bin',
    'HOME=/tmp',
    'LANG=C.UTF-8',
    'PYTHONDONTWRITEBYTECODE=1',
    ...(extraLibDirs.length ? [`LD_LIBRARY_PATH=${extraLibDirs.join(':')}`] : []),
  ];
  set.content(
    'etc/heldout-runtime',
    `recipe ${RECIPE_VERSION}\nnode ${process.version}\npython ${python?.version ?? 'none'}\ntools ${tools.join(' ')}\n`,
  );

  const entries = [...set.entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const h = createHash('sha256');
  h.update(`heldout-runtime-recipe ${RECIPE_VERSION}\n${env.join('\n')}\n`);
  for (const e of entries) {
    if (e.type === 'file') h.update(`F ${e.path} ${e.source} ${e.size} ${e.mode} ${e.mtime}\n`);
    else if (e.type === 'content')
      h.update(`C ${e.path} ${e.mode} ${createHash('sha256').update(e.content).digest('hex')}\n`);
    else if (e.type === 'symlink') h.update(`L ${e.path} ${e.target}\n`);
    else h.update(`D ${e.path} ${e.mode}\n`);
  }
  return {
    hash: `sha256:${h.digest('hex')}`,
    entries,
    node,
    python,
    tools,
    missing: [...missing],
    env,
  };
}

export interface BuiltImage {
  tag: string;
  id: string;
  recipeHash: string;
  /** True when this call built it; false when an image with the same recipe already existed. */
  built: boolean;
  ms: number;
  python: string | null;
  tools: string[];
  warnings: string[];
}

/** Builds the runtime image (always) and tags it. */
export async function buildRuntimeImage(
  options: { tag?: string; docker?: Docker; recipe?: RuntimeRecipe } = {},
): Promise<BuiltImage> {
  const t0 = Date.now();
  const docker = options.docker ?? getDocker();
  const tag = options.tag ?? RUNTIME_IMAGE;
  const recipe = options.recipe ?? (await runtimeRecipe());
  const colon = tag.lastIndexOf(':');
  const [repo, version] = colon > tag.lastIndexOf('/') ? [tag.slice(0, colon), tag.slice(colon + 1)] : [tag, 'latest'];
  const changes = [
    ...recipe.env.map((e) => `ENV ${e}`),
    `USER ${SANDBOX_UID}:${SANDBOX_UID}`,
    'WORKDIR /',
    'CMD ["/bin/sh"]',
    `LABEL heldout.image=runtime heldout.recipe=${recipe.hash}`,
  ];
  const stream = await docker.importImage(
    tarStream(recipe.entries) as unknown as string,
    {
      repo,
      tag: version,
      changes,
    } as object,
  );
  await followProgress(docker, stream);
  const info = await docker.getImage(tag).inspect();
  const warnings: string[] = [];
  if (!recipe.python) warnings.push('no python3 found on the host: the image has node only');
  if (recipe.missing.length) warnings.push(`ldd could not resolve: ${recipe.missing.join(', ')}`);
  return {
    tag,
    id: info.Id,
    recipeHash: recipe.hash,
    built: true,
    ms: Date.now() - t0,
    python: recipe.python?.version ?? null,
    tools: recipe.tools,
    warnings,
  };
}

const ensuring = new Map<string, Promise<BuiltImage>>();

/** Builds the runtime image only when it is missing or was made from a different recipe. Memoised per process. */
export function ensureRuntimeImage(options: { tag?: string; docker?: Docker } = {}): Promise<BuiltImage> {
  const tag = options.tag ?? RUNTIME_IMAGE;
  let p = ensuring.get(tag);
  if (!p) {
    p = ensureOnce(tag, options.docker ?? getDocker());
    ensuring.set(tag, p);
    p.catch(() => ensuring.delete(tag));
  }
  return p;
}

async function ensureOnce(tag: string, docker: Docker): Promise<BuiltImage> {
  const t0 = Date.now();
  const recipe = await runtimeRecipe();
  try {
    const info = await docker.getImage(tag).inspect();
    if (info.Config?.Labels?.['heldout.recipe'] === recipe.hash) {
      return {
        tag,
        id: info.Id,
        recipeHash: recipe.hash,
        built: false,
        ms: Date.now() - t0,
        python: recipe.python?.version ?? null,
        tools: recipe.tools,
        warnings: [],
      };
    }
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  return buildRuntimeImage({ tag, docker, recipe });
}

/** The image's id, or null when it is not there (or no engine answers). */
export async function imageId(tag: string, docker: Docker = getDocker()): Promise<string | null> {
  try {
    return (await docker.getImage(tag).inspect()).Id;
  } catch {
    return null;
  }
}
