// TASTE part (issues 8, 12): stage 1 (training the sampler with 3,000 attempts against the rule validator, per
// domain), the WED matrix of 2,000 sequences (parallel workers against the single-thread baseline, same run,
// alternating which goes first), k-medoids with K = 114, and the whole of stage 2 on retail (goal ≤ 3 s).
// Medians over RUNS runs after WARMUP full warm-up runs, with min and max. Reads the real τ²-bench domains from
// ../shared/data/tau2 (or --domain-root <dir>). Needs the built package (`npm run build`).
// Sizes: HELDOUT_BENCH_TASTE_RUNS (3), HELDOUT_BENCH_TASTE_WARMUP (1), HELDOUT_BENCH_TASTE_ATTEMPTS (3000),
// HELDOUT_BENCH_TASTE_POOL (2000), HELDOUT_BENCH_TASTE_K (114).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  clusterStage,
  drawPool,
  kMedoids,
  loadDomain,
  Rng,
  ruleValidator,
  trainSampler,
  validityReport,
  wedMatrix,
  wedMatrixSync,
} from '../dist/taste/index.js';
import { emit, metric, size, timed } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argi = process.argv.indexOf('--domain-root');
const root = argi > 0 ? process.argv[argi + 1] : path.resolve(here, '../../shared/data/tau2');
const RUNS = size('HELDOUT_BENCH_TASTE_RUNS', 3, 1);
const WARMUP = size('HELDOUT_BENCH_TASTE_WARMUP', 1, 0);
const ATTEMPTS = size('HELDOUT_BENCH_TASTE_ATTEMPTS', 3000, 300);
const POOL = size('HELDOUT_BENCH_TASTE_POOL', 2000, 150);
const K = size('HELDOUT_BENCH_TASTE_K', 114, 10);
const DOMAINS = ['airline', 'retail', 'telecom'];

const domains = Object.fromEntries(
  DOMAINS.map((name) => {
    const d = loadDomain(path.join(root, name));
    return [name, { d, v: ruleValidator(d) }];
  }),
);
const train = (name, attempts) => {
  const { d, v } = domains[name];
  return trainSampler(
    d.tools.map((t) => t.name),
    d.gold.map((g) => g.tools),
    v,
    { seed: 7, ...(attempts ? { attempts } : {}) },
  );
};

const retail = domains.retail;
const trained = (await train('retail')).sampler;
const pool = drawPool(trained, POOL, 1.5, new Rng(11), new Set());

const samples = {
  stage1: Object.fromEntries(DOMAINS.map((n) => [n, []])),
  wedSingle: [],
  wedParallel: [],
  kMedoids: [],
  kMedoidsFasterPam: [],
  stage2: [],
};
const details = { stage1: {}, wedMatrix: {}, kMedoids: {}, stage2: {} };

for (let r = 0; r < WARMUP + RUNS; r++) {
  const keep = r >= WARMUP;
  for (const name of DOMAINS) {
    const t = await timed(() => train(name, ATTEMPTS));
    if (keep) samples.stage1[name].push(t.ms);
    const report = await validityReport(t.value, domains[name].v);
    details.stage1[name] = report;
  }
  const order = r % 2 === 0 ? ['single', 'parallel'] : ['parallel', 'single'];
  const wed = {};
  for (const how of order) {
    wed[how] = await timed(() =>
      how === 'single' ? wedMatrixSync(pool, retail.d.tools) : wedMatrix(pool, retail.d.tools),
    );
  }
  if (keep) {
    samples.wedSingle.push(wed.single.ms);
    samples.wedParallel.push(wed.parallel.ms);
  }
  const a = wed.single.value.data;
  const b = wed.parallel.value.data;
  let identical = a.length === b.length;
  for (let i = 0; identical && i < a.length; i++) identical = a[i] === b[i];
  details.wedMatrix = { sequences: pool.length, pairs: a.length, identical };
  const km = await timed(() => kMedoids(wed.single.value, { k: K, rng: new Rng(3) }));
  const fp = await timed(() => kMedoids(wed.single.value, { k: K, rng: new Rng(3), method: 'fasterpam' }));
  if (keep) {
    samples.kMedoids.push(km.ms);
    samples.kMedoidsFasterPam.push(fp.ms);
  }
  details.kMedoids = {
    k: K,
    n: pool.length,
    alternate: { iterations: km.value.iterations, cost: km.value.cost },
    fasterpam: { iterations: fp.value.iterations, cost: fp.value.cost },
  };
  const s2 = await timed(() =>
    clusterStage({
      sampler: trained,
      tools: retail.d.tools,
      validator: retail.v,
      k: K,
      poolSize: POOL,
      rng: new Rng(5),
    }),
  );
  if (keep) samples.stage2.push(s2.ms);
  details.stage2 = {
    domain: 'retail',
    k: K,
    pool: POOL,
    rounds: s2.value.rounds,
    dropped: s2.value.dropped,
    usable: s2.value.medoids.length,
    withinCluster: s2.value.withinCluster,
    betweenCluster: s2.value.betweenCluster,
  };
}

emit('taste', {
  config: { runs: RUNS, warmup: WARMUP, attempts: ATTEMPTS, pool: POOL, k: K, cpus: os.availableParallelism() },
  metrics: [
    ...DOMAINS.map((name) =>
      metric({
        name: `stage 1, ${name}: train the sampler (${ATTEMPTS} attempts, rule validator)`,
        unit: 'ms',
        samples: samples.stage1[name],
        digits: 1,
      }),
    ),
    metric({
      name: `WED matrix, ${pool.length} sequences, parallel workers`,
      unit: 'ms',
      samples: samples.wedParallel,
      baseline: { name: 'single thread', samples: samples.wedSingle },
      digits: 1,
    }),
    metric({
      name: `k-medoids (assignment/update, the default), K = ${K} of ${pool.length}`,
      unit: 'ms',
      samples: samples.kMedoids,
      baseline: { name: 'FasterPAM swaps', samples: samples.kMedoidsFasterPam },
      digits: 1,
    }),
    metric({
      name: `whole stage 2 on retail (pool ${POOL}, K = ${K})`,
      unit: 'ms',
      samples: samples.stage2,
      goal: { on: 'median', op: '<=', value: 3000 },
      digits: 1,
    }),
  ],
  details,
});
