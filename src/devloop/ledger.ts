/**
 * The rules of the round ledger (DESIGN §6), free of I/O: a submission is a new round, a repeat of an earlier round
 * (identical digest, not counted again), or refused because the commission's `budgets.devRounds` is spent.
 */
import type { Admission, Ledger, RecordOutcome, Round, RoundEntry } from './types.js';

/** A ledger with no rounds yet. */
export function emptyLedger(commission: string): Ledger {
  return { schema: 'heldout/rounds@1', commission, rounds: [] };
}

/** The counted round with this digest, if any. */
export function roundWithDigest(ledger: Ledger, digest: string): Round | undefined {
  return ledger.rounds.find((r) => r.digest === digest);
}

function nextRound(ledger: Ledger): number {
  return ledger.rounds.reduce((m, r) => Math.max(m, r.round), 0) + 1;
}

/**
 * Decides, before anything runs, what a submission with `digest` would be: a repeat of an earlier round (always
 * allowed, never counted), the next round, or refused when `budget` rounds have already been counted.
 */
export function admitRound(ledger: Ledger, digest: string, budget: number): Admission {
  const earlier = roundWithDigest(ledger, digest);
  if (earlier) return { kind: 'repeat', of: earlier, budget };
  const used = ledger.rounds.length;
  if (used >= budget) {
    const n = nextRound(ledger);
    return {
      kind: 'refused',
      budget,
      reason:
        `round ${n} refused: the development round budget of ${ledger.commission} is spent ` +
        `(${used} of ${budget} rounds used, budgets.devRounds = ${budget}). ` +
        'Resubmitting the tree of an earlier round is still allowed; or freeze one of the recorded rounds.',
    };
  }
  return { kind: 'new', round: nextRound(ledger), budget };
}

/**
 * Records a submission. A digest already in the ledger is not counted again: the earlier round is returned and the
 * resubmission time is noted on it. A new digest beyond `budget` counted rounds is refused (ledger unchanged).
 * Never mutates its input.
 */
export function recordRound(ledger: Ledger, entry: RoundEntry, budget: number): RecordOutcome {
  const admission = admitRound(ledger, entry.digest, budget);
  if (admission.kind === 'refused') return { ledger, counted: false, round: null, refused: admission.reason };
  if (admission.kind === 'repeat') {
    const of = admission.of;
    const updated: Round = { ...of, resubmittedAt: [...(of.resubmittedAt ?? []), entry.at] };
    return {
      ledger: { ...ledger, rounds: ledger.rounds.map((r) => (r === of ? updated : r)) },
      counted: false,
      round: updated,
    };
  }
  const round: Round = {
    round: admission.round,
    digest: entry.digest,
    devMean: entry.devMean,
    accepted: entry.accepted,
    at: entry.at,
    cases: entry.cases.map((c) => ({ ...c })),
  };
  return { ledger: { ...ledger, rounds: [...ledger.rounds, round] }, counted: true, round };
}
