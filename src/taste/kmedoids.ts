import type { Rng } from './prng.js';
import type { DistanceMatrix } from './wed-matrix.js';

export interface KMedoidsOptions {
  k: number;
  rng: Rng;
  /** Point indices that must be medoids and are never swapped out (they keep attracting members). */
  frozen?: readonly number[];
  maxIterations?: number;
  /**
   * `alternate` (default, DESIGN §11): assign every point to its nearest medoid, move each free medoid to the member
   * that minimises its cluster's total distance, repeat until stable. `fasterpam`: eager best swaps (lower cost, but
   * its medoids drift to the central, shortest sequences of the pool).
   */
  method?: KMedoidsMethod;
}

export type KMedoidsMethod = 'alternate' | 'fasterpam';

export interface KMedoidsResult {
  /** Point index of each medoid; frozen medoids first, in the order given. */
  medoids: number[];
  /** For each point, the slot (index into `medoids`) of its nearest medoid. */
  assignment: Int32Array;
  cost: number;
  /** Total cost after initialisation and after every pass (never increasing). */
  costHistory: number[];
  iterations: number;
}

function rowStarts(n: number): Float64Array {
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) r[i] = n * i - (i * (i + 1)) / 2 - i - 1;
  return r;
}

/**
 * K-medoids over a condensed matrix: k-medoids++ initialisation (after the frozen medoids), then either the
 * assignment/update alternation (default) or FasterPAM eager swaps, until a pass changes nothing or `maxIterations`
 * (100) passes ran. Either way every pass leaves the total distance of points to their nearest medoid no higher.
 */
export function kMedoids(m: DistanceMatrix, options: KMedoidsOptions): KMedoidsResult {
  const { n, data } = m;
  const frozen = [...new Set(options.frozen ?? [])];
  const k = Math.min(n, Math.max(options.k, frozen.length));
  const maxIterations = options.maxIterations ?? 100;
  const rs = rowStarts(n);
  const d = (i: number, j: number) => (i === j ? 0 : i < j ? data[rs[i] + j] : data[rs[j] + i]);
  const rng = options.rng;

  // k-medoids++: the next medoid is drawn with probability ∝ D(x)², D the distance to the nearest chosen medoid.
  const medoids = [...frozen];
  const isMedoid = new Uint8Array(n);
  for (const f of frozen) isMedoid[f] = 1;
  const nearestD = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const updateNearest = (c: number) => {
    for (let o = 0; o < n; o++) {
      const x = d(o, c);
      if (x < nearestD[o]) nearestD[o] = x;
    }
  };
  for (const f of frozen) updateNearest(f);
  if (medoids.length === 0 && k > 0) {
    const first = rng.int(n);
    medoids.push(first);
    isMedoid[first] = 1;
    updateNearest(first);
  }
  while (medoids.length < k) {
    let total = 0;
    for (let o = 0; o < n; o++) if (!isMedoid[o]) total += nearestD[o] * nearestD[o];
    let pick = -1;
    if (total > 0) {
      let r = rng.next() * total;
      for (let o = 0; o < n; o++) {
        if (isMedoid[o]) continue;
        r -= nearestD[o] * nearestD[o];
        if (r < 0) {
          pick = o;
          break;
        }
      }
    }
    if (pick < 0) for (let o = n - 1; o >= 0 && pick < 0; o--) if (!isMedoid[o]) pick = o;
    medoids.push(pick);
    isMedoid[pick] = 1;
    updateNearest(pick);
  }

  const near = new Int32Array(n);
  const second = new Int32Array(n);
  const dnear = new Float64Array(n);
  const dsec = new Float64Array(n);
  const assignPoint = (o: number) => {
    let b = -1;
    let sb = -1;
    let bd = Number.POSITIVE_INFINITY;
    let sd = Number.POSITIVE_INFINITY;
    for (let s = 0; s < medoids.length; s++) {
      const x = d(o, medoids[s]);
      if (x < bd) {
        sd = bd;
        sb = b;
        bd = x;
        b = s;
      } else if (x < sd) {
        sd = x;
        sb = s;
      }
    }
    near[o] = b;
    second[o] = sb;
    dnear[o] = bd;
    dsec[o] = sd;
  };
  const assign = () => {
    let cost = 0;
    for (let o = 0; o < n; o++) {
      assignPoint(o);
      cost += dnear[o];
    }
    return cost;
  };
  /** After slot `slot` became point x (distances to x in `colX`): only points that used the slot need a full scan. */
  const reassignAfterSwap = (slot: number, colX: Float64Array) => {
    let cost = 0;
    for (let o = 0; o < n; o++) {
      if (near[o] === slot || second[o] === slot) assignPoint(o);
      else {
        const dx = colX[o];
        if (dx < dnear[o]) {
          dsec[o] = dnear[o];
          second[o] = near[o];
          dnear[o] = dx;
          near[o] = slot;
        } else if (dx < dsec[o]) {
          dsec[o] = dx;
          second[o] = slot;
        }
      }
      cost += dnear[o];
    }
    return cost;
  };
  let cost = assign();
  const costHistory = [cost];
  if ((options.method ?? 'alternate') === 'alternate') {
    const iterations = alternate(k, frozen.length, medoids, near, n, d, maxIterations, costHistory, () => assign());
    return {
      medoids,
      assignment: Int32Array.from(near),
      cost: costHistory[costHistory.length - 1],
      costHistory,
      iterations,
    };
  }
  const isFrozenSlot = new Uint8Array(k);
  for (let s = 0; s < frozen.length; s++) isFrozenSlot[s] = 1;
  const loss = new Float64Array(k);
  const delta = new Float64Array(k);
  const col = new Float64Array(n);
  const computeLoss = () => {
    loss.fill(0);
    for (let o = 0; o < n; o++) if (dsec[o] !== Number.POSITIVE_INFINITY) loss[near[o]] += dsec[o] - dnear[o];
  };
  computeLoss();
  let iterations = 0;
  const canSwap = k > frozen.length && k < n;
  while (canSwap && iterations < maxIterations) {
    iterations++;
    let swaps = 0;
    for (let x = 0; x < n; x++) {
      if (isMedoid[x]) continue;
      // Column x of the condensed matrix: rows above x by stride, then row x contiguously.
      for (let o = 0; o < x; o++) col[o] = data[rs[o] + x];
      col[x] = 0;
      const base = rs[x];
      for (let o = x + 1; o < n; o++) col[o] = data[base + o];
      delta.set(loss);
      let acc = 0;
      for (let o = 0; o < n; o++) {
        const doj = col[o];
        if (doj < dnear[o]) {
          acc += doj - dnear[o];
          delta[near[o]] += dnear[o] - dsec[o];
        } else if (doj < dsec[o]) {
          delta[near[o]] += doj - dsec[o];
        }
      }
      let best = -1;
      let bestDelta = Number.POSITIVE_INFINITY;
      for (let s = 0; s < k; s++) {
        if (!isFrozenSlot[s] && delta[s] < bestDelta) {
          bestDelta = delta[s];
          best = s;
        }
      }
      if (best < 0 || bestDelta + acc >= -1e-9) continue;
      const old = medoids[best];
      medoids[best] = x;
      const newCost = reassignAfterSwap(best, col);
      if (newCost < cost) {
        isMedoid[old] = 0;
        isMedoid[x] = 1;
        cost = newCost;
        swaps++;
      } else {
        // Rounding made the predicted gain vanish: keep the old medoid, so the cost never rises.
        medoids[best] = old;
        cost = assign();
      }
      computeLoss();
    }
    costHistory.push(cost);
    if (swaps === 0) break;
  }
  return { medoids, assignment: Int32Array.from(near), cost, costHistory, iterations };
}

