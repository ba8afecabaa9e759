import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { type ScoreCaseInput, scoreCase } from '../../src/grading/index.js';

// Dimensions whose maxima sum to 100, with earned points (possibly out of range), caps and total ceilings.
const arbInput: fc.Arbitrary<ScoreCaseInput> = fc
  .array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 })
  .map((ws) => {
    const sum = ws.reduce((a, b) => a + b, 0);
    const maxes = ws.map((w) => Math.floor((w / sum) * 100));
    maxes[0]! += 100 - maxes.reduce((a, b) => a + b, 0);
    return maxes.map((max, i) => ({ id: `d${i}`, max: Math.max(0, max) }));
  })
  .chain((dimensions) =>
    fc.record({
      dimensions: fc.constant(dimensions),
      gatesPassed: fc.boolean(),
      earned: fc
        .tuple(...dimensions.map(() => fc.double({ min: -20, max: 120, noNaN: true })))
        .map((xs) => Object.fromEntries(xs.map((x, i) => [dimensions[i]!.id, x]))),
      dimensionCaps: fc.array(
        fc.record({
          dimension: fc.constantFrom(...dimensions.map((d) => d.id)),
          max: fc.integer({ min: 0, max: 50 }),
          reason: fc.constant('cap'),
        }),
        { maxLength: 6 },
      ),
      totalCaps: fc.array(fc.record({ max: fc.integer({ min: 0, max: 100 }), reason: fc.constant('total') }), {
        maxLength: 3,
      }),
    }),
  );

describe('scoreCase properties', () => {
  test.prop([arbInput])('never above an applicable cap, a total ceiling, a maximum or 100', (input) => {
    const out = scoreCase(input);
    expect(out.result).toBeLessThanOrEqual(100);
    expect(out.result).toBeGreaterThanOrEqual(0);
    for (const t of input.totalCaps) expect(out.result).toBeLessThanOrEqual(t.max);
    for (const c of input.dimensionCaps) expect(out.dimensions[c.dimension]!.score).toBeLessThanOrEqual(c.max);
    for (const d of input.dimensions) expect(out.dimensions[d.id]!.score).toBeLessThanOrEqual(d.max);
  });

  test.prop([arbInput])('0 when a gate fails', (input) => {
    expect(scoreCase({ ...input, gatesPassed: false }).result).toBe(0);
  });

  test.prop([arbInput, fc.nat({ max: 5 }), fc.double({ min: 0, max: 50, noNaN: true })])(
    'monotone in the points earned',
    (input, which, extra) => {
      const d = input.dimensions[which % input.dimensions.length]!;
      const more = { ...input.earned, [d.id]: (input.earned[d.id] ?? 0) + extra };
      expect(scoreCase({ ...input, earned: more }).result).toBeGreaterThanOrEqual(scoreCase(input).result);
    },
  );

  test.prop([arbInput])('ceilingSet implies ceilingHit, and the Result then equals a total ceiling', (input) => {
    const out = scoreCase(input);
    if (out.ceilingSet) {
      expect(out.ceilingHit).toBe(true);
      expect(input.totalCaps.map((c) => c.max)).toContain(out.result);
    }
  });

  test.prop([arbInput])('without any ceiling the Result is the clamped sum and nothing is hit', (input) => {
    const out = scoreCase({ ...input, gatesPassed: true, dimensionCaps: [], totalCaps: [] });
    const sum = input.dimensions.reduce((s, d) => s + Math.min(d.max, Math.max(0, input.earned[d.id] ?? 0)), 0);
    expect(out.result).toBeCloseTo(Math.min(100, sum), 9);
    expect(out.ceilingHit).toBe(false);
  });
});
