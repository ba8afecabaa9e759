#!/usr/bin/env node
// `node bench/taste-stage3-ab.mjs <before-dist> [<after-dist>] [--runs 3] [--domains airline,retail]`: TASTE stage 3
// (offline, seed 0, as `taste generate` runs it after stages 1–2) of two builds of the package, interleaved run by run
// in fresh processes so the machine's load hits both alike; prints the median wall and CPU time of each and the
// after/before ratios as JSON. A build other than dist/ must sit inside the checkout (its imports resolve from there).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../shared/data/tau2');
const args = process.argv.slice(2);

if (args[0] === '--child') {
  const [, dist, name] = args;
  const load = (p) => import(pathToFileURL(path.join(path.resolve(dist), p)).href);
  // A build from before τ² had its own home keeps it in domains/.
  const { loadDomain } = await load('tau2/index.js').catch(() => load('domains/index.js'));
  const { executableValidator, synthesizeTask, scriptedVerifier } = await load('taste/stage3/generate.js');
  const { ruleValidator } = await load('taste/validators/rule-validator.js');
  const { trainSampler, seqKey } = await load('taste/sampler.js');
  const { clusterStage } = await load('taste/cluster.js');
  const { Rng } = await load('taste/prng.js');
  const d = loadDomain(path.join(root, name));
  const v = ruleValidator(d);
  const seed = 0;
  const names = d.tools.map((t) => t.name);
  const train = await trainSampler(
    names,
    d.gold.map((g) => g.tools),
    v,
    { seed, attempts: 3000 },
  );
  const check = executableValidator(v, d, { seed });
  const clusters = await clusterStage({
    sampler: train.sampler,
    tools: d.tools,
    validator: check,
    k: d.gold.length,
    poolSize: 2000,
    rng: new Rng(`${seed}:cluster`),
    exclude: new Set(d.gold.map((g) => seqKey(g.tools))),
  });
  const t = performance.now();
  const c = process.cpuUsage();
  let tasks = 0;
  for (const m of clusters.medoids) {
    const { task } = await synthesizeTask(d, m.sequence, `taste_${tasks}`, {
      seed,
      verifier: scriptedVerifier,
      // A build from before issue 24 has no `instantiated` and instantiates again.
      instantiated: check.instantiated?.get(seqKey(m.sequence)),
    });
    if (task) tasks++;
  }
  const cpu = process.cpuUsage(c);
  process.stdout.write(
    JSON.stringify({
      wall: performance.now() - t,
      cpu: (cpu.user + cpu.system) / 1000,
      medoids: clusters.medoids.length,
      tasks,
    }),
  );
  process.exit(0);
}

const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const runs = Number(flag('--runs', '3'));
const domains = flag('--domains', 'airline,retail').split(',');
const [before, after = path.join(here, '../dist')] = args;
if (!before) {
  process.stderr.write(
    'usage: node bench/taste-stage3-ab.mjs <before-dist> [<after-dist>] [--runs 3] [--domains airline,retail]\n',
  );
  process.exit(2);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const child = (dist, name) =>
  JSON.parse(
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dist, name], { encoding: 'utf8' }),
  );
const out = { runs, domains: {} };
for (const name of domains) {
  const s = { before: [], after: [] };
  for (let r = 0; r < runs; r++) {
    s.before.push(child(before, name));
    s.after.push(child(after, name));
  }
  const m = (side, key) => median(s[side].map((x) => x[key]));
  out.domains[name] = {
    medoids: s.after[0].medoids,
    tasks: { before: s.before[0].tasks, after: s.after[0].tasks },
    wallMs: { before: m('before', 'wall'), after: m('after', 'wall'), ratio: m('after', 'wall') / m('before', 'wall') },
    cpuMs: { before: m('before', 'cpu'), after: m('after', 'cpu'), ratio: m('after', 'cpu') / m('before', 'cpu') },
    samples: s,
  };
  process.stderr.write(
    `${name}: ${JSON.stringify({ wallMs: out.domains[name].wallMs, cpuMs: out.domains[name].cpuMs })}\n`,
  );
}
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
