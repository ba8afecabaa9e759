import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { bootstrapCI, macroMean, mean, median } from '../../src/metrics/index.js';

const scores = fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 2, maxLength: 80 });

describe('mean, median, macroMean', () => {
  test('basic values and empty input', () => {
    expect(mean([1, 2, 3, 6])).toBe(3);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(mean([])).toBeNull();
    expect(median([])).toBeNull();
    expect(macroMean([[100, 100, 100, 100], [0], []])).toBe(50);
    expect(macroMean([])).toBeNull();
  });
});

describe('bootstrapCI', () => {
  test('degenerate input', () => {
    expect(bootstrapCI([], { seed: 1 })).toBeNull();
    expect(bootstrapCI([42], { seed: 1 })).toEqual([42, 42]);
    expect(bootstrapCI([7, 7, 7], { seed: 1 })).toEqual([7, 7]);
  });

  test('a wider level gives a wider interval; different seeds can differ', () => {
    const xs = Array.from({ length: 50 }, (_, i) => (i * 37) % 101);
    const [a, b] = bootstrapCI(xs, { seed: 'run-1', level: 0.5 }) as [number, number];
    const [c, d] = bootstrapCI(xs, { seed: 'run-1', level: 0.99 }) as [number, number];
    expect(c).toBeLessThanOrEqual(a);
    expect(d).toBeGreaterThanOrEqual(b);
    expect(bootstrapCI(xs, { seed: 1 })).not.toEqual(bootstrapCI(xs, { seed: 2 }));
  });

  test('for a large sample the 95 % interval is close to mean ± 1.96·SE', () => {
    const xs = Array.from({ length: 400 }, (_, i) => (i * 7919) % 100);
    const m = mean(xs) as number;
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length);
    const [lo, hi] = bootstrapCI(xs, { seed: 3 }) as [number, number];
    const half = (1.96 * sd) / Math.sqrt(xs.length);
    expect(lo).toBeCloseTo(m - half, 0);
    expect(hi).toBeCloseTo(m + half, 0);
  });

  test('drawing multinomial counts matches drawing indices in distribution', () => {
    const xs = Array.from({ length: 3000 }, (_, i) => ((i * 7919) % 11) * 10);
    const direct = bootstrapCI(xs, { seed: 5, method: 'direct' }) as [number, number];
    const counts = bootstrapCI(xs, { seed: 5, method: 'counts' }) as [number, number];
    expect(counts[0]).toBeCloseTo(direct[0], 0);
    expect(counts[1]).toBeCloseTo(direct[1], 0);
    // Two values: resample means of 2 draws are 0, 50, 100 with mass ¼, ½, ¼.
    expect(bootstrapCI([0, 100], { seed: 1, method: 'counts' })).toEqual([0, 100]);
    expect(bootstrapCI([0, 100], { seed: 1, method: 'counts', level: 0.4 })).toEqual([50, 50]);
  });

  test.prop([fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 2, maxLength: 200 }), fc.integer()])(
    'the counts method keeps lo ≤ mean ≤ hi and is seeded',
    (xs, seed) => {
      const ci = bootstrapCI(xs, { seed, resamples: 300, method: 'counts' }) as [number, number];
      const m = mean(xs) as number;
      expect(ci[0]).toBeLessThanOrEqual(m + 1e-9);
      expect(ci[1]).toBeGreaterThanOrEqual(m - 1e-9);
      expect(Math.min(...xs)).toBeLessThanOrEqual(ci[0]);
      expect(ci[1]).toBeLessThanOrEqual(Math.max(...xs));
      expect(bootstrapCI(xs, { seed, resamples: 300, method: 'counts' })).toEqual(ci);
    },
  );

  test.prop([scores, fc.integer()])('lo ≤ mean ≤ hi, and the same seed gives the same interval', (xs, seed) => {
    const ci = bootstrapCI(xs, { seed, resamples: 400 }) as [number, number];
    const m = mean(xs) as number;
    expect(ci[0]).toBeLessThanOrEqual(m + 1e-9);
    expect(ci[1]).toBeGreaterThanOrEqual(m - 1e-9);
    expect(bootstrapCI(xs, { seed, resamples: 400 })).toEqual(ci);
  });
});
