import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { evaluateGate, gateMessages } from '../../src/report/index.js';
import { gateTests } from '../../src/vitest/junit-gate.js';

const entry = (id: string, mean: number) =>
  ({
    id,
    split: 'heldout',
    delivery: { path: `/d/${id}`, digest: 'sha256:x', frozen: false, label: 'cand', role: 'candidate' },
    result: { mean },
    passHatK: { 1: 0.5 },
    gap: null,
  }) as any;

const partial = (shard: string | null) =>
  ({ reason: shard ? `this is shard ${shard}` : '1 of 2 planned executions were not run', shard }) as any;

describe("the gate of a shard, and the gate's tests in Vitest's JUnit file", () => {
  test.prop([
    fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 6 }),
    fc.integer({ min: 0, max: 100 }),
  ])(
    'a shard defers (never fails, never not-evaluated); without a shard the same figures are judged',
    (means, minResult) => {
      const entries = means.map((m, i) => entry(`c${i}`, m));
      const shard = evaluateGate(entries, { minResult }, { partial: partial('1/2') });
      expect(shard.verdict).toBe('deferred');
      expect(gateMessages(shard)).toEqual([]);
      expect(gateTests(shard).filter((t) => t.state === 'fail')).toEqual([]);
      const whole = evaluateGate(entries, { minResult });
      const unmet = means.filter((m) => m < minResult).length;
      expect(whole.verdict).toBe(unmet > 0 ? 'fail' : 'pass');
      // Vitest's JUnit file fails exactly the unmet conditions, so it is red exactly when the gate is.
      expect(gateTests(whole).filter((t) => t.state === 'fail')).toHaveLength(unmet);
      expect(gateTests(whole)).toHaveLength(means.length);
    },
  );

  test('a filtered run is not evaluated and says so as a failed test; a shard with an ungraded case still fails', () => {
    const filtered = evaluateGate([entry('c0', 100)], { minResult: 50 }, { partial: partial(null) });
    expect(filtered.verdict).toBe('not-evaluated');
    expect(
      gateTests(filtered)
        .filter((t) => t.state === 'fail')
        .map((t) => t.name),
    ).toEqual(['gate evaluated']);
    const lost = evaluateGate([entry('c0', 100)], { minResult: 50 }, { partial: partial('2/2'), ungraded: 1 });
    expect(lost.verdict).toBe('fail');
    expect(
      gateTests(lost)
        .filter((t) => t.state === 'fail')
        .map((t) => t.name),
    ).toEqual(['run: graded']);
    expect(gateTests(evaluateGate([entry('c0', 100)], {}))).toEqual([]);
  });
});
