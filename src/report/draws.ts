import { bootstrapMeans } from '../metrics/index.js';
import { perCase } from './compare.js';
import type { CaseSummary, CommissionSummary } from './schema.js';

/**
 * Each entry's bootstrap draws, kept beside it (keyed by its `cases` array, which the summary's later steps pass
 * along unchanged) so the family scores' stratified CI reuses the draws the entry's own CI came from instead of
 * drawing 2,000 resamples of every commission again (at 100,000 cases that doubled the aggregation's time).
 */
const DRAWS = new WeakMap<readonly CaseSummary[], Float64Array>();

/** The seed an entry's CI is drawn with unless its caller chose another. */
export function defaultSeed(c: Pick<CommissionSummary, 'id' | 'split' | 'delivery'>): string {
  return `${c.id}|${c.split}|${c.delivery.digest}`;
}

/** Records the draws of an entry's CI (`summarizeCommission` calls it). */
export function rememberDraws(cases: readonly CaseSummary[], draws: Float64Array): void {
  DRAWS.set(cases, draws);
}

/**
 * The bootstrap draws of a scored entry's mean: the remembered ones, or (an entry read from a file) drawn again
 * from its per-case means with the default seed, which gives the same draws `summarizeCommission` made.
 */
export function drawsOf(c: CommissionSummary): Float64Array {
  const kept = DRAWS.get(c.cases);
  if (kept) return kept;
  const means = Float64Array.from([...perCase(c.cases).values()], (x) => x.mean);
  return bootstrapMeans(means, { seed: defaultSeed(c) });
}
