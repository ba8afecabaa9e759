import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { signTest, winLossTie } from '../../src/metrics/index.js';

/** Reference: the exact binomial tail by plain summation, fine for small n. */
function reference(w: number, l: number): number {
  const n = w + l;
  if (n === 0) return 1;
  let c = 1;
  let s = 0;
  for (let i = 0; i <= Math.min(w, l); i++) {
    s += c;
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * s) / 2 ** n);
}

describe('signTest', () => {
  test('DESIGN §5: 32/1 and 6/20 significant at 5 %, 7/17 and 12/13 not', () => {
    expect(signTest(32, 1)).toBeLessThan(0.05);
    expect(signTest(6, 20)).toBeLessThan(0.05);
    expect(signTest(7, 17)).toBeGreaterThan(0.05);
    expect(signTest(12, 13)).toBeGreaterThan(0.05);
    expect(signTest(0, 0)).toBe(1);
    expect(signTest(5, 5)).toBe(1);
    expect(signTest(0, 1)).toBe(1);
    expect(signTest(0, 5)).toBeCloseTo(2 / 32, 15);
  });

  test('stays exact and finite far beyond double-precision 2^n', () => {
    const p = signTest(1200, 1000);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-3);
    expect(signTest(5000, 5000)).toBeCloseTo(1, 12);
  });

  test.prop([fc.nat(60), fc.nat(60)])('matches direct summation', (w, l) => {
    expect(signTest(w, l)).toBeCloseTo(reference(w, l), 12);
  });

  test.prop([fc.nat(3000), fc.nat(3000)])('is symmetric in (W, L) and in [0, 1]', (w, l) => {
    const p = signTest(w, l);
    expect(p).toBe(signTest(l, w));
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThanOrEqual(1);
  });
});

describe('winLossTie', () => {
  test('counts per-instance wins, losses and ties', () => {
    expect(
      winLossTie([
        { candidate: 3, starter: 1 },
        { candidate: 1, starter: 3 },
        { candidate: 2, starter: 2 },
        { candidate: 0.1 + 0.2, starter: 0.3 },
      ]),
    ).toEqual({ wins: 1, losses: 1, ties: 2 });
  });
});
