/**
 * The freeze manifest (DESIGN §6): what `heldout freeze` writes and what the held-out run verifies before the first
 * case and after every case.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../util/index.js';
import { DEFAULT_EXCLUDE, scanTree, type TreeEntry, type TreeScan } from './digest.js';

export const FREEZE_POLICIES = ['final', 'last-accepted', 'best-dev'] as const;
export type FreezePolicy = (typeof FREEZE_POLICIES)[number];

const freezeSchema = z.object({
  schema: z.literal('heldout/freeze@1'),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  environmentDigest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  /** The facts the environment digest was computed from (readable form). */
  environment: z.record(z.string(), z.string().nullable()),
  policy: z.enum(FREEZE_POLICIES),
  /** The development round the frozen digest comes from; null when no round ledger was consulted. */
  round: z.number().int().nonnegative().nullable(),
  frozenAt: z.string(),
  /** Absolute path of the delivery at freeze time (informational; verification takes the directory it is given). */
  delivery: z.string(),
  /** Relative paths left out of the digest (see treeDigest). */
  exclude: z.array(z.string()),
  /** Per entry: "sha256:<hex>" of a regular file's bytes, "symlink:<target>", or "other". */
  files: z.record(z.string(), z.string()),
  /** Octal permission bits of regular files and other entries. */
  modes: z.record(z.string(), z.string()),
});

export type FreezeManifest = z.output<typeof freezeSchema>;

/** A delivery differs from its freeze; `message` names what changed. */
export class FreezeMismatchError extends Error {
  constructor(
    message: string,
    readonly expected: string,
    readonly actual: string,
    readonly changes: TreeChanges,
  ) {
    super(message);
    this.name = 'FreezeMismatchError';
  }
}

export interface TreeChanges {
  added: string[];
  removed: string[];
  /** Content (or symlink target, or entry type) changed. */
  changed: string[];
  /** Same content, different mode: `path (644→755)`. */
  modeChanged: string[];
  /** The environment digest differs (only when verification was given the current environment). */
  environment: boolean;
}

/** A scanned tree's per-file listing, as freeze.json records it (what `diffTrees` compares against). */
export function treeListing(scan: Pick<TreeScan, 'entries'>): Pick<FreezeManifest, 'files' | 'modes'> {
  return listing(scan.entries);
}

function listing(entries: TreeEntry[]): { files: Record<string, string>; modes: Record<string, string> } {
  const files: Record<string, string> = {};
  const modes: Record<string, string> = {};
  for (const e of entries) {
    if (e.type === 'file') {
      files[e.path] = e.sha256;
      modes[e.path] = e.mode.toString(8);
    } else if (e.type === 'symlink') {
      files[e.path] = `symlink:${e.target}`;
    } else {
      files[e.path] = 'other';
      modes[e.path] = e.mode.toString(8);
    }
  }
  return { files, modes };
}

/** Names what differs between a scanned tree and a freeze manifest's listing. */
export function diffTrees(scan: TreeScan, manifest: Pick<FreezeManifest, 'files' | 'modes'>): TreeChanges {
  const now = listing(scan.entries);
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  const modeChanged: string[] = [];
  for (const [path, value] of Object.entries(now.files)) {
    const before = manifest.files[path];
    if (before === undefined) added.push(path);
    else if (before !== value) changed.push(path);
    else if ((manifest.modes[path] ?? null) !== (now.modes[path] ?? null)) {
      modeChanged.push(`${path} (${manifest.modes[path] ?? '?'}→${now.modes[path] ?? '?'})`);
    }
  }
  for (const path of Object.keys(manifest.files)) if (!(path in now.files)) removed.push(path);
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort(), modeChanged, environment: false };
}

/** `changed: a, b; added: c; removed: d`: what a refusal says changed. */
export function describeChanges(c: TreeChanges): string {
  const parts: string[] = [];
  const list = (xs: string[]) =>
    xs.length > 20 ? `${xs.slice(0, 20).join(', ')} and ${xs.length - 20} more` : xs.join(', ');
  if (c.changed.length) parts.push(`changed: ${list(c.changed)}`);
  if (c.added.length) parts.push(`added: ${list(c.added)}`);
  if (c.removed.length) parts.push(`removed: ${list(c.removed)}`);
  if (c.modeChanged.length) parts.push(`mode changed: ${list(c.modeChanged)}`);
  if (c.environment) parts.push('environment changed');
  return parts.join('; ');
}

