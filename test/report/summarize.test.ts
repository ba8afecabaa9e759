import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { gapClosure, signTest } from '../../src/metrics/index.js';
import {
  buildSummary,
  computeGaps,
  migrateSummary,
  summarizeCommission,
  summarySchema,
} from '../../src/report/index.js';
import { expectValidSummary } from './summary-json-schema.js';
import { delivery, gateFailed, grade } from './synthetic-grades.js';

const run = { id: 'run-1', startedAt: '2025-01-02T03:04:05.000Z', sandbox: 'docker' as const, version: '0.1.0' };
const base = {
  id: 'csv-report',
  family: 'creation' as const,
  split: 'heldout' as const,
  delivery,
  passRule: { minResult: 60 },
};

describe('summarizeCommission', () => {
  test('Result over scored cases; infra errors dropped and counted, unscored counted not scored', () => {
    const s = summarizeCommission({
      ...base,
      cases: [
        grade({ id: 'a', result: 90 }),
        grade({ id: 'b', result: 40 }),
        gateFailed('c', 'error-exit'),
        grade({ id: 'd', status: 'unscored', result: null, passed: false, reason: 'judge-error' }),
        grade({ id: 'e', status: 'infra-error', result: null, passed: false, reason: 'docker died' }),
      ],
    });
    expect(s.result.mean).toBeCloseTo(130 / 3, 12);
    expect(s.result.median).toBe(40);
    expect(s.result.n).toBe(3);
    expect(s.result.unscored).toBe(1);
    expect(s.result.infraErrors).toBe(1);
    const [lo, hi] = s.result.ci95!;
    expect(lo).toBeLessThanOrEqual(s.result.mean!);
    expect(hi).toBeGreaterThanOrEqual(s.result.mean!);
    expect(s.passHatK).toEqual({ '1': 1 / 3 });
    expect(s.cases.map((c) => [c.id, c.passed])).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
      ['d', false],
      ['e', false],
    ]);
    expect(Object.keys(s.cases[0]).sort()).toEqual(
      expect.arrayContaining([
        'id',
        'trial',
        'status',
        'gate',
        'result',
        'passed',
        'dimensions',
        'ceilings',
        'wallMs',
        'modelCalls',
        'tokens',
      ]),
    );
    expect(s.cases[0].dimensions.correctness).toEqual({ score: 60, max: 60, cap: null });
  });

  test('pass^k and pass@k for k = 1..max trials, null where a case has fewer than k', () => {
    const trials = (id: string, results: number[]) => results.map((r, i) => grade({ id, trial: i + 1, result: r }));
    const s = summarizeCommission({
      ...base,
      cases: [...trials('a', [90, 90, 10]), ...trials('b', [70, 80, 90]), ...trials('c', [10, 90])],
    });
    // a: 2 of 3, b: 3 of 3, c: 1 of 2.
    expect(s.passHatK['1']).toBeCloseTo((2 / 3 + 1 + 1 / 2) / 3, 12);
    expect(s.passHatK['2']).toBeCloseTo((1 / 3 + 1 + 0) / 3, 12);
    expect(s.passHatK['3']).toBeNull();
    expect(s.passAtK['2']).toBeCloseTo((1 + 1 + 1) / 3, 12);
    expect(s.passAtK['3']).toBeNull();
    expect(s.result.n).toBe(3);
    expect(s.result.trials).toBe(8);
    // Per-case means first: a 63.3, b 80, c 50.
    expect(s.result.mean).toBeCloseTo((190 / 3 + 80 + 50) / 3, 12);
  });

  test('a case the grader did not pass is not a success even above the pass score', () => {
    const s = summarizeCommission({ ...base, cases: [grade({ id: 'a', result: 95, passed: false })] });
    expect(s.passHatK['1']).toBe(0);
    expect(s.cases[0].passed).toBe(false);
  });

  test('failure modes count gates, ceilings, contradicted claims and a silent model', () => {
    const s = summarizeCommission({
      ...base,
      hardCodedDevStrings: ['ACME-2231'],
      cases: [
        grade({ id: 'a', modelCalls: 0, ceilingHit: true, ceilingSet: true, claimsContradicted: ['all rows parsed'] }),
        grade({ id: 'b', modelCalls: 0, ceilingHit: true }),
        gateFailed('c', 'error-exit', { modelCalls: 0 }),
        gateFailed('d', 'timeout', { modelCalls: 0 }),
        gateFailed('e', 'missing-artifact', { modelCalls: 0 }),
        gateFailed('f', 'oom', { modelCalls: 0 }),
        grade({ id: 'g', status: 'infra-error', result: null, modelCalls: 7 }),
      ],
    });
    expect(s.failureModes).toMatchObject({
      graded: 2,
      errorExit: 1,
      timeout: 1,
      otherGate: 2,
      ceilingHit: 2,
      ceilingSet: 1,
      hardCodedDevStrings: ['ACME-2231'],
      noModelCalls: true,
      claimsContradicted: 1,
      executions: 7,
      infraError: 1,
      gates: { 'error-exit': 1, timeout: 1, 'missing-artifact': 1, oom: 1 },
    });
    const withCalls = summarizeCommission({
      ...base,
      cases: [grade({ id: 'a', modelCalls: 0 }), grade({ id: 'b', modelCalls: 1 })],
    });
    expect(withCalls.failureModes.noModelCalls).toBe(false);
  });

  test('optimization: J0/J1 on the shared instances, gap closure, W/L/T and the sign test', () => {
    const candidate = [
      grade({ id: 'a', result: 50 }),
      grade({ id: 'b', result: 30 }),
      grade({ id: 'c', result: 20 }),
      grade({ id: 'x', result: 99 }),
    ];
    const starter = [grade({ id: 'a', result: 10 }), grade({ id: 'b', result: 30 }), grade({ id: 'c', result: 30 })];
    const s = summarizeCommission({ ...base, family: 'optimization', cases: candidate, optimization: { starter } });
    const j0 = 70 / 3;
    const j1 = 100 / 3;
    expect(s.optimization).toMatchObject({ wins: 1, losses: 1, ties: 1, signTestP: signTest(1, 1) });
    expect(s.optimization!.j0).toBeCloseTo(j0, 12);
    expect(s.optimization!.j1).toBeCloseTo(j1, 12);
    expect(s.optimization!.delta).toBeCloseTo(j1 - j0, 12);
    expect(s.optimization!.S).toBeCloseTo(gapClosure(j0, j1).S, 12);
    expect(summarizeCommission({ ...base, cases: candidate }).optimization).toBeNull();
  });

  test('gap from a given dev mean, and computeGaps pairs dev and held-out of the same digest only', () => {
    expect(summarizeCommission({ ...base, devMean: 90, cases: [grade({ id: 'a', result: 70 })] }).gap).toBeCloseTo(
      20,
      12,
    );
    const held = summarizeCommission({ ...base, cases: [grade({ id: 'h', result: 40 })] });
    const dev = summarizeCommission({ ...base, split: 'dev', cases: [grade({ id: 'd', result: 100, split: 'dev' })] });
    const other = summarizeCommission({
      ...base,
      delivery: { ...delivery, digest: 'sha256:bbbb' },
      cases: [grade({ id: 'h', result: 10 })],
    });
    const [g1, g2, g3] = computeGaps([held, dev, other]);
    expect(g1.gap).toBe(60);
    expect(g2.gap).toBe(60);
    expect(g3.gap).toBeNull();
    expect(held.gap).toBeNull();
  });

  test('no cases at all gives nulls, not NaN', () => {
    const s = summarizeCommission({ ...base, cases: [] });
    expect(s.result).toMatchObject({ mean: null, median: null, ci95: null, n: 0, unscored: 0 });
    expect(s.passHatK).toEqual({ '1': null });
    expect(summarySchema.safeParse(buildSummary({ run, commissions: [s] })).success).toBe(true);
  });

  const arbGrade = fc
    .record({
      id: fc.constantFrom('a', 'b', 'c', 'd'),
      trial: fc.integer({ min: 1, max: 3 }),
      result: fc.integer({ min: 0, max: 100 }),
      kind: fc.constantFrom('graded', 'graded', 'gate', 'unscored', 'infra'),
    })
    .map(({ id, trial, result, kind }) =>
      kind === 'gate'
        ? gateFailed(id, 'timeout', { trial })
        : kind === 'graded'
          ? grade({ id, trial, result })
          : grade({ id, trial, result: null, passed: false, status: kind === 'infra' ? 'infra-error' : 'unscored' }),
    );
  const uniqueGrades = fc.uniqueArray(arbGrade, { selector: (g) => `${g.id}#${g.trial}`, maxLength: 12 });

  test.prop([
    uniqueGrades.chain((gs) =>
      fc.tuple(fc.constant(gs), fc.shuffledSubarray(gs, { minLength: gs.length, maxLength: gs.length })),
    ),
  ])('is independent of the order gradings arrive in (shards merge to the same figures)', ([a, b]) => {
    expect(summarizeCommission({ ...base, cases: b })).toEqual(summarizeCommission({ ...base, cases: a }));
  });

  test.prop([uniqueGrades], { numRuns: 60 })('always yields a valid summary@2 with pass^k ≤ pass@k in [0, 1]', (gs) => {
    const s = summarizeCommission({ ...base, cases: gs });
    const doc = JSON.parse(JSON.stringify(buildSummary({ run, commissions: [s] })));
    expect(summarySchema.safeParse(doc).error).toBeUndefined();
    expectValidSummary(doc);
    const shares = Object.values(s.failureModes.shares) as (number | null)[];
    if (gs.length > 0) expect(shares.reduce((a: number, x) => a + (x ?? 0), 0)).toBeCloseTo(1, 9);
    for (const k of Object.keys(s.passHatK)) {
      const hat = s.passHatK[k];
      const at = s.passAtK[k];
      if (hat === null || at === null) {
        expect(hat).toBeNull();
        expect(at).toBeNull();
        continue;
      }
      expect(hat).toBeGreaterThanOrEqual(0);
      expect(at).toBeLessThanOrEqual(1);
      expect(hat).toBeLessThanOrEqual(at + 1e-12);
    }
  });
});

