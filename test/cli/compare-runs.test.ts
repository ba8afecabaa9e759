import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldout, runLogTriage } from '../helpers/cli.js';
import { expectValidSummary } from '../report/summary-json-schema.js';

/**
 * `heldout compare` and the `noRegressionVs` gate on real runs: the demo's overfit delivery against its reference
 * (one run, two deliveries), and two runs of the reference delivery. Every statistic is recomputed here from the two
 * summary.json files by code that shares nothing with heldout's: per-case means, W/L/T, the exact sign test in
 * integers, and a percentile bootstrap with its own generator.
 */

type Case = { id: string; status: string; result: number | null; passed: boolean };

function caseMeans(cases: Case[]): Map<string, { mean: number; pass: string }> {
  const by = new Map<string, Case[]>();
  for (const c of cases)
    if (c.status === 'graded' || c.status === 'gate-failed') by.set(c.id, [...(by.get(c.id) ?? []), c]);
  const out = new Map<string, { mean: number; pass: string }>();
  for (const [id, xs] of by) {
    const passed = xs.filter((x) => x.passed).length;
    out.set(id, {
      mean: xs.reduce((s, x) => s + (x.result ?? 0), 0) / xs.length,
      pass: passed === xs.length ? 'pass' : passed === 0 ? 'fail' : 'mixed',
    });
  }
  return out;
}

/** Two-sided exact sign test in integers: p = min(1, 2·Σ_{i ≤ min(W,L)} C(n, i) / 2^n). */
function signTestExact(w: number, l: number): number {
  const n = w + l;
  if (n === 0) return 1;
  let c = 1n;
  let sum = 0n;
  for (let i = 0; i <= Math.min(w, l); i++) {
    sum += c;
    c = (c * BigInt(n - i)) / BigInt(i + 1);
  }
  return Math.min(1, (2 * Number(sum)) / 2 ** n);
}

/** A percentile bootstrap of the mean with xorshift32 and 20,000 resamples (heldout uses mulberry32 and 2,000). */
function bootstrap(xs: number[]): [number, number] {
  let s = 2463534242;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  const means: number[] = [];
  for (let r = 0; r < 20000; r++) {
    let t = 0;
    for (let i = 0; i < xs.length; i++) t += xs[Math.floor(next() * xs.length)];
    means.push(t / xs.length);
  }
  means.sort((a, b) => a - b);
  return [means[Math.floor(0.025 * means.length)], means[Math.floor(0.975 * means.length) - 1]];
}

function independently(a: { cases: Case[] }, b: { cases: Case[] }) {
  const ma = caseMeans(a.cases);
  const mb = caseMeans(b.cases);
  const ids = [...ma.keys()].filter((id) => mb.has(id)).sort();
  const diffs = ids.map((id) => mb.get(id)!.mean - ma.get(id)!.mean);
  const wins = diffs.filter((d) => d > 1e-9).length;
  const losses = diffs.filter((d) => d < -1e-9).length;
  const flipped = ids.filter((id) => {
    const [x, y] = [ma.get(id)!.pass, mb.get(id)!.pass];
    return (x === 'pass' && y === 'fail') || (x === 'fail' && y === 'pass');
  });
  return {
    ids,
    diffs,
    wins,
    losses,
    ties: ids.length - wins - losses,
    mean: diffs.reduce((s, d) => s + d, 0) / diffs.length,
    p: signTestExact(wins, losses),
    ci: bootstrap(diffs),
    flipped,
  };
}

