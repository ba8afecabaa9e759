/**
 * Reliability over k trials (DESIGN §5). Both estimators are computed as products of ratios so that large n never
 * overflows or loses precision the way factorials would.
 */

function checkArgs(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k)) {
    throw new RangeError(`pass^k/pass@k need integers, got n=${n} c=${c} k=${k}`);
  }
  if (n < 0 || c < 0 || c > n || k < 0)
    throw new RangeError(`pass^k/pass@k need 0 ≤ c ≤ n and k ≥ 0, got n=${n} c=${c} k=${k}`);
}

/** C(a, k) / C(n, k) for a ≤ n, as Π (a − i)/(n − i); 0 once a < k. */
function binomialRatio(a: number, n: number, k: number): number {
  if (a < k) return 0;
  let r = 1;
  for (let i = 0; i < k; i++) r *= (a - i) / (n - i);
  return r;
}

/**
 * pass^k = C(c, k) / C(n, k): the chance that k trials drawn without replacement from a case's n trials all succeed
 * (Yao et al., "τ-bench", 2024, §5). Returns null when n < k: too few trials to say anything about k of them.
 */
export function passHatK(n: number, c: number, k: number): number | null {
  checkArgs(n, c, k);
  if (n < k) return null;
  return binomialRatio(c, n, k);
}

/**
 * pass@k = 1 − C(n − c, k) / C(n, k): the unbiased estimate that at least one of k trials succeeds
 * (Chen et al., "Evaluating Large Language Models Trained on Code", 2021). Returns null when n < k.
 */
export function passAtK(n: number, c: number, k: number): number | null {
  checkArgs(n, c, k);
  if (n < k) return null;
  return 1 - binomialRatio(n - c, n, k);
}

/** Mean pass^k over cases (DESIGN §5); null when there are no cases or any case has fewer than k trials. */
export function passHatKOverCases(cases: ReadonlyArray<{ n: number; c: number }>, k: number): number | null {
  return meanOver(cases, k, passHatK);
}

/** Mean pass@k over cases; null when there are no cases or any case has fewer than k trials. */
export function passAtKOverCases(cases: ReadonlyArray<{ n: number; c: number }>, k: number): number | null {
  return meanOver(cases, k, passAtK);
}

function meanOver(
  cases: ReadonlyArray<{ n: number; c: number }>,
  k: number,
  f: (n: number, c: number, k: number) => number | null,
): number | null {
  if (cases.length === 0) return null;
  let sum = 0;
  for (const { n, c } of cases) {
    const v = f(n, c, k);
    if (v === null) return null;
    sum += v;
  }
  return sum / cases.length;
}
