// The pricing table's pure pieces: a bad file is refused in one line naming the file and the field; a call's cost
// never exceeds the price of its reservation when its tokens stay within it, never counts a cached token twice,
// and a long-context tier prices the whole call; cases sharing a run's usd budget stay within it plus one reservation.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { CaseBudget, RunPurse } from '../../src/gateway/budget.js';
import { costOf, type ModelPrice, pricingFrom, readPricing, reservationCost } from '../../src/gateway/pricing.js';

const rate = fc.double({ min: 0, max: 100, noNaN: true });
const price: fc.Arbitrary<ModelPrice> = fc.record(
  {
    input: rate,
    output: rate,
    cachedInput: rate,
    cacheWrite: rate,
    tiers: fc.array(
      fc.record({ above: fc.integer({ min: 0, max: 5000 }), input: rate, output: rate }, { requiredKeys: ['above'] }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ['input', 'output'] },
);
const tokens = fc.integer({ min: 0, max: 100_000 });

describe('costOf', () => {
  test.prop([price, tokens, tokens, tokens, tokens, tokens])(
    'within its reservation a call costs at most the reservation price; cached and written tokens are parts of the prompt',
    (p, prompt, output, cachedRaw, writtenRaw, slack) => {
      const cached = Math.min(cachedRaw, prompt);
      const usage = { promptTokens: prompt, completionTokens: output, totalTokens: prompt + output };
      const withCache = { ...usage, cacheReadTokens: cached, cacheWriteTokens: writtenRaw };
      const reserved = reservationCost(p, prompt, output + slack);
      expect(costOf(p, withCache)).toBeLessThanOrEqual(reserved * (1 + 1e-12) + 1e-15);
      expect(costOf(p, usage)).toBeGreaterThanOrEqual(0);
      // a provider reporting more cached tokens than prompt tokens is clamped, never priced twice
      const over = costOf(p, { ...usage, cacheReadTokens: prompt + 10 + cachedRaw });
      expect(over).toBeCloseTo(costOf(p, { ...usage, cacheReadTokens: prompt }), 12);
    },
  );

  test('above a tier the whole call takes its rates; missing rates fall back to the base', () => {
    const p: ModelPrice = {
      input: 1,
      output: 2,
      cachedInput: 0.5,
      tiers: [
        { above: 100, input: 3 },
        { above: 1000, input: 10, output: 20 },
      ],
    };
    const u = (prompt: number) => ({ promptTokens: prompt, completionTokens: 1e6, totalTokens: prompt + 1e6 });
    expect(costOf(p, u(100))).toBeCloseTo(100 / 1e6 + 2, 12);
    expect(costOf(p, u(101))).toBeCloseTo((101 * 3) / 1e6 + 2, 12);
    expect(costOf(p, u(1001))).toBeCloseTo((1001 * 10) / 1e6 + 20, 12);
    // the tier's cached rate is the base's when it names none
    expect(costOf(p, { ...u(200), cacheReadTokens: 200 })).toBeCloseTo((200 * 0.5) / 1e6 + 2, 12);
  });
});

describe('pricing file', () => {
  test('a bad file is refused in one line naming the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pricing-'));
    try {
      const file = join(dir, 'prices.yaml');
      const bad = (text: string) => {
        writeFileSync(file, text);
        return () => readPricing(file);
      };
      expect(bad('models:\n  m: { input: -1, output: 2 }\n')).toThrow(/^.*prices\.yaml: models\.m\.input: .+$/);
      expect(bad('models:\n  m: { input: 1 }\n')).toThrow(/prices\.yaml: models\.m\.output: /);
      expect(bad('models:\n  m: { input: 1, output: 1, cached: 1 }\n')).toThrow(/prices\.yaml: models\.m: .*cached/);
      expect(bad('models:\n  m: { input: 1, output: 1, tiers: [{ input: 2 }] }\n')).toThrow(
        /models\.m\.tiers\.0\.above/,
      );
      expect(bad('models: [\n')).toThrow(/^[^\n]*prices\.yaml: [^\n]+$/);
      expect(() => pricingFrom(null, 'x.json')).toThrow('x.json: (top level): ');
      writeFileSync(file, '{"models": {"gpt-x": {"input": 1.25, "output": 10, "cachedInput": 0.125}}}');
      expect(readPricing(file).models['gpt-x']).toEqual({ input: 1.25, output: 10, cachedInput: 0.125 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A step: a call of case `who` tries to start reserving `usd`, or the `pick`-th call in flight ends using `frac`. */
const step = fc.oneof(
  fc.record({ who: fc.nat(2), usd: fc.double({ min: 0, max: 0.5, noNaN: true }) }),
  fc.record({ pick: fc.nat(), frac: fc.double({ min: 0, max: 1, noNaN: true }) }),
);

describe('usd budgets of a case and of its run', () => {
  test.prop([fc.double({ min: 0.01, max: 3, noNaN: true }), fc.array(step, { maxLength: 200 })])(
    'three cases sharing a run: spent stays within the run budget plus one reservation; refused only for dollars spent',
    (limit, steps) => {
      const run = new RunPurse('r', limit);
      const cases = [0, 1, 2].map((i) => new CaseBudget(`c${i}`, 0, 'runtime', `t${i}`, {}, run));
      const inFlight: { who: number; usd: number }[] = [];
      let biggest = 0;
      for (const s of steps) {
        if ('usd' in s) {
          const a = cases[s.who]!.admit(0, s.usd);
          if ('refused' in a) expect(run.meter.settled).toBeGreaterThanOrEqual(limit);
          if (!('go' in a)) continue;
          biggest = Math.max(biggest, s.usd);
          inFlight.push({ who: s.who, usd: s.usd });
        } else if (inFlight.length > 0) {
          const [c] = inFlight.splice(s.pick % inFlight.length, 1);
          cases[c!.who]!.settle(0, 0, c!.usd, c!.usd * s.frac);
        }
        expect(run.meter.settled).toBeLessThanOrEqual(limit + biggest + 1e-9);
      }
    },
  );
});
