import { loadDomain, ruleValidator, trainSampler, clusterStage, Rng, seqKey } from '../../../src/taste/index.js';
import { test } from 'vitest';
test('x', async () => {
const t0 = Date.now();
const d = loadDomain('/work/shared/data/tau2/airline');
const v = ruleValidator(d);
const tr = await trainSampler(d.tools.map(t=>t.name), d.gold.map(g=>g.tools), v, { seed: 0, attempts: 3000 });
console.log('train', Date.now()-t0);
const r = await clusterStage({ sampler: tr.sampler, tools: d.tools, validator: v, k: d.gold.length, poolSize: 2000, rng: new Rng('0:cluster'), exclude: new Set(d.gold.map(g=>seqKey(g.tools))) });
console.log('cluster', Date.now()-t0, r.medoids.length, r.dropped);
for (const m of r.medoids) console.log(m.sequence.join(' '));
});
