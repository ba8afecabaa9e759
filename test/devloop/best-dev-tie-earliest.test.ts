import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { emptyLedger, recordRound, selectFrozenRound } from '../../src/devloop/index.js';
import { digestOf, ledgerArb } from './arbitraries.js';

describe('best-dev ties go to the earliest round', () => {
  test('three rounds at the same best mean: the first of them is frozen', () => {
    let ledger = emptyLedger('c');
    const means = [80, 100, 90, 100, 100];
    means.forEach((devMean, i) => {
      ledger = recordRound(ledger, { digest: digestOf(i), devMean, accepted: true, at: `t${i}`, cases: [] }, 10).ledger;
    });
    expect(selectFrozenRound(ledger, 'best-dev')).toMatchObject({ round: 2, devMean: 100, digest: digestOf(1) });
  });

  test.prop([ledgerArb])('never a later round with an equal mean', (l) => {
    if (!l.rounds.some((x) => x.devMean !== null)) return;
    const chosen = selectFrozenRound(l, 'best-dev');
    const equal = l.rounds.filter((x) => x.devMean === chosen.devMean);
    expect(chosen.round).toBe(Math.min(...equal.map((x) => x.round)));
  });

  test.prop([ledgerArb])('appending a round that only equals the best mean does not move the choice', (l) => {
    if (!l.rounds.some((x) => x.devMean !== null)) return;
    const before = selectFrozenRound(l, 'best-dev');
    const next = Math.max(...l.rounds.map((x) => x.round)) + 1;
    const tied = { ...before, round: next, digest: digestOf(5000), at: 'later' };
    expect(selectFrozenRound({ ...l, rounds: [...l.rounds, tied] }, 'best-dev').round).toBe(before.round);
  });
});
