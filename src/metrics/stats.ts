/** Descriptive statistics over plain number arrays. Empty input gives null, never NaN, so JSON stays valid. */

/** Arithmetic mean; null for no values. */
export function mean(values: ArrayLike<number>): number | null {
  const n = values.length;
  if (n === 0) return null;
  let s = 0;
  for (let i = 0; i < n; i++) s += values[i];
  return s / n;
}

/** Median (mean of the two middle values for even n); null for no values. Does not modify its input. */
export function median(values: ArrayLike<number>): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  return quantileSorted(sorted, 0.5);
}

/** Quantile q ∈ [0, 1] of ascending values by linear interpolation between order statistics (Hyndman & Fan type 7). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantile of no values');
  const h = (n - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Macro mean: the plain mean of each group's mean, so every group (e.g. every commission of a family) weighs the
 * same whatever its size (DESIGN §5). Empty groups are skipped; null when no group has values.
 */
export function macroMean(groups: Iterable<ArrayLike<number>>): number | null {
  const means: number[] = [];
  for (const g of groups) {
    const m = mean(g);
    if (m !== null) means.push(m);
  }
  return mean(means);
}
