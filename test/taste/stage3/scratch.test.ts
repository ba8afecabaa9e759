import { test } from 'vitest';
import { loadDomain, ruleValidator, trainSampler, clusterStage, Rng, seqKey } from '../../../src/taste/index.js';
import { loadTau2Domain, createEnvironment } from '../../../src/domains/index.js';
import { instantiateSequence } from '../../../src/taste/stage3/instantiate.js';
test('x', async () => {
for (const name of ['airline','retail']) {
const t0 = Date.now();
const d = loadDomain('/work/shared/data/tau2/'+name);
const dd = await loadTau2Domain('/work/shared/data/tau2/'+name);
const v = ruleValidator(d);
const tr = await trainSampler(d.tools.map(t=>t.name), d.gold.map(g=>g.tools), v, { seed: 0, attempts: 3000 });
const r = await clusterStage({ sampler: tr.sampler, tools: d.tools, validator: v, k: 50, poolSize: 2000, rng: new Rng('0:cluster'), exclude: new Set(d.gold.map(g=>seqKey(g.tools))) });
console.log('cluster', Date.now()-t0, r.medoids.length);
let ok = 0;
for (const m of r.medoids) { const o = instantiateSequence(dd, m.sequence, {seed: 0, id: 'g'}); if (o.ok) ok++; else console.log('FAIL', m.sequence.join(' '), o.reason); if (o.ok && ok===1) console.log(JSON.stringify(o.task, null, 1)); }
console.log(name, 'ok', ok, Date.now()-t0);
}
});
