import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  clusterStage,
  distance,
  kMedoids,
  loadDomain,
  Rng,
  ruleValidator,
  trainSampler,
  wedMatrixSync,
} from '../../src/taste/index.js';

const tools = [
  { name: 'get_a', type: 'READ' },
  { name: 'get_b', type: 'READ' },
  { name: 'find_c', type: 'READ' },
  { name: 'set_d', type: 'WRITE' },
  { name: 'cancel_e', type: 'WRITE' },
];
const seqs = fc.uniqueArray(fc.array(fc.constantFrom(...tools.map((t) => t.name)), { minLength: 1, maxLength: 10 }), {
  minLength: 12,
  maxLength: 80,
  selector: (s) => s.join(','),
});

const methods = ['alternate', 'fasterpam'] as const;

describe.each(methods)('k-medoids (%s)', (method) => {
  test.prop([seqs, fc.integer({ min: 1, max: 10 }), fc.integer()], { numRuns: 40 })(
    'cost never increases; the same seed reproduces the result',
    (pool, k, seed) => {
      const m = wedMatrixSync(pool, tools);
      const r = kMedoids(m, { k, rng: new Rng(seed), method });
      for (let i = 1; i < r.costHistory.length; i++) expect(r.costHistory[i]).toBeLessThanOrEqual(r.costHistory[i - 1]);
      expect(new Set(r.medoids).size).toBe(Math.min(k, pool.length));
      expect(r.iterations).toBeLessThanOrEqual(100);
      const again = kMedoids(m, { k, rng: new Rng(seed), method });
      expect(again.medoids).toEqual(r.medoids);
      expect(again.cost).toBe(r.cost);
    },
  );

  test.prop([seqs, fc.integer()], { numRuns: 20 })('frozen medoids stay medoids', (pool, seed) => {
    const m = wedMatrixSync(pool, tools);
    const r = kMedoids(m, { k: 5, rng: new Rng(seed), frozen: [3, 7], method });
    expect(r.medoids.slice(0, 2)).toEqual([3, 7]);
  });

  test.prop([seqs, fc.integer({ min: 1, max: 8 }), fc.integer()], { numRuns: 30 })(
    'every point is assigned to a nearest medoid and the reported cost is their sum',
    (pool, k, seed) => {
      const m = wedMatrixSync(pool, tools);
      const r = kMedoids(m, { k, rng: new Rng(seed), method });
      let cost = 0;
      for (let p = 0; p < pool.length; p++) {
        const nearest = Math.min(...r.medoids.map((q) => distance(m, p, q)));
        expect(distance(m, p, r.medoids[r.assignment[p]])).toBe(nearest);
        cost += nearest;
      }
      expect(r.cost).toBeCloseTo(cost, 9);
    },
  );
});

describe('k-medoids alternation (DESIGN §11: assignment/update until stable)', () => {
  test.prop([seqs, fc.integer({ min: 1, max: 8 }), fc.integer()], { numRuns: 30 })(
    'when it stops before 100 passes, each medoid is the best centre of its own cluster',
    (pool, k, seed) => {
      const m = wedMatrixSync(pool, tools);
      const r = kMedoids(m, { k, rng: new Rng(seed), method: 'alternate' });
      expect(r.iterations).toBeLessThan(100);
      r.medoids.forEach((medoid, slot) => {
        const members = pool.map((_, p) => p).filter((p) => r.assignment[p] === slot);
        const total = (c: number) => members.reduce((sum, p) => sum + distance(m, c, p), 0);
        for (const c of members) expect(total(c)).toBeGreaterThanOrEqual(total(medoid) - 1e-9);
      });
    },
  );
});

describe('stage 2 on retail (small pool)', () => {
  test('medoids are plausible, sizes cover the pool, the same seed reproduces it', async () => {
    const d = loadDomain(path.resolve(import.meta.dirname, '../../../shared/data/tau2/retail'));
    const v = ruleValidator(d);
    const train = await trainSampler(
      d.tools.map((t) => t.name),
      d.gold.map((g) => g.tools),
      v,
      { seed: 3, attempts: 600 },
    );
    const run = () =>
      clusterStage({ sampler: train.sampler, tools: d.tools, validator: v, k: 12, poolSize: 200, rng: new Rng(9) });
    const r = await run();
    expect(r.dropped).toBe(0);
    expect(new Set(r.medoids.map((m) => m.sequence.join(','))).size).toBe(12);
    for (const m of r.medoids) expect(v.check(m.sequence).plausible).toBe(true);
    expect(r.sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(200);
    expect(r.rounds).toBeLessThanOrEqual(3);
    expect(r.betweenCluster).toBeGreaterThan(0);
    expect(await run()).toEqual(r);
  });
});
