import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  clusterStage,
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

describe('k-medoids', () => {
  test.prop([seqs, fc.integer({ min: 1, max: 10 }), fc.integer()], { numRuns: 40 })(
    'cost never increases; the same seed reproduces the result',
    (pool, k, seed) => {
      const m = wedMatrixSync(pool, tools);
      const r = kMedoids(m, { k, rng: new Rng(seed) });
      for (let i = 1; i < r.costHistory.length; i++) expect(r.costHistory[i]).toBeLessThanOrEqual(r.costHistory[i - 1]);
      expect(new Set(r.medoids).size).toBe(Math.min(k, pool.length));
      expect(r.iterations).toBeLessThanOrEqual(100);
      const again = kMedoids(m, { k, rng: new Rng(seed) });
      expect(again.medoids).toEqual(r.medoids);
      expect(again.cost).toBe(r.cost);
    },
  );

  test.prop([seqs, fc.integer()], { numRuns: 20 })('frozen medoids stay medoids', (pool, seed) => {
    const m = wedMatrixSync(pool, tools);
    const r = kMedoids(m, { k: 5, rng: new Rng(seed), frozen: [3, 7] });
    expect(r.medoids.slice(0, 2)).toEqual([3, 7]);
  });
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
    expect(r.medoids.length + r.dropped).toBe(12);
    for (const m of r.medoids) expect(v.check(m.sequence).plausible).toBe(true);
    expect(r.sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(200);
    expect(r.rounds).toBeLessThanOrEqual(3);
    expect(r.betweenCluster).toBeGreaterThan(0);
    expect(await run()).toEqual(r);
  });
});
