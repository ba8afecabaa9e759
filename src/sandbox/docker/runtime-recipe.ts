/**
 * The default runtime image, made without any registry (DESIGN §7, §16): a root filesystem assembled from the
 * host's `node`, a python3 with its standard library (and the host's pytest with its requirements, when a host python
 * of that version has it), `sh`, `bash`, coreutils, `git` and `patch` (each when present), every shared
 * library `ldd` lists for them and for python's extension modules, `/etc/passwd` with the non-root user, streamed as
 * a tar straight into `docker import` (no copy on disk). It takes a few seconds.
 *
 * Layout inside the image (usr-merged: /bin, /sbin, /lib, /lib64 are links into /usr):
 *   /usr/bin/node, /usr/bin/pythonX.Y (+ python3, python links), /usr/lib/pythonX.Y/ (stdlib, lib-dynload/),
 *   /usr/bin/{sh,bash,cat,ls,env,git,patch,…}, /usr/bin/pytest, <site dir>/{pytest,_pytest,pluggy,…}, libraries at the paths ldd names, /etc/{passwd,group}, /tmp, /delivery, /case, /out.
 *
 * The image carries the label `heldout.recipe=<sha256 of the recipe>`: the recipe is the list of entries with each
 * source's path, size, mode and mtime (and inline contents), so a new host node/python or a changed recipe rebuilds
 * on the next `ensureRuntimeImage()`; `runtime-image.ts` builds it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { SANDBOX_UID } from '../sandbox-user.js';
import type { TarEntry } from '../tar.js';
import { findHostPytest, imageSiteDir, pytestScript } from './host-pytest.js';
import { findPython, type PythonInfo } from './host-python.js';
import { elfInterpreter, lddAll } from './shared-libraries.js';

/** Bump when the recipe's logic changes (the content hash covers sources, this covers code). */
const RECIPE_VERSION = '3';

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
  // issue 19: what task verifiers' scripts call (bash, the rest of coreutils, diffutils, findutils)
  'bash',
  'comm',
  'csplit',
  'dd',
  'fold',
  'install',
  'join',
  'mkfifo',
  'nl',
  'nohup',
  'od',
  'paste',
  'rmdir',
  'sha1sum',
  'sha512sum',
  'shuf',
  'split',
  'stdbuf',
  'sync',
  'tac',
  'truncate',
  'tsort',
  'unlink',
  'whoami',
  'yes',
  'which',
  'xz',
  'bzip2',
  'unzip',
  'zip',
];
/**
 * glibc's libraries that native client binaries link though nothing copied here does (Claude Code's binary needs
 * librt), each taken from libc's own directory when the host has it.
 */
const COMMON_LIBS = ['librt.so.1', 'libpthread.so.0', 'libdl.so.2', 'libm.so.6', 'libutil.so.1', 'libresolv.so.2'];
/** The locale `LANG=C.UTF-8` names (glibc before 2.35 has no built-in C.UTF-8). */
const LOCALE_DIRS = ['/usr/lib/locale/C.utf8', '/usr/lib/locale/C.UTF-8'];
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

export interface RuntimeRecipe {
  hash: string;
  entries: TarEntry[];
  node: string;
  python: PythonInfo | null;
  /** The host pytest copied in (with its requirements), or null when no host python of the image's version has it. */
  pytest: string | null;
  tools: string[];
  /** Libraries ldd could not resolve (a warning; the binary needing them may fail in the image). */
  missing: string[];
  env: string[];
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
  const pytest = python ? await findHostPytest(python) : null;
  if (python && pytest) {
    const site = imageSiteDir(python);
    for (const d of pytest.distributions) {
      for (const f of d.files) {
        const abs = join(d.root, f);
        if (!existsSync(abs)) continue;
        await set.file(`${site}/${f}`, abs);
        if (f.endsWith('.so')) binaries.push(abs);
      }
    }
    set.content('usr/bin/pytest', pytestScript(), 0o755);
    set.content('usr/bin/py.test', pytestScript(), 0o755);
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
  const libc = [...libs].find((l) => basename(l) === 'libc.so.6');
  for (const name of libc ? COMMON_LIBS : []) {
    const p = join(posix.dirname(libc!), name);
    if (existsSync(p)) libs.add(p);
  }
  for (const lib of [...libs].sort()) {
    const target = imagePath(lib);
    await set.file(target, lib, 0o755);
    libDirs.add(posix.dirname(`/${target}`));
  }

  const locale = LOCALE_DIRS.find((d) => existsSync(d));
  if (locale) await addTree(set, locale, imagePath(locale), () => true);

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
    `recipe ${RECIPE_VERSION}\nnode ${process.version}\npython ${python?.version ?? 'none'}\npytest ${pytest ? 'yes' : 'none'}\ntools ${tools.join(' ')}\n`,
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
    pytest: pytest?.distributions.find((d) => d.name.toLowerCase() === 'pytest')?.version ?? null,
    tools,
    missing: [...missing],
    env,
  };
}
