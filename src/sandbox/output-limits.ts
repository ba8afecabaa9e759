/**
 * The output budget (issue 17): `budgets.outputBytes` bounds what a case may leave in its output directory — total
 * bytes of its files, number of entries, and nesting depth. A sandbox is watched while it runs and stopped once past
 * the bound (the kernel caps any one file at the byte budget, RLIMIT_FSIZE); afterwards heldout keeps (or copies)
 * only what fits, so a flood never lands in the report directory, and the case fails the `output-limit` gate.
 */
import { execFile } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/** What a case may leave in its output directory. */
export interface OutputLimits {
  /** Total bytes of its regular files. */
  bytes: number;
  /** Entries of every kind (files, directories, links). */
  entries: number;
  /** Path segments of the deepest entry (`a/b/c.txt` is 3). */
  depth: number;
}

/** Entries and depth a case may use unless told otherwise: far past what an agent's report needs, far short of a flood. */
export const DEFAULT_OUTPUT_ENTRIES = 10_000;
export const DEFAULT_OUTPUT_DEPTH = 32;

/** The output limits of a byte budget, with the default entry and depth bounds. */
export function outputLimits(bytes: number): OutputLimits {
  return { bytes, entries: DEFAULT_OUTPUT_ENTRIES, depth: DEFAULT_OUTPUT_DEPTH };
}

/** What is past the limits, in words (`/out holds more than 1048576 bytes`), or null. */
type Verdict = string | null;

interface Tally {
  bytes: number;
  entries: number;
  over: Verdict;
}

/** The sentence for the first limit past which outputs went. */
export function describeExcess(limits: OutputLimits, what: 'bytes' | 'entries' | 'depth'): string {
  if (what === 'bytes') return `the outputs hold more than the output budget of ${limits.bytes} bytes`;
  if (what === 'entries') return `the outputs hold more than ${limits.entries} files and directories`;
  return `the outputs nest deeper than ${limits.depth} levels`;
}

// Paths are Buffers throughout: a delivery may name a file with bytes that are not UTF-8, and a name decoded to a
// string could not be opened again (the case would lose its outputs, or the copy would throw).
type Name = Buffer;
const SLASH = Buffer.from('/');
const joinName = (a: Name, b: Name): Name => (a.length === 0 ? b : Buffer.concat([a, SLASH, b]));
const under = (root: string, rel: Name): Name =>
  rel.length === 0 ? Buffer.from(root) : joinName(Buffer.from(root), rel);

async function list(root: string, rel: Name): Promise<Dirent<Buffer>[]> {
  try {
    const names = await readdir(under(root, rel), { withFileTypes: true, encoding: 'buffer' });
    return names.sort((a, b) => Buffer.compare(a.name, b.name));
  } catch {
    return [];
  }
}

/**
 * Walks `src` in sorted order and hands each entry that still fits the limits to `keep`; the first that does not
 * ends the walk (and everything after it is left out). Links are entries, never followed. With `sizes` false only
 * entries and depth are counted (no stat per file: what a frequent watch can afford).
 */
async function walk(
  src: string,
  limits: OutputLimits,
  keep: (rel: Name, d: Dirent<Buffer>) => Promise<void>,
  sizes = true,
): Promise<Tally> {
  const tally: Tally = { bytes: 0, entries: 0, over: null };
  const visit = async (rel: Name, depth: number): Promise<void> => {
    for (const d of await list(src, rel)) {
      if (tally.over) return;
      const r = joinName(rel, d.name);
      if (depth + 1 > limits.depth) {
        tally.over = describeExcess(limits, 'depth');
        return;
      }
      if (tally.entries + 1 > limits.entries) {
        tally.over = describeExcess(limits, 'entries');
        return;
      }
      let size = 0;
      if (sizes && d.isFile()) size = (await lstat(under(src, r)).catch(() => ({ size: 0 }))).size;
      if (tally.bytes + size > limits.bytes) {
        tally.over = describeExcess(limits, 'bytes');
        return;
      }
      tally.entries++;
      tally.bytes += size;
      await keep(r, d);
      if (d.isDirectory()) await visit(r, depth + 1);
    }
  };
  await visit(Buffer.alloc(0), 0);
  return tally;
}

const nothing = async () => {};

/**
 * Why the outputs under `dir` are past the limits, or null when they fit (stops walking at the first excess).
 * Entries and depth are counted first, without a stat per file, so a flood of files is seen at once.
 */
export async function outputsExceed(dir: string, limits: OutputLimits): Promise<Verdict> {
  return (await walk(dir, limits, nothing, false)).over ?? (await walk(dir, limits, nothing)).over;
}

