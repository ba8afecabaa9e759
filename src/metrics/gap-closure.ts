/**
 * Gap closure of an optimization commission (DESIGN §5): how much of the distance from the starter's score J0 to the
 * perfect 100 the candidate's J1 closed. γ = min(1, (J1 − J0) / (100 − J0)), S = 100γ, no lower bound, so a
 * regression shows as a negative S. J0 = 100 leaves nothing to close: γ = S = 0. Full precision; round for display only.
 */
export function gapClosure(j0: number, j1: number): { gamma: number; S: number } {
  if (!Number.isFinite(j0) || !Number.isFinite(j1))
    throw new RangeError(`gapClosure needs finite scores, got ${j0}, ${j1}`);
  if (j0 > 100) throw new RangeError(`gapClosure needs J0 ≤ 100, got ${j0}`);
  if (j0 === 100) return { gamma: 0, S: 0 };
  const gamma = Math.min(1, (j1 - j0) / (100 - j0));
  return { gamma, S: 100 * gamma };
}
