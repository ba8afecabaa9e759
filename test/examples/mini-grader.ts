import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Artifact, CaseRef, CheckItem, Commission } from '../../src/commission/index.js';

/**
 * A deliberately small, independent grader for the example tests: it follows the rubric semantics of DESIGN §4
 * (gates → checks → dimension caps → total ceilings) so the examples can be verified before the real grading
 * part exists, and so that part can be cross-checked against it.
 */

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface MiniGrade {
  case: string;
  gate: 'error-exit' | 'timeout' | 'missing-artifact' | 'invalid-artifact' | null;
  reason: string;
  result: number;
  passed: boolean;
  outputDir: string;
}

/** Runs the commission's entry for one case with `deliveryDir` as working directory. */
export function runEntry(c: Commission, kase: CaseRef, deliveryDir: string) {
  const outputDir = mkdtempSync(path.join(os.tmpdir(), `heldout-ex-${kase.id}-`));
  const argv = c.config.entry
    .split(/\s+/)
    .map((a) =>
      a.replaceAll('{input}', kase.inputPath).replaceAll('{output}', outputDir).replaceAll('{delivery}', deliveryDir),
    );
  const proc = spawnSync(argv[0]!, argv.slice(1), {
    cwd: deliveryDir,
    encoding: 'utf8',
    timeout: c.config.budgets.wallSeconds * 1000,
    env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1' },
  });
  return { outputDir, status: proc.status, timedOut: proc.error !== undefined, stderr: proc.stderr };
}

export function gradeCase(c: Commission, kase: CaseRef, deliveryDir: string): MiniGrade {
  const run = runEntry(c, kase, deliveryDir);
  const base = { case: kase.id, outputDir: run.outputDir, result: 0, passed: false };
  if (run.timedOut) return { ...base, gate: 'timeout', reason: 'wall budget' };
  if (run.status === null || !c.config.exitCodes.includes(run.status)) {
    return { ...base, gate: 'error-exit', reason: `exit ${run.status}: ${run.stderr.slice(-300)}` };
  }
  for (const a of c.config.artifacts) {
    const gate = artifactGate(a, run.outputDir);
    if (gate) return { ...base, ...gate };
  }
  const truth = kase.truth ?? {};
  const score = (item: CheckItem) => checkScore(item, run.outputDir, truth);
  let total = 0;
  for (const d of c.rubric.dimensions) {
    let earned = 0;
    for (const item of d.items) if ('check' in item) earned += item.points * score(item);
    const caps = c.rubric.outcomes
      .filter((o) => 'check' in o.when && score(o.when) < 1 && o.caps[d.id] !== undefined)
      .map((o) => o.caps[d.id]!);
    total += Math.min(earned, ...caps);
  }
  const ceilings = c.rubric.ceilings.filter((k) => 'check' in k.unless && score(k.unless) < 1).map((k) => k.max);
  const result = Math.min(total, ...ceilings);
  return { ...base, gate: null, reason: '', result, passed: result >= c.config.pass.minResult };
}

function artifactGate(a: Artifact, outputDir: string): Pick<MiniGrade, 'gate' | 'reason'> | null {
  const file = path.join(outputDir, a.path);
  if (!existsSync(file)) return a.required ? { gate: 'missing-artifact', reason: a.path } : null;
  const text = readFileSync(file, 'utf8');
  if (a.format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { gate: 'invalid-artifact', reason: `${a.path}: not JSON` };
    }
    const problem = a.schema ? schemaProblem(a.schema, value, a.path) : null;
    return problem ? { gate: 'invalid-artifact', reason: problem } : null;
  }
  if ((a.format === 'markdown' || a.format === 'text') && !a.allowEmpty && text.trim() === '') {
    return { gate: 'invalid-artifact', reason: `${a.path}: empty` };
  }
  return null;
}

/** A share in [0, 1] of the item's points. */
export function checkScore(item: CheckItem, outputDir: string, truth: Record<string, unknown>): number {
  const file = 'file' in item ? path.join(outputDir, item.file) : '';
  if (item.check === 'exists') return existsSync(file) ? 1 : 0;
  if (!existsSync(file)) return 0;
  const text = readFileSync(file, 'utf8');
  if (item.check === 'regex') return new RegExp(item.pattern, item.flags).test(text) !== item.negate ? 1 : 0;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 0;
  }
  if (item.check === 'schema') return schemaProblem(item.schema, json, item.file) ? 0 : 1;
  if (item.check !== 'json-equals' && item.check !== 'number' && item.check !== 'json-contains') return 0;
  const actual = at(json, item.path);
  const expected = 'value' in item.expected ? item.expected.value : at(truth, item.expected.truth);
  if (item.check === 'number') {
    return typeof actual === 'number' && typeof expected === 'number' && Math.abs(actual - expected) <= item.tolerance
      ? 1
      : 0;
  }
  if (item.check === 'json-contains') {
    const want = Array.isArray(expected) ? expected : [expected];
    if (want.length === 0) return 1;
    const found = want.filter((w) =>
      typeof actual === 'string'
        ? typeof w === 'string' && actual.includes(w)
        : Array.isArray(actual) && actual.some((x) => deepEqual(x, w, false)),
    );
    return found.length / want.length;
  }
  return actual !== undefined && deepEqual(actual, expected, item.loose) ? 1 : 0;
}

function at(value: unknown, dotted: string): unknown {
  if (dotted === '') return value;
  let cur = value;
  for (const key of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function deepEqual(a: unknown, b: unknown, loose: boolean): boolean {
  if (loose && typeof a === 'string' && typeof b === 'string') return a.trim().toLowerCase() === b.trim().toLowerCase();
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as any)[k], (b as any)[k], loose));
}

/** The JSON Schema subset the example commissions use; returns the first problem or null. */
export function schemaProblem(schema: Record<string, unknown>, value: unknown, where: string): string | null {
  const s = schema as any;
  if (s.oneOf) {
    const ok = (s.oneOf as Record<string, unknown>[]).filter((sub) => schemaProblem(sub, value, where) === null);
    return ok.length === 1 ? null : `${where}: matches ${ok.length} of oneOf`;
  }
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    const actual =
      value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
    if (!types.some((t) => t === actual || (t === 'number' && actual === 'integer')))
      return `${where}: not ${types.join('|')}`;
  }
  if (s.enum && !(s.enum as unknown[]).includes(value)) return `${where}: not one of ${s.enum}`;
  if (typeof value === 'number' && s.minimum !== undefined && value < s.minimum) return `${where}: below ${s.minimum}`;
  if (typeof value === 'string' && s.minLength !== undefined && value.length < s.minLength)
    return `${where}: too short`;
  if (Array.isArray(value) && s.items) {
    for (const [i, v] of value.entries()) {
      const p = schemaProblem(s.items, v, `${where}.${i}`);
      if (p) return p;
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of (s.required as string[] | undefined) ?? []) if (!(key in obj)) return `${where}: missing ${key}`;
    for (const [key, v] of Object.entries(obj)) {
      const sub =
        s.properties?.[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (s.properties?.[key] === undefined && s.additionalProperties === false) return `${where}: unexpected ${key}`;
      if (sub) {
        const p = schemaProblem(sub, v, `${where}.${key}`);
        if (p) return p;
      }
    }
  }
  return null;
}

export const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
