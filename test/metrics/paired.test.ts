import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  bootstrapCI,
  bootstrapMeans,
  macroMean,
  pairedDifference,
  signTest,
  stratifiedBootstrapCI,
} from '../../src/metrics/index.js';

const score = fc.integer({ min: 0, max: 100 });
const pairs = fc.array(fc.record({ a: score, b: score }), { minLength: 1, maxLength: 60 });

describe('pairedDifference', () => {
  test('identical sides: no difference, p = 1, a zero-width interval at 0', () => {
    const d = pairedDifference(
      [10, 50, 100].map((x) => ({ a: x, b: x })),
      { seed: 1 },
    );
    expect(d).toEqual({
      n: 3,
      wins: 0,
      losses: 0,
      ties: 3,
      meanDiff: 0,
      ci95: [0, 0],
      signTestP: 1,
      verdict: 'no-difference',
    });
  });

  test('no pairs: nothing shown to differ', () => {
    expect(pairedDifference([], { seed: 1 })).toMatchObject({
      n: 0,
      meanDiff: null,
      ci95: null,
      verdict: 'no-difference',
    });
  });

  test('a uniform drop on every instance is worse, and significant by the sign test', () => {
    const d = pairedDifference(
      Array.from({ length: 12 }, (_, i) => ({ a: 90 + (i % 3), b: 40 + (i % 5) })),
      { seed: 'x' },
    );
    expect(d.verdict).toBe('worse');
    expect(d.losses).toBe(12);
    expect(d.signTestP).toBeCloseTo(2 / 2 ** 12, 12);
  });

  test.prop([pairs, fc.integer()])('W/L/T, the mean and the sign test equal a direct count', (ps, seed) => {
    const d = pairedDifference(ps, { seed, resamples: 200 });
    const wins = ps.filter((p) => p.b > p.a).length;
    const losses = ps.filter((p) => p.b < p.a).length;
    expect([d.wins, d.losses, d.ties]).toEqual([wins, losses, ps.length - wins - losses]);
    expect(d.meanDiff).toBeCloseTo(ps.reduce((s, p) => s + p.b - p.a, 0) / ps.length, 9);
    expect(d.signTestP).toBe(signTest(wins, losses));
    expect(d.ci95![0]).toBeLessThanOrEqual(d.meanDiff! + 1e-9);
    expect(d.ci95![1]).toBeGreaterThanOrEqual(d.meanDiff! - 1e-9);
    // The interval is the percentile bootstrap of the differences themselves: a paired bootstrap.
    expect(d.ci95).toEqual(
      bootstrapCI(
        ps.map((p) => p.b - p.a),
        { seed, resamples: 200 },
      ),
    );
  });

  test.prop([pairs])('swapping the sides swaps wins and losses and keeps p', (ps) => {
    const d = pairedDifference(ps, { seed: 3, resamples: 200 });
    const s = pairedDifference(
      ps.map((p) => ({ a: p.b, b: p.a })),
      { seed: 3, resamples: 200 },
    );
    expect([s.wins, s.losses, s.ties]).toEqual([d.losses, d.wins, d.ties]);
    expect(s.signTestP).toBe(d.signTestP);
    expect(s.meanDiff).toBeCloseTo(-d.meanDiff!, 9);
    if (d.verdict === 'worse') expect(s.verdict).not.toBe('worse');
  });
});

describe('stratifiedBootstrapCI (a macro mean)', () => {
  const groups = fc.array(fc.array(score, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 5 });

  test('one group is exactly the bootstrap of that group; no values give null', () => {
    const xs = [10, 20, 90, 40];
    expect(stratifiedBootstrapCI([xs, []], { seed: 'f' })).toEqual(bootstrapCI(xs, { seed: 'f' }));
    expect(stratifiedBootstrapCI([[], []], { seed: 'f' })).toBeNull();
  });

  test('constant groups give a zero-width interval at the macro mean, not the pooled mean', () => {
    const ci = stratifiedBootstrapCI([[100, 100, 100, 100], [0]], { seed: 1 });
    expect(ci).toEqual([50, 50]);
  });

  test.prop([groups, fc.integer()])('the interval holds the macro mean and is seeded', (gs, seed) => {
    const ci = stratifiedBootstrapCI(gs, { seed, resamples: 300 }) as [number, number];
    const m = macroMean(gs) as number;
    expect(ci[0]).toBeLessThanOrEqual(m + 1e-9);
    expect(ci[1]).toBeGreaterThanOrEqual(m - 1e-9);
    expect(stratifiedBootstrapCI(gs, { seed, resamples: 300 })).toEqual(ci);
  });

  test.prop([fc.array(score, { minLength: 2, maxLength: 40 }), fc.integer()])(
    "bootstrapCI's percentiles are those of bootstrapMeans' draws",
    (xs, seed) => {
      const draws = bootstrapMeans(xs, { seed, resamples: 101 }).sort();
      // 101 draws: the 2.5 % and 97.5 % points fall halfway between draws 2 and 3, and 97 and 98 (type 7).
      const [lo, hi] = bootstrapCI(xs, { seed, resamples: 101 }) as [number, number];
      expect(lo).toBeCloseTo((draws[2] + draws[3]) / 2, 9);
      expect(hi).toBeCloseTo((draws[97] + draws[98]) / 2, 9);
    },
  );
});
