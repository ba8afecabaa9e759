/**
 * Which development round a delivery is frozen from (DESIGN §6): `final` is the last round, `last-accepted` the last
 * round whose dev cases all met the pass rule, `best-dev` the round with the highest dev mean (ties: the earliest).
 */
import type { FreezePolicy, Ledger, Round } from './types.js';

/** No round of the ledger satisfies the policy. */
export class NoQualifyingRoundError extends Error {
  constructor(
    message: string,
    readonly policy: FreezePolicy,
  ) {
    super(message);
    this.name = 'NoQualifyingRoundError';
  }
}

/**
 * Picks the round to freeze under `policy`. Depends only on round numbers, never on the order of `ledger.rounds`.
 * Throws NoQualifyingRoundError naming the policy and why no round qualifies.
 */
export function selectFrozenRound(
  ledger: Pick<Ledger, 'rounds'> & { commission?: string },
  policy: FreezePolicy,
): Round {
  const rounds = [...ledger.rounds].sort((a, b) => a.round - b.round);
  const of = ledger.commission ? ` of ${ledger.commission}` : '';
  if (rounds.length === 0) {
    throw new NoQualifyingRoundError(
      `--policy ${policy}: the round ledger${of} has no rounds; run \`heldout dev\` first`,
      policy,
    );
  }
  if (policy === 'final') return rounds[rounds.length - 1];
  if (policy === 'last-accepted') {
    const accepted = rounds.filter((r) => r.accepted);
    if (accepted.length === 0) {
      throw new NoQualifyingRoundError(
        `--policy last-accepted: none of the ${rounds.length} rounds${of} was accepted (every dev case meeting the pass rule)`,
        policy,
      );
    }
    return accepted[accepted.length - 1];
  }
  let best: Round | undefined;
  for (const r of rounds) {
    // Strictly greater: an equal mean later on never displaces the earlier round.
    if (r.devMean !== null && (best === undefined || r.devMean > (best.devMean as number))) best = r;
  }
  if (!best) {
    throw new NoQualifyingRoundError(
      `--policy best-dev: none of the ${rounds.length} rounds${of} has a dev mean (no dev case was scored)`,
      policy,
    );
  }
  return best;
}
