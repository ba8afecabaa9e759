/**
 * Issue 34's pure rules: which recorded cases `--resume --retry` keeps, how attempts accumulate, what counts as
 * flaky across `--repeat` rounds, and the run-to-run noise of an entry.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CASE_STATUSES, GATE_CATEGORIES } from '../../src/grading/index.js';
import { isFlaky, noiseOf } from '../../src/report/flaky.js';
import {
  type CaseAttempt,
  type CaseMeta,
  classesOf,
  keepsRecord,
  parseRetryClasses,
  RETRY_CLASSES,
  withAttempts,
} from '../../src/run/index.js';

const verdict = fc.record({
  runId: fc.constantFrom('r1', 'r2', 'r3'),
  status: fc.constantFrom(...CASE_STATUSES),
  gate: fc.option(fc.constantFrom(...GATE_CATEGORIES), { nil: null }),
  result: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
  passed: fc.boolean(),
  reason: fc.constant(null),
}) satisfies fc.Arbitrary<CaseAttempt>;

/** A record as far as the retry rules read it. */
const record = (v: CaseAttempt, digest = 'sha256:a', extra: Partial<CaseMeta> = {}): CaseMeta =>
  ({
    runId: v.runId,
    commission: { minResult: 80 },
    delivery: { digest },
    grade: { id: 'c', trial: 1, status: v.status, gate: v.gate, result: v.result, passed: v.passed, reason: v.reason },
    ...extra,
  }) as unknown as CaseMeta;

describe('retry classes', () => {
  test('every case status but graded and every gate category is a class; a typo is refused with the list', () => {
    expect(RETRY_CLASSES).toEqual(expect.arrayContaining([...GATE_CATEGORIES, 'infra-error', 'unscored', 'failed']));
    expect(RETRY_CLASSES).not.toContain('graded');
    expect(parseRetryClasses(['infra-error,timeout', 'timeout'])).toEqual(['infra-error', 'timeout']);
    expect(() => parseRetryClasses(['timeout,timeouts'])).toThrow(/unknown failure class "timeouts"; the classes are/);
    expect(() => parseRetryClasses([','])).toThrow(/name at least one failure class/);
  });

  test('a record is kept exactly when it is of the same digest, not refused and in no class retried', () => {
    fc.assert(
      fc.property(verdict, fc.subarray([...RETRY_CLASSES]), fc.boolean(), fc.boolean(), (v, retry, same, refused) => {
        const r = record(v, same ? 'sha256:a' : 'sha256:b', refused ? { refused: 'changed' } : {});
        const expected = same && !refused && !classesOf(r).some((c) => retry.includes(c));
        expect(keepsRecord(r, 'sha256:a', retry)).toBe(expected);
      }),
    );
    expect(keepsRecord(null, 'sha256:a', ['timeout'])).toBe(false);
  });

  test('by default only infrastructure losses run again', () => {
    fc.assert(
      fc.property(verdict, (v) => {
        expect(keepsRecord(record(v), 'sha256:a')).toBe(v.status !== 'infra-error');
      }),
    );
  });

  test('a graded case below the pass rule is `failed`, a passing one in no class', () => {
    const base = { runId: 'r', status: 'graded' as const, gate: null, reason: null };
    expect(classesOf(record({ ...base, result: 100, passed: true }))).toEqual([]);
    expect(classesOf(record({ ...base, result: 70, passed: true }))).toEqual(['failed']);
    expect(classesOf(record({ ...base, status: 'gate-failed', gate: 'timeout', result: 0, passed: false }))).toEqual([
      'gate-failed',
      'timeout',
    ]);
  });

  test('attempts accumulate oldest first, one per rerun of the same delivery, and none across deliveries', () => {
    fc.assert(
      fc.property(fc.array(verdict, { minLength: 1, maxLength: 6 }), (runs) => {
        let kept: CaseMeta | null = null;
        for (const v of runs) kept = withAttempts(record(v), kept);
        expect(kept!.attempts ?? []).toEqual(runs.slice(0, -1).map((v) => ({ ...v, reason: null })));
        expect(withAttempts(record(runs[0]!, 'sha256:b'), kept).attempts).toBeUndefined();
      }),
    );
  });
});

describe('flaky and noise', () => {
  test('flaky exactly when two rounds differ in status or in meeting the pass rule', () => {
    fc.assert(
      fc.property(fc.array(verdict, { minLength: 1, maxLength: 5 }), (rounds) => {
        const key = (v: CaseAttempt) => `${v.status}/${v.status === 'graded' && v.passed && (v.result ?? 0) >= 80}`;
        expect(isFlaky(rounds, 80)).toBe(new Set(rounds.map(key)).size > 1);
      }),
    );
  });

  test("noise is the range and spread of the rounds' means; identical rounds have none", () => {
    fc.assert(
      fc.property(fc.array(fc.array(verdict, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 6 }), (rs) => {
        const n = noiseOf(rs.map((repeats) => ({ repeats })))!;
        expect(n.rounds).toBe(2);
        const known = n.means.filter((m) => m !== null) as number[];
        if (known.length < 2) expect(n.range).toBeNull();
        else expect(n.range).toBeCloseTo(Math.max(...known) - Math.min(...known), 9);
        const same = noiseOf(rs.map(([v]) => ({ repeats: [v!, v!] })))!;
        if (same.range !== null) expect(same.range).toBe(0);
      }),
    );
    expect(noiseOf([{ repeats: [] }])).toBeNull();
  });
});
