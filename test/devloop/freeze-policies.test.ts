import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { NoQualifyingRoundError, type Round, selectFrozenRound } from '../../src/devloop/index.js';
import { ledgerArb } from './arbitraries.js';

const r = (round: number, devMean: number | null, accepted: boolean): Round => ({
  round,
  digest: `sha256:${String(round).padStart(64, '0')}`,
  devMean,
  accepted,
  at: '2024-01-01T00:00:00.000Z',
  cases: [],
});

describe('freeze policies: final, last-accepted, best-dev', () => {
  const rounds = [r(1, 40, false), r(2, 90, true), r(3, 95, false), r(4, 70, true), r(5, 60, false)];
  const ledger = { commission: 'log-triage', rounds };

  test('final is the last round, last-accepted the last accepted one, best-dev the highest dev mean', () => {
    expect(selectFrozenRound(ledger, 'final').round).toBe(5);
    expect(selectFrozenRound(ledger, 'last-accepted').round).toBe(4);
    expect(selectFrozenRound(ledger, 'best-dev').round).toBe(3);
  });

  test('each policy says clearly when no round qualifies', () => {
    const none = { commission: 'log-triage', rounds: [] };
    expect(() => selectFrozenRound(none, 'final')).toThrow(
      /ledger of log-triage has no rounds; run `heldout dev` first/,
    );
    const unaccepted = { commission: 'x', rounds: [r(1, null, false), r(2, null, false)] };
    expect(() => selectFrozenRound(unaccepted, 'last-accepted')).toThrow(/none of the 2 rounds of x was accepted/);
    expect(() => selectFrozenRound(unaccepted, 'best-dev')).toThrow(/none of the 2 rounds of x has a dev mean/);
    expect(() => selectFrozenRound(unaccepted, 'best-dev')).toThrow(NoQualifyingRoundError);
  });

  test.prop([ledgerArb])('final is the maximum round number', (l) => {
    if (l.rounds.length === 0) {
      expect(() => selectFrozenRound(l, 'final')).toThrow(NoQualifyingRoundError);
      return;
    }
    expect(selectFrozenRound(l, 'final').round).toBe(Math.max(...l.rounds.map((x) => x.round)));
  });

  test.prop([ledgerArb])('last-accepted is accepted and no accepted round comes after it', (l) => {
    const accepted = l.rounds.filter((x) => x.accepted);
    if (accepted.length === 0) {
      expect(() => selectFrozenRound(l, 'last-accepted')).toThrow(NoQualifyingRoundError);
      return;
    }
    const chosen = selectFrozenRound(l, 'last-accepted');
    expect(chosen.accepted).toBe(true);
    expect(accepted.every((x) => x.round <= chosen.round)).toBe(true);
  });

  test.prop([ledgerArb])('best-dev has a dev mean no round exceeds', (l) => {
    const scored = l.rounds.filter((x) => x.devMean !== null);
    if (scored.length === 0) {
      expect(() => selectFrozenRound(l, 'best-dev')).toThrow(NoQualifyingRoundError);
      return;
    }
    const chosen = selectFrozenRound(l, 'best-dev');
    expect(chosen.devMean).not.toBeNull();
    expect(scored.every((x) => (x.devMean as number) <= (chosen.devMean as number))).toBe(true);
  });

  test.prop([ledgerArb, fc.constantFrom('final', 'last-accepted', 'best-dev' as const)])(
    'the choice depends on round numbers, not on the order rounds are stored in',
    (l, policy) => {
      const sorted = { ...l, rounds: [...l.rounds].sort((a, b) => a.round - b.round) };
      const pick = (x: typeof l) => {
        try {
          return selectFrozenRound(x, policy).round;
        } catch (err) {
          return (err as Error).name;
        }
      };
      expect(pick(l)).toBe(pick(sorted));
      expect(pick({ ...l, rounds: [...sorted.rounds].reverse() })).toBe(pick(sorted));
    },
  );
});
