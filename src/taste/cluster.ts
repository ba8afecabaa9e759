import { type KMedoidsMethod, kMedoids } from './kmedoids.js';
import type { Rng } from './prng.js';
import { type ContrastiveSampler, sampleLength, seqKey } from './sampler.js';
import type { ToolRef, Validator } from './types.js';
import { type DistanceMatrix, distance, wedMatrix } from './wed-matrix.js';

export interface ClusterOptions {
  sampler: ContrastiveSampler;
  tools: readonly ToolRef[];
  validator: Validator;
  /** K; callers default it to the domain's number of original tasks. */
  k: number;
  rng: Rng;
  poolSize?: number;
  temperature?: number;
  /** Re-clustering rounds after the first clustering (DESIGN §11: at most 3). */
  maxRounds?: number;
  /** Sequences a pool must not contain (e.g. the gold sequences). */
  exclude?: Iterable<string>;
  threads?: number;
  /** How many members of a cluster are tried when its medoid is implausible (nearest first). */
  maxCandidates?: number;
  /** K-medoids algorithm; DESIGN §11's assignment/update alternation unless told otherwise. */
  method?: KMedoidsMethod;
}

export interface ClusterMedoid {
  sequence: string[];
  size: number;
  /** Mean WED of the cluster's members (medoid excluded) to the medoid; null for a singleton. */
  within: number | null;
  /** The clustering's own medoid was implausible and this is its nearest plausible member. */
  replaced: boolean;
  /** Round (0 = first clustering) in which the medoid was accepted. */
  round: number;
}

export interface ClusterResult {
  k: number;
  poolSize: number;
  medoids: ClusterMedoid[];
  sizes: number[];
  /** Mean WED of every non-medoid point to its medoid in the final clustering. */
  withinCluster: number | null;
  /** Mean pairwise WED between the accepted medoids. */
  betweenCluster: number | null;
  /** Re-clustering rounds run after the first clustering. */
  rounds: number;
  /** Clusters still unusable after the last round. */
  dropped: number;
  validatorCalls: number;
}

/** Draws `size` distinct sequences at temperature T that are not in `exclude` (gives up after 100 × size draws). */
export function drawPool(
  sampler: ContrastiveSampler,
  size: number,
  temperature: number,
  rng: Rng,
  exclude: Set<string>,
): string[][] {
  const pool: string[][] = [];
  const keys = new Set<string>();
  for (let tries = 0; pool.length < size && tries < size * 100; tries++) {
    const s = sampler.generate(sampleLength(rng), temperature, rng);
    const key = seqKey(s);
    if (keys.has(key) || exclude.has(key)) continue;
    keys.add(key);
    pool.push(s);
  }
  return pool;
}

/**
 * Stage 2: pool → WED matrix → k-medoids → medoid validation (an implausible medoid is replaced by the nearest
 * plausible member of its cluster; a cluster with none is unusable) → up to 3 re-clustering rounds in which accepted
 * medoids are frozen points of a fresh pool and free medoids are chosen for the unusable clusters → the rest dropped.
 */
export async function clusterStage(o: ClusterOptions): Promise<ClusterResult> {
  const poolSize = o.poolSize ?? 2000;
  const temperature = o.temperature ?? 1.5;
  const maxRounds = o.maxRounds ?? 3;
  const maxCandidates = o.maxCandidates ?? 50;
  const exclude = new Set(o.exclude ?? []);
  let validatorCalls = 0;
  const verdicts = new Map<string, boolean>();
  const plausible = async (s: string[]) => {
    const key = seqKey(s);
    const hit = verdicts.get(key);
    if (hit !== undefined) return hit;
    validatorCalls++;
    const v = (await o.validator.validate(s)).plausible;
    verdicts.set(key, v);
    return v;
  };

  const accepted: { sequence: string[]; replaced: boolean; round: number }[] = [];
  let unusable = o.k;
  let rounds = 0;
  let points: string[][] = [];
  let matrix: DistanceMatrix = { n: 0, data: new Float64Array(0) };
  for (let round = 0; round <= maxRounds && unusable > 0; round++) {
    if (round > 0) rounds = round;
    const fresh = drawPool(o.sampler, poolSize, temperature, o.rng, exclude);
    for (const s of fresh) exclude.add(seqKey(s));
    points = [...accepted.map((a) => a.sequence), ...fresh];
    if (points.length === 0) break;
    matrix = await wedMatrix(points, o.tools, { threads: o.threads });
    const frozen = accepted.map((_, i) => i);
    const km = kMedoids(matrix, { k: accepted.length + unusable, rng: o.rng, frozen, method: o.method });
    for (let slot = frozen.length; slot < km.medoids.length; slot++) {
      const medoid = km.medoids[slot];
      if (await plausible(points[medoid])) {
        accepted.push({ sequence: points[medoid], replaced: false, round });
        continue;
      }
      const members: number[] = [];
      for (let p = 0; p < points.length; p++) if (km.assignment[p] === slot && p !== medoid) members.push(p);
      members.sort((a, b) => distance(matrix, a, medoid) - distance(matrix, b, medoid) || a - b);
      let found = -1;
      for (const p of members.slice(0, maxCandidates)) {
        if (await plausible(points[p])) {
          found = p;
          break;
        }
      }
      if (found >= 0) accepted.push({ sequence: points[found], replaced: true, round });
    }
    // A pool smaller than K yields fewer medoids; the missing clusters stay unusable too.
    unusable = o.k - accepted.length;
  }

  // Final statistics: every point of the last pool to its nearest accepted medoid (all of them are points of it).
  const index = new Map(points.map((s, i) => [seqKey(s), i]));
  const medoidIdx = accepted.map((a) => index.get(seqKey(a.sequence)) ?? -1);
  const sizes = new Array(accepted.length).fill(0);
  const sums = new Array(accepted.length).fill(0);
  let withinSum = 0;
  let withinN = 0;
  const isMedoid = new Set(medoidIdx);
  for (let p = 0; p < points.length && accepted.length > 0; p++) {
    let best = -1;
    let bd = Number.POSITIVE_INFINITY;
    medoidIdx.forEach((m, s) => {
      if (m < 0) return;
      const x = distance(matrix, p, m);
      if (x < bd) {
        bd = x;
        best = s;
      }
    });
    if (best < 0) continue;
    sizes[best]++;
    if (!isMedoid.has(p)) {
      sums[best] += bd;
      withinSum += bd;
      withinN++;
    }
  }
  let betweenSum = 0;
  let betweenN = 0;
  for (let a = 0; a < medoidIdx.length; a++) {
    for (let b = a + 1; b < medoidIdx.length; b++) {
      betweenSum += distance(matrix, medoidIdx[a], medoidIdx[b]);
      betweenN++;
    }
  }
  return {
    k: o.k,
    poolSize,
    medoids: accepted.map((a, s) => ({
      sequence: a.sequence,
      size: sizes[s],
      within: sizes[s] > 1 ? sums[s] / (sizes[s] - 1) : null,
      replaced: a.replaced,
      round: a.round,
    })),
    sizes,
    withinCluster: withinN === 0 ? null : withinSum / withinN,
    betweenCluster: betweenN === 0 ? null : betweenSum / betweenN,
    rounds,
    dropped: unusable,
    validatorCalls,
  };
}
