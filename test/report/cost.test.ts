// Cost across cases (issue 34), pure: a case's parts from its ledgers, null (never 0) once an unpriced model was
// called, and the entry's and run's sums, null-propagating, with the unpriced models named.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { LedgerEntry } from '../../src/gateway/index.js';
import { formatUsd, sumCosts } from '../../src/report/cost.js';
import { caseCost } from '../../src/run/case-cost.js';

const TABLE = { source: 'p.yaml', models: {} };
const line = (costUsd: number | null | undefined, model = 'm') => ({ model, costUsd }) as unknown as LedgerEntry;
const part = fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: null, freq: 4 });
const cost = fc.record({ delivery: part, user: part, judge: part }).map((c) => ({
  ...c,
  total: c.delivery === null || c.user === null || c.judge === null ? null : c.delivery + c.user + c.judge,
}));

describe('caseCost', () => {
  test('the delivery, user simulator and judge apart; an unpriced call makes its part and the total null and names the model', () => {
    const d = [line(0.5), line(0.25)];
    expect(caseCost(TABLE, d, [line(0.125)], { model: 'j', costUsd: 1 })).toEqual({
      delivery: 0.75,
      user: 0.125,
      judge: 1,
      total: 1.875,
    });
    expect(caseCost(TABLE, [line(0.5), line(null, 'x-model')], [], null)).toEqual({
      delivery: null,
      user: 0,
      judge: 0,
      total: null,
      unpriced: ['x-model'],
    });
    expect(caseCost(TABLE, [], [], { model: 'judge-model', costUsd: null })).toMatchObject({
      judge: null,
      total: null,
      unpriced: ['judge-model'],
    });
    // without a table nothing is claimed
    expect(caseCost(null, d, [], null)).toBeUndefined();
  });
});

describe('sumCosts', () => {
  test.prop([fc.array(fc.option(cost, { nil: undefined }), { maxLength: 20 })])(
    'each part is the sum of the cases’ parts, null as soon as one is; undefined when no case was priced',
    (costs) => {
      const s = sumCosts(costs);
      const priced = costs.filter((c) => c !== undefined);
      if (priced.length === 0) {
        expect(s).toBeUndefined();
        return;
      }
      for (const p of ['delivery', 'user', 'judge', 'total'] as const) {
        const parts = priced.map((c) => c[p]);
        if (parts.includes(null)) expect(s![p]).toBeNull();
        else expect(s![p]).toBeCloseTo(parts.reduce((a, b) => a! + b!, 0)!, 9);
      }
    },
  );

  test('unpriced models are the union, sorted; formatUsd shows ? for null, never $0', () => {
    const a = { delivery: null, user: 0, judge: 0, total: null, unpriced: ['b'] };
    const b = { delivery: 1, user: 0, judge: 0, total: 1, unpriced: ['a', 'b'] };
    expect(sumCosts([a, b])?.unpriced).toEqual(['a', 'b']);
    expect(formatUsd(null)).toBe('?');
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.000036)).toBe('$0.0000360');
    expect(formatUsd(12.345)).toBe('$12.35');
  });
});