describe('summarySchema', () => {
  test('accepts a built summary and rejects one missing or renaming a §14 field', () => {
    const s = summarizeCommission({ ...base, cases: [grade({ id: 'a' }), gateFailed('b', 'error-exit')] });
    const doc = JSON.parse(JSON.stringify(buildSummary({ run, commissions: [s] })));
    expect(doc.schema).toBe('heldout/summary@2');
    expect(summarySchema.safeParse(doc).success).toBe(true);
    expectValidSummary(doc);

    const missing = structuredClone(doc);
    delete missing.commissions[0].result.unscored;
    expect(summarySchema.safeParse(missing).success).toBe(false);

    const renamed = structuredClone(doc);
    renamed.commissions[0].passHatK = undefined;
    renamed.commissions[0].passHat = { '1': 1 };
    expect(summarySchema.safeParse(renamed).success).toBe(false);

    const badGate = structuredClone(doc);
    badGate.commissions[0].cases[1].gate = 'crashed';
    expect(summarySchema.safeParse(badGate).success).toBe(false);
  });
});

describe('family scores (DESIGN §5)', () => {
  test('the macro mean of commission Results, their median, and a stratified CI that a re-read document reproduces', () => {
    const a = summarizeCommission({
      ...base,
      id: 'a',
      cases: [10, 30, 50, 70, 90].map((r, i) => grade({ id: `a${i}`, result: r })),
    });
    const b = summarizeCommission({
      ...base,
      id: 'b',
      cases: [grade({ id: 'b0', result: 100 }), grade({ id: 'b1', result: 0 })],
    });
    const s = buildSummary({ run, commissions: [a, b] });
    const [f] = s.families;
    expect(f).toMatchObject({ family: 'creation', delivery: 'reference', split: 'heldout', commissions: ['a', 'b'] });
    expect(f.mean).toBe((50 + 50) / 2);
    expect(f.median).toBe(50);
    const [lo, hi] = f.ci95!;
    expect(lo).toBeLessThanOrEqual(50);
    expect(hi).toBeGreaterThanOrEqual(50);
    // The macro interval is narrower than commission b's own (its two cases are 0 and 100): a is averaged in.
    expect(hi - lo).toBeLessThan(b.result.ci95![1] - b.result.ci95![0]);
    // Read back from JSON (no draws kept), the same families come out: the draws are redrawn with the same seeds.
    const reread = migrateSummary(JSON.parse(JSON.stringify(s)));
    expect(reread.families).toEqual(s.families);
  });
});
