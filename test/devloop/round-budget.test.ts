import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { admitRound, emptyLedger, type Ledger, recordRound } from '../../src/devloop/index.js';
import { digestOf, entryArb } from './arbitraries.js';

const entry = (i: number) => ({
  digest: digestOf(i),
  devMean: 50,
  accepted: false,
  at: '2024-01-01T00:00:00.000Z',
  cases: [],
});

describe('the round budget (budgets.devRounds)', () => {
  test('rounds 1..M are counted and round M+1 is refused with a message naming the budget', () => {
    let ledger = emptyLedger('log-triage');
    for (let i = 1; i <= 3; i++) {
      const o = recordRound(ledger, entry(i), 3);
      expect(o).toMatchObject({ counted: true, round: { round: i } });
      ledger = o.ledger;
    }
    const refused = recordRound(ledger, entry(4), 3);
    expect(refused.counted).toBe(false);
    expect(refused.round).toBeNull();
    expect(refused.ledger).toBe(ledger);
    expect(refused.refused).toMatch(/round 4 refused/);
    expect(refused.refused).toMatch(/3 of 3 rounds used, budgets\.devRounds = 3/);
    expect(admitRound(ledger, digestOf(4), 3)).toMatchObject({ kind: 'refused' });
  });

  test('an earlier round resubmitted after the budget is spent is still allowed, and not counted', () => {
    let ledger = emptyLedger('c');
    for (let i = 1; i <= 2; i++) ledger = recordRound(ledger, entry(i), 2).ledger;
    expect(admitRound(ledger, digestOf(1), 2)).toMatchObject({ kind: 'repeat', of: { round: 1 } });
    const o = recordRound(ledger, entry(1), 2);
    expect(o).toMatchObject({ counted: false, round: { round: 1 } });
    expect(o.refused).toBeUndefined();
    expect(o.ledger.rounds).toHaveLength(2);
  });

  test.prop([fc.array(entryArb, { maxLength: 30 }), fc.integer({ min: 1, max: 6 })])(
    'never more counted rounds than the budget; numbered 1..n; refused exactly when a new digest meets a spent budget',
    (entries, budget) => {
      let ledger: Ledger = emptyLedger('c');
      for (const e of entries) {
        const before = ledger;
        const known = before.rounds.some((r) => r.digest === e.digest);
        const admission = admitRound(before, e.digest, budget);
        const o = recordRound(before, e, budget);
        expect(Boolean(o.refused)).toBe(!known && before.rounds.length >= budget);
        expect(admission.kind).toBe(o.refused ? 'refused' : known ? 'repeat' : 'new');
        expect(o.counted).toBe(!known && !o.refused);
        if (admission.kind === 'new') expect(o.round?.round).toBe(admission.round);
        expect(o.ledger.rounds.length).toBe(before.rounds.length + (o.counted ? 1 : 0));
        ledger = o.ledger;
      }
      expect(ledger.rounds.length).toBeLessThanOrEqual(budget);
      expect(ledger.rounds.map((r) => r.round)).toEqual(ledger.rounds.map((_, i) => i + 1));
    },
  );
});
