import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { emptyLedger, type Ledger, recordRound } from '../../src/devloop/index.js';
import { entryArb } from './arbitraries.js';

describe('a resubmission with an identical digest', () => {
  test.prop([fc.array(entryArb, { minLength: 1, maxLength: 25 })])(
    'is not counted again: one round per distinct digest, first submission wins',
    (entries) => {
      let ledger: Ledger = emptyLedger('c');
      for (const e of entries) ledger = recordRound(ledger, e, Number.POSITIVE_INFINITY).ledger;
      const distinct = [...new Set(entries.map((e) => e.digest))];
      expect(ledger.rounds.map((r) => r.digest)).toEqual(distinct);
      for (const r of ledger.rounds) {
        const first = entries.find((e) => e.digest === r.digest)!;
        const later = entries.filter((e) => e.digest === r.digest).slice(1);
        expect(r.devMean).toBe(first.devMean);
        expect(r.accepted).toBe(first.accepted);
        expect(r.at).toBe(first.at);
        expect(r.resubmittedAt ?? []).toEqual(later.map((e) => e.at));
      }
    },
  );

  test.prop([fc.array(entryArb, { minLength: 1, maxLength: 15 }), fc.nat()])(
    'returns the earlier round and leaves the input ledger untouched',
    (entries, pick) => {
      let ledger: Ledger = emptyLedger('c');
      for (const e of entries) ledger = recordRound(ledger, e, Number.POSITIVE_INFINITY).ledger;
      const earlier = ledger.rounds[pick % ledger.rounds.length];
      const frozen = JSON.stringify(ledger);
      const o = recordRound(ledger, { ...entries[0], digest: earlier.digest, devMean: 3, at: 'again' }, 1);
      expect(JSON.stringify(ledger)).toBe(frozen);
      expect(o.counted).toBe(false);
      expect(o.refused).toBeUndefined();
      expect(o.round).toMatchObject({ round: earlier.round, digest: earlier.digest, devMean: earlier.devMean });
      expect(o.round?.resubmittedAt?.at(-1)).toBe('again');
      expect(o.ledger.rounds.length).toBe(ledger.rounds.length);
    },
  );
});
