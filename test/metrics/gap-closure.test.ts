import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { gapClosure } from '../../src/metrics/index.js';

describe('gapClosure', () => {
  test('reproduces the DESIGN §5 checks', () => {
    const a = gapClosure(4, 35);
    expect(a.S.toFixed(1)).toBe('32.3');
    expect(a.gamma).toBeCloseTo(31 / 96, 15);
    expect(gapClosure(50, 25).S).toBeCloseTo(-50, 12);
    expect(gapClosure(2.5, 2.5)).toEqual({ gamma: 0, S: 0 });
    expect(gapClosure(100, 100)).toEqual({ gamma: 0, S: 0 });
    expect(gapClosure(100, 40)).toEqual({ gamma: 0, S: 0 });
    expect(gapClosure(0, 100)).toEqual({ gamma: 1, S: 100 });
  });

  test('rejects non-finite scores and J0 above 100', () => {
    expect(() => gapClosure(Number.NaN, 1)).toThrow(RangeError);
    expect(() => gapClosure(101, 1)).toThrow(RangeError);
  });

  test.prop([fc.double({ min: 0, max: 100, noNaN: true }), fc.double({ min: -100, max: 200, noNaN: true })])(
    'γ ≤ 1, S = 100γ, and the sign of S follows J1 − J0',
    (j0, j1) => {
      const { gamma, S } = gapClosure(j0, j1);
      expect(gamma).toBeLessThanOrEqual(1);
      expect(S).toBeCloseTo(100 * gamma, 9);
      // Non-strict: a subnormal difference may round to 0.
      if (j0 < 100 && j1 >= j0) expect(gamma).toBeGreaterThanOrEqual(0);
      if (j0 < 100 && j1 <= j0) expect(gamma).toBeLessThanOrEqual(0);
      if (j0 < 100 && j1 - j0 > 1e-6) expect(gamma).toBeGreaterThan(0);
    },
  );
});