describe('heldout compare and gate.noRegressionVs', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-compare-'));
  const at = (name: string) => path.join(tmp, name);
  const run = (delivery: string, out: string, extra: string[] = []) => runLogTriage(delivery, at(out), extra);
  const read = (dir: string) => JSON.parse(readFileSync(path.join(at(dir), 'summary.json'), 'utf8'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  beforeAll(async () => {
    const demo = await heldout(['demo', '--out', at('demo')]);
    expect(demo.code, demo.out).toBe(0);
    const first = await run('reference', 'ref-1');
    expect(first.code, first.out).toBe(0);
    // Not a terminal: a progress line per finished case (at most every 2 s), and the last one always.
    expect(first.out).toMatch(/heldout: 9\/9 cases · 0 failed · \d+(m\d+)?s elapsed\n/);
  });

  test("the demo's overfit delivery against its reference: significantly worse, the flipped cases named", async () => {
    const r = await heldout([
      'compare',
      at('demo'),
      '--a-delivery',
      'reference',
      '--b-delivery',
      'overfit',
      '--commission',
      'log-triage',
      '--split',
      'heldout',
      '--json',
    ]);
    expect(r.code, r.out).toBe(0);
    const cmp = JSON.parse(r.stdout);
    expect(cmp.pairs).toHaveLength(1);
    const pair = cmp.pairs[0];
    const demo = read('demo');
    expectValidSummary(demo);
    const entry = (label: string) =>
      demo.commissions.find((c: any) => c.id === 'log-triage' && c.split === 'heldout' && c.delivery.label === label);
    const want = independently(entry('reference'), entry('overfit'));
    expect(pair.cases.map((c: any) => c.id)).toEqual(want.ids);
    expect(pair.cases.map((c: any) => c.diff)).toEqual(want.diffs);
    expect(pair.paired).toMatchObject({ n: want.ids.length, wins: want.wins, losses: want.losses, ties: want.ties });
    expect(pair.paired.meanDiff).toBeCloseTo(want.mean, 9);
    expect(pair.paired.signTestP).toBeCloseTo(want.p, 12);
    // Two Monte Carlo bootstraps of the same differences agree to within their sampling error.
    expect(Math.abs(pair.paired.ci95[0] - want.ci[0])).toBeLessThan(2.5);
    expect(Math.abs(pair.paired.ci95[1] - want.ci[1])).toBeLessThan(2.5);
    expect(want.ci[1]).toBeLessThan(0);
    expect(pair.paired.verdict).toBe('worse');
    expect(pair.flipped.map((c: any) => c.id)).toEqual(want.flipped);
    expect(want.flipped.length).toBeGreaterThanOrEqual(5);
    for (const f of pair.flipped) expect(f.flipped).toBe('pass→fail');

    const text = await heldout(['compare', at('demo'), '--a-delivery', 'reference', '--b-delivery', 'overfit']);
    expect(text.stdout).toMatch(/log-triage · heldout: reference \(A, 100\.0\) → overfit \(B, 44\.1\)/);
    expect(text.stdout).toContain('B is significantly worse than A');
    expect(text.stdout).toContain(`flipped pass→fail (${want.flipped.length}): ${want.flipped.join(', ')}`);
  });

  test('two runs of one delivery: no significant difference, nothing flipped; the gate against the first holds', async () => {
    const second = await run('reference', 'ref-2', [
      '--no-regression-vs',
      path.join(at('ref-1'), 'summary.json'),
      '--silent',
    ]);
    expect(second.code, second.out).toBe(0);
    expect(second.out).not.toMatch(/heldout: \d+\/\d+ cases/);
    expect(second.out).toContain('heldout gate holds (1 conditions met)');
    const r = await heldout(['compare', at('ref-1'), at('ref-2'), '--json']);
    expect(r.code, r.out).toBe(0);
    const [pair] = JSON.parse(r.stdout).pairs;
    const want = independently(read('ref-1').commissions[0], read('ref-2').commissions[0]);
    expect(want).toMatchObject({ wins: 0, losses: 0, mean: 0, p: 1, flipped: [] });
    expect(pair.paired).toEqual({
      n: 9,
      wins: 0,
      losses: 0,
      ties: 9,
      meanDiff: 0,
      ci95: [0, 0],
      signTestP: 1,
      verdict: 'no-difference',
    });
    const gated = read('ref-2');
    expectValidSummary(gated);
    expect(gated.gate.verdict).toBe('pass');
    expect(gated.gate.thresholds.noRegressionVs).toMatchObject({ runId: read('ref-1').run.id, margin: 0 });
    expect(gated.gate.conditions).toEqual([
      expect.objectContaining({ condition: 'noRegressionVs', met: true, value: 0, comparison: pair.paired }),
    ]);
  });

  test('a delivery significantly worse than the baseline run fails the gate (exit 1), saying by how much', async () => {
    const r = await run('overfit', 'overfit', ['--no-regression-vs', at('ref-1')]);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/heldout gate failed/);
    expect(r.out).toMatch(
      /log-triage \(log-triage-overfit\): significantly worse than baseline run \S+: Δ -\d+\.\d \(95 % CI -\d+\.\d–-\d+\.\d\) over 9 cases, W\/L\/T 0\/\d\/\d, sign test p=/,
    );
    const s = read('overfit');
    expectValidSummary(s);
    const [cond] = s.gate.conditions;
    const want = independently(read('ref-1').commissions[0], s.commissions[0]);
    expect(cond).toMatchObject({ condition: 'noRegressionVs', met: false, threshold: 0 });
    expect(cond.value).toBeCloseTo(want.mean, 9);
    expect(cond.comparison.signTestP).toBeCloseTo(want.p, 12);
    expect(s.commissions[0].verdict).toBe('fail');
  });

  test('an unreadable baseline is refused before anything runs (exit 2), naming the file', async () => {
    const r = await run('reference', 'never', ['--no-regression-vs', at('nope/summary.json')]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`--no-regression-vs: ${at('nope/summary.json')}: cannot be read (no such file)`);
    const one = await heldout(['compare', at('demo')]);
    expect(one.code).toBe(2);
    expect(one.out).toMatch(/with one run, name the two deliveries/);
  });
});
