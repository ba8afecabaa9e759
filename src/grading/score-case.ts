/**
 * The Result of one case from its earned points and the ceilings that apply (DESIGN §4, §15). Pure.
 */

export interface ScoreCaseInput {
  dimensions: { id: string; max: number }[];
  gatesPassed: boolean;
  /** Points earned per dimension before ceilings; a missing dimension earned 0. */
  earned: Record<string, number>;
  /** Caps that apply to this case (unmet outcomes, safety failures); several on one dimension: the minimum wins. */
  dimensionCaps: { dimension: string; max: number; reason: string }[];
  /** Total ceilings that apply; the lowest wins. */
  totalCaps: { max: number; reason: string }[];
}

export interface ScoreCaseOutput {
  result: number;
  dimensions: Record<string, { score: number; max: number; cap: number | null }>;
  /** Some applicable ceiling is below what was earned in its scope. */
  ceilingHit: boolean;
  /** The Result equals a ceiling that lowered it. */
  ceilingSet: boolean;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Number.isFinite(x) ? x : 0));

/**
 * Result = 0 when a gate failed; otherwise min(lowest total cap, Σ_d min(earned_d ∈ [0, max_d], cap_d)), never
 * above 100. `ceilingSet` is true only when a total ceiling set the Result: dimension caps lower terms of a sum,
 * so the Result is not "set" by any single one of them.
 */
export function scoreCase(input: ScoreCaseInput): ScoreCaseOutput {
  const dimensions: ScoreCaseOutput['dimensions'] = {};
  let sum = 0;
  let hit = false;
  for (const d of input.dimensions) {
    const earned = clamp(input.earned[d.id] ?? 0, 0, d.max);
    const caps = input.dimensionCaps.filter((c) => c.dimension === d.id).map((c) => Math.max(0, c.max));
    const cap = caps.length > 0 ? Math.min(...caps) : null;
    const score = cap === null ? earned : Math.min(earned, cap);
    if (cap !== null && cap < earned) hit = true;
    dimensions[d.id] = { score, max: d.max, cap };
    sum += score;
  }
  sum = Math.min(100, sum);
  const total = input.totalCaps.length > 0 ? Math.min(...input.totalCaps.map((c) => Math.max(0, c.max))) : null;
  const totalBinds = total !== null && total < sum;
  if (totalBinds) hit = true;
  if (!input.gatesPassed) return { result: 0, dimensions, ceilingHit: false, ceilingSet: false };
  const result = totalBinds ? total : sum;
  return { result, dimensions, ceilingHit: hit, ceilingSet: totalBinds };
}

/** The ceiling records of a scored case: every applicable cap, marked binding when it lowered its scope. */
export function ceilingRecords(
  input: ScoreCaseInput,
): { kind: 'dimension' | 'total'; dimension?: string; max: number; reason: string; binding: boolean }[] {
  const maxOf = new Map(input.dimensions.map((d) => [d.id, d.max]));
  const dimRecords = input.dimensionCaps.map((c) => {
    const earned = clamp(input.earned[c.dimension] ?? 0, 0, maxOf.get(c.dimension) ?? 0);
    const effective = Math.min(...input.dimensionCaps.filter((o) => o.dimension === c.dimension).map((o) => o.max));
    return {
      kind: 'dimension' as const,
      dimension: c.dimension,
      max: c.max,
      reason: c.reason,
      binding: c.max === effective && c.max < earned,
    };
  });
  const capped = scoreCase({ ...input, totalCaps: [], gatesPassed: true }).result;
  const lowest = input.totalCaps.length > 0 ? Math.min(...input.totalCaps.map((c) => c.max)) : null;
  const totalRecords = input.totalCaps.map((c) => ({
    kind: 'total' as const,
    max: c.max,
    reason: c.reason,
    binding: c.max === lowest && c.max < capped,
  }));
  return [...dimRecords, ...totalRecords];
}
