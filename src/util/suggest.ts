/** Edit distance of two short strings (names, keys), a swap of neighbours counting as one edit, as typos do. Pure. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to a mistyped one, for "did you mean …?" hints: within a third of its length (rounded;
 * at least 1, at most 3 edits), ties to the first listed; undefined when nothing is that close. Pure.
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.round(name.length / 3)));
  let best: string | undefined;
  let bestD = limit + 1;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestD && k !== name) [best, bestD] = [k, d];
  }
  return best;
}