/** Canonical JSON (sorted keys) of the environment facts, hashed. */
export function environmentDigest(environment: Record<string, string | null>): string {
  const keys = Object.keys(environment).sort();
  const canonical = JSON.stringify(keys.map((k) => [k, environment[k]]));
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

/** The default environment facts: node version and platform. Callers add the sandbox image and its id. */
export function defaultEnvironment(): Record<string, string | null> {
  return { node: process.version, platform: `${process.platform}-${process.arch}` };
}

export interface WriteFreezeOptions {
  deliveryDir: string;
  policy?: FreezePolicy;
  /** Development round of the frozen digest; null/omitted until a round ledger supplies it. */
  round?: number | null;
  /** Where to write freeze.json; omitted: not written, only returned. */
  out?: string;
  /** Environment facts (image, image id, …); default `defaultEnvironment()`. */
  environment?: Record<string, string | null>;
  /** Paths left out of the digest; default [".git"] (plus `out` itself when it lies inside the delivery). */
  exclude?: string[];
  now?: Date;
}

/** Computes the freeze manifest of a delivery and writes it to `out`. */
export async function writeFreeze(options: WriteFreezeOptions): Promise<FreezeManifest> {
  const deliveryDir = resolve(options.deliveryDir);
  const exclude = [...(options.exclude ?? DEFAULT_EXCLUDE)];
  if (options.out) {
    const rel = relative(deliveryDir, resolve(options.out));
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) exclude.push(rel.split(sep).join('/'));
  }
  const scan = await scanTree(deliveryDir, { exclude });
  const environment = options.environment ?? defaultEnvironment();
  const manifest: FreezeManifest = {
    schema: 'heldout/freeze@1',
    digest: scan.digest,
    environmentDigest: environmentDigest(environment),
    environment,
    policy: options.policy ?? 'final',
    round: options.round ?? null,
    frozenAt: (options.now ?? new Date()).toISOString(),
    delivery: deliveryDir,
    exclude,
    ...listing(scan.entries),
  };
  // Atomic: an interrupted freeze leaves the previous manifest (or none), never half of one that refuses every run.
  if (options.out) await writeFileAtomic(resolve(options.out), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Reads and validates a freeze.json. */
export async function readFreeze(path: string): Promise<FreezeManifest> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not a readable freeze manifest: ${(err as Error).message}`);
  }
  const parsed = freezeSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${path}: invalid freeze manifest: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/**
 * Verifies that `dir` still is what was frozen. Returns the digest; throws FreezeMismatchError naming the changed,
 * added and removed files otherwise. With `environmentDigest`, a different environment is a mismatch too.
 */
export async function verifyFreeze(
  dir: string,
  freeze: FreezeManifest,
  options: { environmentDigest?: string } = {},
): Promise<string> {
  const scan = await scanTree(dir, { exclude: freeze.exclude });
  const envChanged = options.environmentDigest !== undefined && options.environmentDigest !== freeze.environmentDigest;
  if (scan.digest === freeze.digest && !envChanged) return scan.digest;
  const changes = scan.digest === freeze.digest ? emptyChanges() : diffTrees(scan, freeze);
  changes.environment = envChanged;
  let what = describeChanges(changes);
  if (!what) what = 'the per-file listing matches but the digest does not (manifest edited by hand?)';
  throw new FreezeMismatchError(
    `delivery ${dir} is not the frozen delivery (frozen ${freeze.digest.slice(0, 19)}…, now ${scan.digest.slice(0, 19)}…): ${what}`,
    freeze.digest,
    scan.digest,
    changes,
  );
}

function emptyChanges(): TreeChanges {
  return { added: [], removed: [], changed: [], modeChanged: [], environment: false };
}
