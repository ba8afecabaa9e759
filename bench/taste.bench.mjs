// TASTE part (issues 8, 12, 24): stage 1 (training the sampler with 3,000 attempts against the rule validator, per
// domain), the WED matrix of 2,000 sequences (wedMatrix as called against wedMatrixSync, same run, alternating
// which goes first), k-medoids with K = 114, and the whole of stage 2 on retail (goal ≤ 3 s). Issue 24:
// the WED matrix of 2,000 random sequences (length 1–15, 16 tools) against a plain single-thread C loop on the same
// encoded input (bench/wed-baseline.c, compiled here with gcc -O2; goal: wedMatrix on 2 cores ≤ 0.55× its time), and
// stages 1, 2 and 3 of `taste generate` timed apart per domain with a stage-3 kit (offline: rule validator,
// programmatic instantiation, scripted verifier), as generateTasks runs them.
// Medians over RUNS runs after WARMUP full warm-up runs, with min and max. Reads the real τ²-bench domains from
// ../shared/data/tau2 (or --domain-root <dir>). Needs the built package (`npm run build`).
// Sizes: HELDOUT_BENCH_TASTE_RUNS (3), HELDOUT_BENCH_TASTE_WARMUP (1), HELDOUT_BENCH_TASTE_ATTEMPTS (3000),
// HELDOUT_BENCH_TASTE_POOL (2000), HELDOUT_BENCH_TASTE_K (114), HELDOUT_BENCH_TASTE_RANDOM (2000 random sequences),
// HELDOUT_BENCH_TASTE_STAGES (1: runs of the stage 1–3 timings per domain; 0 skips them).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  clusterStage,
  drawPool,
  encodeSequences,
  executableValidator,
  kMedoids,
  loadDomain,
  Rng,
  ruleValidator,
  scriptedVerifier,
  seqKey,
  synthesizeTask,
  trainSampler,
  validityReport,
  wedMatrix,
  wedMatrixSync,
} from '../dist/taste/index.js';
import { findKit } from '../dist/tau2/index.js';
import { emit, metric, round, size, timed } from './lib.mjs';
import { compileWedBaseline, runWedBaseline, sameMatrix, wedInput } from './wed-c.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argi = process.argv.indexOf('--domain-root');
const root = argi > 0 ? process.argv[argi + 1] : path.resolve(here, '../../shared/data/tau2');
const RUNS = size('HELDOUT_BENCH_TASTE_RUNS', 3, 1);
const WARMUP = size('HELDOUT_BENCH_TASTE_WARMUP', 1, 0);
const ATTEMPTS = size('HELDOUT_BENCH_TASTE_ATTEMPTS', 3000, 300);
const POOL = size('HELDOUT_BENCH_TASTE_POOL', 2000, 150);
const K = size('HELDOUT_BENCH_TASTE_K', 114, 10);
const DOMAINS = ['airline', 'retail', 'telecom'];
const RANDOM = size('HELDOUT_BENCH_TASTE_RANDOM', 2000, 200);
const STAGE_RUNS = size('HELDOUT_BENCH_TASTE_STAGES', 1, 1);
// The stage-3 goals (issue 24) are for the full sizes only.
const QUICK_SIZES = ATTEMPTS !== 3000 || POOL !== 2000;

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

// The WED matrix against a plain C loop: 2,000 random sequences, length 1–15, 16 tools (4 groups, 3 types).
const TYPES = ['READ', 'WRITE', 'GENERIC'];
const randomTools = Array.from({ length: 16 }, (_, i) => ({ name: `g${i % 4}_tool${i}`, type: TYPES[i % 3] }));
const rr = new Rng(24);
const randomSeqs = Array.from({ length: RANDOM }, () =>
  Array.from({ length: 1 + rr.int(15) }, () => randomTools[rr.int(16)].name),
);
const c = compileWedBaseline(['-O2']);
// Four ways, rotated so drift hits all alike: the C loop; wedMatrixSync; wedMatrix as a user calls it (on this
// 2-core machine: one thread below 8M pairs, see wed-matrix.ts); wedMatrix forced onto the calling thread plus one
// worker (start-up included: the worker is spawned inside the call).
const HOW = ['c', 'single', 'parallel', 'two'];
const wedC = Object.fromEntries(
  HOW.flatMap((h) => [
    [h, []],
    [`${h}Cpu`, []],
  ]),
);
const loadavg = [os.loadavg()[0]];
if (!c.error) {
  const input = wedInput(encodeSequences(randomSeqs, randomTools));
  let identical = true;
  const cpu = async (fn) => {
    const u0 = process.cpuUsage();
    const t = await timed(fn);
    const u = process.cpuUsage(u0);
    return { ...t, cpuMs: (u.user + u.system) / 1000 };
  };
  const call = {
    single: () => wedMatrixSync(randomSeqs, randomTools),
    parallel: () => wedMatrix(randomSeqs, randomTools),
    two: () => wedMatrix(randomSeqs, randomTools, { threads: 2, minPairsForWorkers: 0 }),
  };
  try {
    for (let r = 0; r < WARMUP + RUNS; r++) {
      const keep = r >= WARMUP;
      const order = [...HOW.slice(r % 4), ...HOW.slice(0, r % 4)];
      for (const how of order) {
        if (how === 'c') {
          const x = runWedBaseline(c, input);
          if (keep) {
            wedC.c.push(x.ms);
            wedC.cCpu.push(x.cpuMs);
          }
          wedC.matrix = x.matrix;
        } else {
          const t = await cpu(call[how]);
          if (keep) {
            wedC[how].push(t.ms);
            wedC[`${how}Cpu`].push(t.cpuMs);
          }
          wedC[`${how}Matrix`] = t.value.data;
        }
      }
      identical &&= ['single', 'parallel', 'two'].every((h) => sameMatrix(wedC[`${h}Matrix`], wedC.matrix));
    }
  } finally {
    c.cleanup();
  }
  loadavg.push(os.loadavg()[0]);
  details.wedVsC = {
    sequences: RANDOM,
    tools: 16,
    lengths: '1–15',
    gcc: c.version,
    flags: c.flags,
    identical,
    loadAverage1m: { before: round(loadavg[0], 2), after: round(loadavg[1], 2) },
    timed: {
      c: 'the matrix loop only, inside the program (not reading its input)',
      js: 'the whole call: encoding the strings, WebAssembly instantiation, worker start-up, the result',
    },
  };
} else details.wedVsC = { skipped: c.error };

