import { attemptOf } from './retry.js';
import type { CaseMeta } from './types.js';

/**
 * One record of a case × trial run `repeat` times: the last round's verdict (its outputs are the ones on disk),
 * with every round's verdict in `repeats` so the report can tell a flaky case from a steady one.
 */
export function withRepeats(rounds: CaseMeta[]): CaseMeta {
  const last = rounds[rounds.length - 1];
  if (!last) throw new Error('withRepeats: no round ran');
  return rounds.length === 1 ? last : { ...last, repeats: rounds.map(attemptOf) };
}
