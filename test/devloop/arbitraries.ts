import { fc } from '@fast-check/vitest';
import type { Ledger, Round, RoundEntry } from '../../src/devloop/index.js';

/** A handful of digests, so generated submissions repeat one another often. */
export const digestOf = (i: number) => `sha256:${i.toString(16).padStart(64, '0')}`;
export const digestArb = fc.integer({ min: 0, max: 7 }).map(digestOf);
/** Few distinct means, so ties are common; null = nothing scored. */
export const meanArb = fc.option(fc.constantFrom(0, 12.5, 50, 87.5, 100), { nil: null, freq: 5 });

export const entryArb: fc.Arbitrary<RoundEntry> = fc.record({
  digest: digestArb,
  devMean: meanArb,
  accepted: fc.boolean(),
  at: fc.integer({ min: 0, max: 1e12 }).map((t) => new Date(t).toISOString()),
  cases: fc.constant([]),
});

/** A ledger of rounds numbered 1..n with distinct digests, stored in an arbitrary order. */
export const ledgerArb: fc.Arbitrary<Ledger> = fc
  .array(fc.record({ devMean: meanArb, accepted: fc.boolean() }), { maxLength: 12 })
  .chain((rs) => {
    const rounds: Round[] = rs.map((r, i) => ({
      round: i + 1,
      digest: digestOf(1000 + i),
      devMean: r.devMean,
      accepted: r.accepted,
      at: new Date(i * 1000).toISOString(),
      cases: [],
    }));
    return fc.shuffledSubarray(rounds, { minLength: rounds.length, maxLength: rounds.length });
  })
  .map((rounds) => ({ schema: 'heldout/rounds@1' as const, commission: 'c', rounds }));
