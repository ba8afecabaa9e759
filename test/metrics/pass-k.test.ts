import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { passAtK, passAtKOverCases, passHatK, passHatKOverCases } from '../../src/metrics/index.js';

/** n trials, c successes, k ≤ n. */
const trials = fc
  .integer({ min: 1, max: 60 })
  .chain((n) => fc.record({ n: fc.constant(n), c: fc.integer({ min: 0, max: n }), k: fc.integer({ min: 1, max: n }) }));

function binom(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

describe('pass^k and pass@k', () => {
  test('worked values match the binomial definitions', () => {
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
    expect(passAtK(4, 2, 2)).toBeCloseTo(1 - 1 / 6, 12);
    expect(passHatK(5, 5, 3)).toBe(1);
    expect(passHatK(5, 2, 3)).toBe(0);
    expect(passAtK(5, 3, 3)).toBe(1);
    expect(passAtK(5, 0, 1)).toBe(0);
    expect(passHatK(1, 1, 1)).toBe(1);
  });

  test('fewer trials than k gives null', () => {
    expect(passHatK(2, 2, 3)).toBeNull();
    expect(passAtK(2, 1, 3)).toBeNull();
    expect(
      passHatKOverCases(
        [
          { n: 3, c: 3 },
          { n: 1, c: 1 },
        ],
        2,
      ),
    ).toBeNull();
    expect(passHatKOverCases([], 1)).toBeNull();
  });

  test('stays finite for many trials where factorials overflow', () => {
    const v = passHatK(2000, 1900, 50) as number;
    expect(v).toBeGreaterThan(0);
    expect(v).toBeLessThan(1);
    expect(Number.isFinite(v)).toBe(true);
  });

  test('rejects impossible arguments', () => {
    expect(() => passHatK(3, 4, 1)).toThrow(RangeError);
    expect(() => passAtK(3, 1.5, 1)).toThrow(RangeError);
  });

  test.prop([trials])('agree with C(c,k)/C(n,k) and 1 − C(n−c,k)/C(n,k)', ({ n, c, k }) => {
    expect(passHatK(n, c, k)).toBeCloseTo(binom(c, k) / binom(n, k), 9);
    expect(passAtK(n, c, k)).toBeCloseTo(1 - binom(n - c, k) / binom(n, k), 9);
  });

  test.prop([trials])('pass^k ≤ pass@k, both in [0, 1]', ({ n, c, k }) => {
    const hat = passHatK(n, c, k) as number;
    const at = passAtK(n, c, k) as number;
    expect(hat).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThanOrEqual(1);
    expect(hat).toBeLessThanOrEqual(at + 1e-12);
  });

  test.prop([trials])('pass^k is non-increasing in k and non-decreasing in c', ({ n, c, k }) => {
    const here = passHatK(n, c, k) as number;
    if (k < n) expect(passHatK(n, c, k + 1) as number).toBeLessThanOrEqual(here + 1e-12);
    if (c < n) expect(passHatK(n, c + 1, k) as number).toBeGreaterThanOrEqual(here - 1e-12);
  });

  test.prop([
    fc.array(
      fc.integer({ min: 1, max: 10 }).chain((n) => fc.record({ n: fc.constant(n), c: fc.integer({ min: 0, max: n }) })),
      { minLength: 1 },
    ),
  ])('over cases is the mean of per-case values when every case has k trials', (cases) => {
    const k = Math.min(...cases.map((x) => x.n));
    const expected = cases.reduce((s, x) => s + (passHatK(x.n, x.c, k) as number), 0) / cases.length;
    expect(passHatKOverCases(cases, k)).toBeCloseTo(expected, 12);
    expect(passHatKOverCases(cases, k) as number).toBeLessThanOrEqual((passAtKOverCases(cases, k) as number) + 1e-12);
  });
});