// Stages 1–3 of `taste generate` timed apart, per domain that has a stage-3 kit, offline, as generateTasks runs them.
const stageSamples = {};
for (const name of DOMAINS.filter((n) => findKit(n)?.synthesis && STAGE_RUNS > 0)) {
  const { d, v } = domains[name];
  stageSamples[name] = { s1: [], s2: [], s3: [] };
  for (let r = 0; r < STAGE_RUNS; r++) {
    const seed = 0;
    const s1 = await timed(() =>
      trainSampler(
        d.tools.map((t) => t.name),
        d.gold.map((g) => g.tools),
        v,
        { seed, attempts: ATTEMPTS },
      ),
    );
    const check = executableValidator(v, d, { seed });
    const s2 = await timed(() =>
      clusterStage({
        sampler: s1.value.sampler,
        tools: d.tools,
        validator: check,
        k: Math.min(K, d.gold.length),
        poolSize: POOL,
        rng: new Rng(`${seed}:cluster`),
        exclude: new Set(d.gold.map((g) => seqKey(g.tools))),
      }),
    );
    let generated = 0;
    const s3 = await timed(async () => {
      for (const m of s2.value.medoids) {
        const { task } = await synthesizeTask(d, m.sequence, `taste_${generated}`, {
          seed,
          verifier: scriptedVerifier,
          instantiated: check.instantiated.get(seqKey(m.sequence)),
        });
        if (task) generated++;
      }
    });
    stageSamples[name].s1.push(s1.ms);
    stageSamples[name].s2.push(s2.ms);
    stageSamples[name].s3.push(s3.ms);
    details.stages = { ...details.stages, [name]: { medoids: s2.value.medoids.length, generated } };
  }
}
const stageGoal = { airline: 8000, retail: 15000 };

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
      name: `WED matrix, ${pool.length} sequences, wedMatrix as called`,
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
    ...(wedC.c.length
      ? [
          metric({
            name: `WED matrix, ${RANDOM} random sequences (1–15, 16 tools), wedMatrix as called on ${os.availableParallelism()} cores`,
            unit: 'ms',
            samples: wedC.parallel,
            baseline: { name: 'plain C loop, one thread (gcc -O2)', samples: wedC.c },
            goal: { on: 'ratio', op: '<=', value: 0.55 },
            digits: 1,
          }),
          metric({
            name: `WED matrix, ${RANDOM} random sequences, wedMatrix on this thread + 1 worker (start-up included)`,
            unit: 'ms',
            samples: wedC.two,
            baseline: { name: 'plain C loop, one thread (gcc -O2)', samples: wedC.c },
            digits: 1,
          }),
          metric({
            name: `WED matrix, ${RANDOM} random sequences, wedMatrixSync (one thread)`,
            unit: 'ms',
            samples: wedC.single,
            baseline: { name: 'plain C loop, one thread (gcc -O2)', samples: wedC.c },
            digits: 1,
          }),
          ...['single', 'parallel', 'two'].map((h) =>
            metric({
              name: `WED matrix, ${RANDOM} random sequences, ${{ single: 'wedMatrixSync', parallel: 'wedMatrix as called', two: 'this thread + 1 worker' }[h]}, CPU time`,
              unit: 'ms',
              samples: wedC[`${h}Cpu`],
              baseline: { name: 'C loop, CPU time', samples: wedC.cCpu },
              digits: 1,
            }),
          ),
        ]
      : []),
    ...Object.entries(stageSamples).flatMap(([name, x]) => [
      metric({ name: `taste generate, ${name}: stage 1 (${ATTEMPTS} attempts)`, unit: 'ms', samples: x.s1, digits: 0 }),
      metric({
        name: `taste generate, ${name}: stage 2 (pool ${POOL}, medoids checked instantiable)`,
        unit: 'ms',
        samples: x.s2,
        digits: 0,
      }),
      metric({
        name: `taste generate, ${name}: stage 3 offline (${details.stages[name].medoids} medoids → ${details.stages[name].generated} tasks)`,
        unit: 'ms',
        samples: x.s3,
        ...(stageGoal[name] && !QUICK_SIZES ? { goal: { on: 'median', op: '<=', value: stageGoal[name] } } : {}),
        digits: 0,
      }),
    ]),
  ],
  details,
});
