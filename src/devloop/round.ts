/** Turns the dev split of a run's summary into a ledger entry (pure). */
import type { CommissionSummary } from '../report/index.js';
import type { RoundEntry } from './types.js';

/**
 * The ledger entry of one development round: the summary's dev mean and per case × trial results; `accepted` when
 * at least one execution ran and every one met the pass rule (an unscored or infra-error execution does not).
 */
export function roundEntryFromSummary(c: CommissionSummary, digest: string, at: Date): RoundEntry {
  const cases = c.cases.map((k) => ({
    id: k.id,
    trial: k.trial,
    result: k.result,
    status: k.status,
    gate: k.gate,
    passed: k.passed,
  }));
  return {
    digest,
    devMean: c.result.mean,
    accepted: cases.length > 0 && cases.every((k) => k.passed),
    at: at.toISOString(),
    cases,
  };
}
