/**
 * Two-sided exact sign test on wins and losses, ties dropped (Dixon & Mood, "The Statistical Sign Test", JASA 1946):
 * p = min(1, 2·P[X ≤ min(W, L)]), X ~ Binomial(W + L, ½). p = 1 when W + L = 0. Summed in log space, so
 * W + L in the thousands neither underflows nor needs big integers.
 */
export function signTest(wins: number, losses: number): number {
  if (!Number.isInteger(wins) || !Number.isInteger(losses) || wins < 0 || losses < 0) {
    throw new RangeError(`signTest needs non-negative integers, got ${wins}, ${losses}`);
  }
  const n = wins + losses;
  if (n === 0) return 1;
  const m = Math.min(wins, losses);
  const log2n = n * Math.LN2;
  // log C(n, i) by the recurrence C(n, i+1) = C(n, i)·(n − i)/(i + 1); log-sum-exp against the largest term (i = m).
  const logTerms: number[] = [];
  let logC = 0;
  for (let i = 0; i <= m; i++) {
    logTerms.push(logC - log2n);
    logC += Math.log(n - i) - Math.log(i + 1);
  }
  const top = logTerms[logTerms.length - 1];
  let s = 0;
  for (const t of logTerms) s += Math.exp(t - top);
  return Math.min(1, 2 * Math.exp(top + Math.log(s)));
}

/** Per-instance wins / losses / ties of a candidate against its starter; |Δ| ≤ epsilon counts as a tie. */
export function winLossTie(
  pairs: Iterable<{ candidate: number; starter: number }>,
  epsilon = 1e-9,
): { wins: number; losses: number; ties: number } {
  let wins = 0;
  let losses = 0;
  let ties = 0;
  for (const { candidate, starter } of pairs) {
    const d = candidate - starter;
    if (Math.abs(d) <= epsilon) ties++;
    else if (d > 0) wins++;
    else losses++;
  }
  return { wins, losses, ties };
}
