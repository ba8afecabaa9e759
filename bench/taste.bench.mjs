// TASTE stages 1–2 timings (issue 8): node bench/taste.bench.mjs [--domain-root ../shared/data/tau2]
// Needs the build (npm run build). Prints one JSON document.

import path from 'node:path';
import { performance } from 'node:perf_hooks';
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

const here = path.dirname(fileURLToPath(import.meta.url));
const argi = process.argv.indexOf('--domain-root');
const root = argi > 0 ? process.argv[argi + 1] : path.resolve(here, '../../shared/data/tau2');

const time = async (fn) => {
  const t0 = performance.now();
  const value = await fn();
  return { ms: Math.round((performance.now() - t0) * 10) / 10, value };
};

const result = { stage1: {}, wedMatrix: {}, kMedoids: {}, stage2: {} };

for (const name of ['airline', 'retail', 'telecom']) {
  const d = loadDomain(path.join(root, name));
  const v = ruleValidator(d);
  const train = await time(() =>
    trainSampler(
      d.tools.map((t) => t.name),
      d.gold.map((g) => g.tools),
      v,
      { seed: 7, attempts: 3000 },
    ),
  );
  const report = await time(() => validityReport(train.value, v));
  result.stage1[name] = { trainMs: train.ms, validityMs: report.ms, ...report.value };
}

const retail = loadDomain(path.join(root, 'retail'));
const rv = ruleValidator(retail);
const trained = (
  await trainSampler(
    retail.tools.map((t) => t.name),
    retail.gold.map((g) => g.tools),
    rv,
    { seed: 7 },
  )
).sampler;
const pool = drawPool(trained, 2000, 1.5, new Rng(11), new Set());
const single = await time(() => wedMatrixSync(pool, retail.tools));
const parallel = await time(() => wedMatrix(pool, retail.tools));
let equal = single.value.data.length === parallel.value.data.length;
for (let i = 0; equal && i < single.value.data.length; i++) equal = single.value.data[i] === parallel.value.data[i];
result.wedMatrix = {
  sequences: pool.length,
  pairs: single.value.data.length,
  singleThreadMs: single.ms,
  parallelMs: parallel.ms,
  speedup: Math.round((single.ms / parallel.ms) * 100) / 100,
  identical: equal,
};
const km = await time(() => kMedoids(single.value, { k: 114, rng: new Rng(3) }));
result.kMedoids = { k: 114, n: pool.length, ms: km.ms, iterations: km.value.iterations, cost: km.value.cost };
const stage2 = await time(() =>
  clusterStage({ sampler: trained, tools: retail.tools, validator: rv, k: 114, poolSize: 2000, rng: new Rng(5) }),
);
result.stage2 = {
  domain: 'retail',
  k: 114,
  pool: 2000,
  ms: stage2.ms,
  rounds: stage2.value.rounds,
  dropped: stage2.value.dropped,
  usable: stage2.value.medoids.length,
  withinCluster: stage2.value.withinCluster,
  betweenCluster: stage2.value.betweenCluster,
};
result.machine = { cpus: (await import('node:os')).availableParallelism(), node: process.version };
console.log(JSON.stringify(result, null, 2));