const NO_LIMITS: OutputLimits = {
  bytes: Number.POSITIVE_INFINITY,
  entries: Number.POSITIVE_INFINITY,
  depth: Number.POSITIVE_INFINITY,
};

/** What `dir` holds now: bytes of its regular files and entries of every kind (what the limits count). */
export async function outputsUsage(dir: string): Promise<{ bytes: number; entries: number }> {
  const t = await walk(dir, NO_LIMITS, nothing);
  return { bytes: t.bytes, entries: t.entries };
}

/**
 * Keeps what fits the limits under `dir` and removes the rest (in walk order: what comes first stays). Returns why
 * something was removed, or null when everything fit.
 */
export async function trimOutputs(dir: string, limits: OutputLimits): Promise<Verdict> {
  const kept = new Set<string>();
  const tally = await walk(dir, limits, async (rel) => {
    kept.add(rel.toString('latin1'));
  });
  if (!tally.over) return null;
  const prune = async (rel: Name): Promise<void> => {
    for (const d of await list(dir, rel)) {
      const r = joinName(rel, d.name);
      if (!kept.has(r.toString('latin1'))) await rm(under(dir, r), { recursive: true, force: true });
      else if (d.isDirectory()) await prune(r);
    }
  };
  await prune(Buffer.alloc(0));
  return tally.over;
}

/**
 * Copies what fits the limits from `src` to `dest` (files with their mode, links as links, directories and FIFOs;
 * sockets and devices left out) and stops at the first entry past them. Returns why it stopped, or null.
 */
export async function copyOutputsBounded(src: string, dest: string, limits: OutputLimits): Promise<Verdict> {
  await mkdir(dest, { recursive: true });
  const tally = await walk(src, limits, async (rel, d) => {
    const from = under(src, rel);
    const to = under(dest, rel);
    if (d.isDirectory()) {
      await mkdir(to, { recursive: true });
      await chmod(to, 0o777).catch(() => {});
    } else if (d.isSymbolicLink()) {
      await rm(to, { force: true });
      await symlink(await readlink(from, { encoding: 'buffer' }), to).catch(() => {});
    } else if (d.isFile()) {
      await rm(to, { force: true, recursive: true });
      await copyFile(from, to);
      await chmod(to, keptMode((await lstat(from)).mode)).catch(() => {});
    } else if (d.isFIFO()) {
      // Kept as what it is (grading lists it, never opens it); Node has no mkfifo of its own.
      const name = to.toString('utf8');
      if (Buffer.from(name, 'utf8').equals(to)) await execFileP('mkfifo', ['-m', '644', name]).catch(() => {});
    }
  });
  return tally.over;
}

/** A file's mode as it may stay in the host's report directory: no setuid, setgid or sticky bit, not world-writable. */
export const keptMode = (mode: number): number => mode & 0o775;

/**
 * Strips what `keptMode` does not keep from every regular file under `dir` (links never followed): what a sandbox
 * wrote straight into the host's directory (docker's bind mode) ends as the process backend's copies do.
 */
export async function stripUnsafeModes(dir: string): Promise<void> {
  await walk(dir, NO_LIMITS, async (rel, d) => {
    if (!d.isFile()) return;
    const file = under(dir, rel);
    const mode = (await lstat(file).catch(() => null))?.mode;
    if (mode !== undefined && keptMode(mode) !== (mode & 0o7777)) await chmod(file, keptMode(mode)).catch(() => {});
  });
}

/** A running sandbox's output directory, checked every `everyMs`; `onExceed` runs once, at the first excess. */
export interface OutputWatch {
  /** Why the watch fired, or null. */
  readonly exceeded: Verdict;
  stop(): void;
}

/** Starts watching `dir` against `limits` (no watch without limits). */
export function watchOutputs(
  dir: string,
  limits: OutputLimits | undefined,
  onExceed: (why: string) => void,
  everyMs = 250,
): OutputWatch {
  let exceeded: Verdict = null;
  let busy = false;
  let timer: NodeJS.Timeout | undefined;
  if (limits) {
    timer = setInterval(() => {
      if (busy || exceeded) return;
      busy = true;
      outputsExceed(dir, limits)
        .then((why) => {
          if (why && !exceeded) {
            exceeded = why;
            clearInterval(timer);
            onExceed(why);
          }
        })
        .catch(() => {})
        .finally(() => {
          busy = false;
        });
    }, everyMs);
    timer.unref();
  }
  return {
    get exceeded() {
      return exceeded;
    },
    stop: () => clearInterval(timer),
  };
}