/**
 * Park & Jun's alternation: each free medoid moves to the member of its cluster with the least total distance to the
 * others (the current medoid wins ties, so a stable clustering stops), then every point is reassigned. Both steps can
 * only lower the cost. Frozen slots keep their medoid and still attract members.
 */
function alternate(
  k: number,
  frozenCount: number,
  medoids: number[],
  near: Int32Array,
  n: number,
  d: (i: number, j: number) => number,
  maxIterations: number,
  costHistory: number[],
  assign: () => number,
): number {
  let iterations = 0;
  // With zero distances between distinct points a medoid can sit in another slot's cluster; never pick it twice.
  const taken = new Set(medoids);
  while (k > frozenCount && iterations < maxIterations) {
    iterations++;
    const members: number[][] = Array.from({ length: k }, () => []);
    for (let o = 0; o < n; o++) members[near[o]].push(o);
    let moved = 0;
    for (let s = frozenCount; s < k; s++) {
      const group = members[s];
      const current = medoids[s];
      let best = current;
      let bestSum = 0;
      for (const o of group) bestSum += d(current, o);
      for (const c of group) {
        if (taken.has(c)) continue;
        let sum = 0;
        for (const o of group) {
          sum += d(c, o);
          if (sum >= bestSum) break;
        }
        // A strict gain (beyond rounding) is needed to move, so ties keep the current medoid and the loop ends.
        if (sum < bestSum - 1e-9) {
          bestSum = sum;
          best = c;
        }
      }
      if (best !== current) {
        taken.delete(current);
        taken.add(best);
        medoids[s] = best;
        moved++;
      }
    }
    if (moved === 0) break;
    costHistory.push(assign());
  }
  return iterations;
}
