// Shared shape of the bench parts (issue 12): every part is a child process that prints ONE JSON document
// `{ part, config, metrics: [...], details? }` on stdout (a readable summary goes to stderr); `bench/run.mjs`
// collects them. A metric is `{ name, unit, median, min, max, runs, baseline?, ratio?, goal?, met? }`:
// median/min/max over repeated runs after a warm-up; `baseline` the same statistics of a baseline measured in the
// same run (interleaved where possible, so drift hits both alike); `ratio` = median / baseline median; `goal`
// `{ on: 'median' | 'ratio', op: '<=' | '>=', value }` and `met` whether it holds. A missed goal is a finding.
import os from 'node:os';
import { performance } from 'node:perf_hooks';

/** `--quick` (or HELDOUT_BENCH_QUICK=1): tiny sizes, for the smoke test of the plumbing. Numbers mean nothing. */
export const QUICK = process.argv.includes('--quick') || process.env.HELDOUT_BENCH_QUICK === '1';
// Worker threads see the parent's environment but not its argv.
if (QUICK) process.env.HELDOUT_BENCH_QUICK = '1';

/** A size from the environment, else the full or quick default. */
export function size(envName, full, quick) {
  const v = process.env[envName];
  if (v !== undefined && v !== '') {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${envName} must be a non-negative number, got ${v}`);
    return n;
  }
  return QUICK ? quick : full;
}

/** Median, min, max of a non-empty sample. */
export function stats(xs) {
  if (xs.length === 0) throw new Error('stats of an empty sample');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2, min: s[0], max: s[s.length - 1] };
}

/** p-th percentile (nearest rank) of an ascending-sorted sample. */
export function percentile(sorted, p) {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round = (x, d = 3) => (x === null || x === undefined ? x : Math.round(x * 10 ** d) / 10 ** d);

const holds = (x, op, value) => (op === '<=' ? x <= value : op === '>=' ? x >= value : x === value);

/**
 * One metric from its samples (and optionally the baseline's samples, measured in the same run). `goal` applies
 * to the median (`on: 'median'`) or to the ratio median / baseline median (`on: 'ratio'`).
 */
export function metric({ name, unit, samples, baseline, goal, digits = 3 }) {
  const s = stats(samples);
  const m = {
    name,
    unit,
    median: round(s.median, digits),
    min: round(s.min, digits),
    max: round(s.max, digits),
    runs: samples.length,
  };
  if (baseline) {
    const b = stats(baseline.samples);
    m.baseline = {
      name: baseline.name,
      median: round(b.median, digits),
      min: round(b.min, digits),
      max: round(b.max, digits),
    };
    m.ratio = b.median === 0 ? null : round(s.median / b.median, 3);
  }
  if (goal) {
    m.goal = goal;
    const x = goal.on === 'ratio' ? m.ratio : s.median;
    m.met = x !== null && x !== undefined && holds(x, goal.op, goal.value);
  }
  return m;
}

/** Wall milliseconds of an (async) function and its value. */
export async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Prints the part's document on stdout and a readable summary on stderr. */
export function emit(part, { config = {}, metrics, details, skipped } = {}) {
  const doc = { part, quick: QUICK, config, loadAverage: os.loadavg().map((x) => round(x, 2)), metrics: metrics ?? [] };
  if (skipped) doc.skipped = skipped;
  if (details !== undefined) doc.details = details;
  for (const m of doc.metrics) {
    const base = m.baseline ? `  vs ${m.baseline.name} ${m.baseline.median} (ratio ${m.ratio})` : '';
    const goal = m.goal ? `  goal ${m.goal.on} ${m.goal.op} ${m.goal.value}: ${m.met ? 'met' : 'MISSED'}` : '';
    process.stderr.write(`${part}: ${m.name} ${m.median} ${m.unit} [${m.min}–${m.max}]${base}${goal}\n`);
  }
  if (skipped) process.stderr.write(`${part}: skipped (${skipped})\n`);
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
}
