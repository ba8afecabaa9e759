import { mean, quantileSorted } from './stats.js';

/**
 * A small seeded PRNG (mulberry32, Tommy Ettinger's public-domain 32-bit generator): reproducible confidence
 * intervals without a dependency. Returns unsigned 32-bit integers.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    return mulberry32Output(a);
  };
}

/** mulberry32's output for state a; its state is a plain counter, so a hot loop can keep it in a local. */
function mulberry32Output(a: number): number {
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/** Folds a string seed into 32 bits (FNV-1a) so callers can seed by run id. */
export function seedFrom(seed: number | string): number {
  if (typeof seed === 'number') return seed >>> 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export interface BootstrapOptions {
  seed: number | string;
  /** Number of resamples; default 2000. */
  resamples?: number;
  /** Two-sided confidence level; default 0.95. */
  level?: number;
  /**
   * How resamples are drawn. `direct` draws n indices per resample; `counts` draws the multinomial counts of the
   * distinct values (same distribution, far fewer draws when values repeat, as 0–100 Results do). `auto` (default)
   * picks `counts` when there are at most n/8 distinct values. The two give different, equally valid Monte Carlo draws.
   */
  method?: 'auto' | 'direct' | 'counts';
}

/**
 * Percentile-bootstrap confidence interval of the mean (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993,
 * ch. 13). Same values and options give the same interval. Null for no values; a single value gives [v, v].
 */
export function bootstrapCI(values: ArrayLike<number>, options: BootstrapOptions): [number, number] | null {
  const n = values.length;
  if (n === 0) return null;
  const level = checkedLevel(options);
  const m = mean(values) as number;
  if (n === 1) {
    checkedResamples(options);
    return [m, m];
  }
  const means = bootstrapMeans(values, options);
  means.sort();
  return percentiles(means, level);
}

/**
 * The resample means of a percentile bootstrap of the mean, in draw order (not sorted), `resamples` of them: the
 * draws `bootstrapCI` takes its percentiles from. Values must be non-empty.
 */
export function bootstrapMeans(values: ArrayLike<number>, options: BootstrapOptions): Float64Array {
  const n = values.length;
  if (n === 0) throw new RangeError('bootstrap of no values');
  const resamples = checkedResamples(options);
  if (n === 1) return new Float64Array(resamples).fill(values[0]);
  const seed = seedFrom(options.seed);
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) counts.set(values[i], (counts.get(values[i]) ?? 0) + 1);
  const method = options.method ?? 'auto';
  const useCounts = method === 'counts' || (method === 'auto' && counts.size * 8 <= n);
  return useCounts ? resampleByCounts(counts, n, resamples, seed) : resampleDirect(values, resamples, mulberry32(seed));
}

/**
 * Stratified percentile bootstrap of a macro mean (DESIGN §5's family score: the plain mean of commission means):
 * each non-empty group is resampled on its own, with its own seed derived from `seed` and its index, and each
 * resample's macro mean is the mean of the groups' resample means, so every group weighs the same, as in the
 * estimate. One group gives exactly `bootstrapCI` of it. Null when no group has values.
 */
export function stratifiedBootstrapCI(
  groups: ReadonlyArray<ArrayLike<number>>,
  options: BootstrapOptions,
): [number, number] | null {
  const used = groups.filter((g) => g.length > 0);
  if (used.length === 0) return null;
  if (used.length === 1) return bootstrapCI(used[0], options);
  checkedResamples(options);
  return macroBootstrapCI(
    used.map((g, i) => bootstrapMeans(g, { ...options, seed: `${options.seed}#${i}` })),
    options.level,
  );
}

/**
 * The percentile CI of a macro mean from each group's own resample means (`bootstrapMeans`, one array per group,
 * all of one length): resample r's macro mean is the mean of the groups' r-th draws. Lets a caller that already
 * drew each group's bootstrap (for the group's own CI) get the stratified CI of their macro mean without drawing
 * again. Null for no groups.
 */
export function macroBootstrapCI(draws: ReadonlyArray<Float64Array>, level = 0.95): [number, number] | null {
  if (draws.length === 0) return null;
  const resamples = draws[0].length;
  if (resamples === 0 || draws.some((d) => d.length !== resamples)) {
    throw new RangeError('macroBootstrapCI needs the same positive number of draws for every group');
  }
  checkedLevel({ seed: 0, level });
  const macro = new Float64Array(resamples);
  for (const d of draws) for (let r = 0; r < resamples; r++) macro[r] += d[r];
  for (let r = 0; r < resamples; r++) macro[r] /= draws.length;
  return percentileCI(macro, level);
}

/** The percentile interval of bootstrap draws (sorted in a copy); what `bootstrapCI` returns for those draws. */
export function percentileCI(draws: Float64Array, level = 0.95): [number, number] {
  return percentiles(Float64Array.from(draws).sort(), level);
}

function checkedResamples(options: BootstrapOptions): number {
  const resamples = options.resamples ?? 2000;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer`);
  return resamples;
}

function checkedLevel(options: BootstrapOptions): number {
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  return level;
}

function percentiles(sorted: Float64Array, level: number): [number, number] {
  const alpha = (1 - level) / 2;
  return [quantileSorted(sorted, alpha), quantileSorted(sorted, 1 - alpha)];
}

function resampleDirect(values: ArrayLike<number>, resamples: number, next: () => number): Float64Array {
  const n = values.length;
  const xs = Float64Array.from(values);
  const means = new Float64Array(resamples);
  const scale = n / 4294967296;
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += xs[(next() * scale) | 0];
    means[r] = s / n;
  }
  return means;
}

/**
 * A resample of n values from the empirical distribution is fully described by how often each distinct value was
 * drawn, a Multinomial(n, m_j / n). Drawn as a chain of conditional binomials, each by exact inversion walking out
 * from the mode, so the cost per resample grows with the number of distinct values, not with n.
 */
function resampleByCounts(counts: Map<number, number>, n: number, resamples: number, seed: number): Float64Array {
  const entries = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const d = entries.length;
  const vals = Float64Array.from(entries, (e) => e[0]);
  // The conditional probabilities depend on the counts only, not on the draw: computed once.
  const p = new Float64Array(d);
  const logP = new Float64Array(d);
  const logQ = new Float64Array(d);
  let massLeft = n;
  for (let j = 0; j < d; j++) {
    p[j] = j === d - 1 ? 1 : entries[j][1] / massLeft;
    logP[j] = Math.log(p[j]);
    logQ[j] = Math.log1p(-p[j]);
    massLeft -= entries[j][1];
  }
  const logFact = new Float64Array(n + 1);
  for (let i = 1; i <= n; i++) logFact[i] = logFact[i - 1] + Math.log(i);
  const means = new Float64Array(resamples);
  // mulberry32(seed) inlined: its state in a local rather than a closure saves an allocation per draw.
  let state = seed;
  for (let r = 0; r < resamples; r++) {
    let left = n;
    let s = 0;
    for (let j = 0; j < d && left > 0; j++) {
      let k = left;
      if (p[j] < 1) {
        state = (state + 0x6d2b79f5) >>> 0;
        k = binomialInverse(left, p[j], logP[j], logQ[j], mulberry32Output(state) / 4294967296, logFact);
      }
      s += vals[j] * k;
      left -= k;
    }
    means[r] = s / n;
  }
  return means;
}

/** Bin(N, p) by inversion of u, visiting outcomes from the mode outwards (larger mass first). */
function binomialInverse(N: number, p: number, logP: number, logQ: number, u: number, logFact: Float64Array): number {
  const mode = Math.min(N, Math.floor((N + 1) * p));
  const fMode = Math.exp(logFact[N] - logFact[mode] - logFact[N - mode] + mode * logP + (N - mode) * logQ);
  if (u < fMode) return mode;
  u -= fMode;
  let lo = mode;
  let hi = mode;
  let fLo = fMode;
  let fHi = fMode;
  const pq = p / (1 - p);
  // Next mass on each side by the pmf's ratio recurrence; the side not taken keeps its next mass for the next turn.
  let nLo = lo > 0 ? (fLo * lo) / ((N - lo + 1) * pq) : -1;
  let nHi = hi < N ? (fHi * (N - hi) * pq) / (hi + 1) : -1;
  while (lo > 0 || hi < N) {
    // Take the larger so the walk ends soonest.
    if (nHi >= nLo) {
      hi++;
      fHi = nHi;
      if (u < fHi) return hi;
      u -= fHi;
      nHi = hi < N ? (fHi * (N - hi) * pq) / (hi + 1) : -1;
    } else {
      lo--;
      fLo = nLo;
      if (u < fLo) return lo;
      u -= fLo;
      nLo = lo > 0 ? (fLo * lo) / ((N - lo + 1) * pq) : -1;
    }
    if ((lo === 0 || fLo < 1e-300) && (hi === N || fHi < 1e-300)) break;
  }
  // u fell into the rounding residue of the total mass: the mode is the least biased answer.
  return mode;
}
