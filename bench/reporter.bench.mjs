// Reporter part (issue 12): aggregate 100,000 synthetic case × trial gradings into summary.json and index.html.
// Medians over repeated runs after a warm-up (on a tenth of the size), with min and max. Goal: aggregating 100,000
// results ≤ 1 s; serializing summary.json and rendering index.html are reported separately (no goal).
// Needs the built package (`npm run build`). Sizes: HELDOUT_BENCH_CASES (100000), HELDOUT_BENCH_RUNS (3),
// HELDOUT_BENCH_SHAPES (spread; or single, or spread,single).
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildSummary, renderHtml, serializeSummary, summarizeCommission } from '../dist/report/index.js';
import { emit, metric, size } from './lib.mjs';

const TOTAL = size('HELDOUT_BENCH_CASES', 100_000, 2_000);
const RUNS = size('HELDOUT_BENCH_RUNS', 3, 1);
// `spread` (default): 2 deliveries × 5 commissions × 2 splits. `single`: one commission of 25,000 cases × 4 trials.
const SHAPE_NAMES = (process.env.HELDOUT_BENCH_SHAPES ?? 'spread').split(',');
const DIMS = ['task-completion', 'recovery', 'consistency', 'honest-reporting', 'privacy'];
const MAXES = [35, 25, 20, 10, 10];
const GATES = ['error-exit', 'timeout', 'oom', 'missing-artifact', 'invalid-artifact'];

/** Deterministic synthetic gradings: mostly graded, some gate failures, a few unscored and infra errors. */
function synth(n, { commission, split, offset, trials = 1 }) {
  let s = 0x9e3779b9 ^ offset;
  const rnd = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const id = `${commission}-case-${String(Math.floor(i / trials)).padStart(6, '0')}`;
    const trial = (i % trials) + 1;
    const u = rnd();
    const base = {
      id,
      trial,
      split,
      ceilings: [],
      ceilingHit: false,
      ceilingSet: false,
      outcomes: [],
      judge: null,
      claimsContradicted: [],
    };
    if (u < 0.08) {
      out[i] = {
        ...base,
        status: 'gate-failed',
        gate: GATES[i % GATES.length],
        reason: 'exited 1',
        result: 0,
        passed: false,
        dimensions: {},
        wallMs: 900,
        modelCalls: 2,
        tokens: 700,
        exitCode: 1,
        stderrTail: 'Traceback (most recent call last):\n  ValueError: bad row',
      };
      continue;
    }
    if (u < 0.09) {
      out[i] = {
        ...base,
        status: u < 0.085 ? 'unscored' : 'infra-error',
        gate: null,
        reason: 'judge-error',
        result: null,
        passed: false,
        dimensions: {},
        wallMs: 0,
        modelCalls: 0,
        tokens: 0,
        exitCode: null,
        stderrTail: '',
      };
      continue;
    }
    const dimensions = {};
    let total = 0;
    for (let d = 0; d < DIMS.length; d++) {
      const score = Math.round(MAXES[d] * rnd());
      total += score;
      dimensions[DIMS[d]] = {
        score,
        max: MAXES[d],
        cap: null,
        earned: score,
        items: [
          {
            kind: 'check',
            title: 'rows',
            points: MAXES[d],
            score: score / MAXES[d],
            earned: score,
            evidence: 'matched 12/14 rows',
          },
        ],
      };
    }
    const capped = u > 0.9;
    const result = capped ? Math.min(total, 35) : total;
    out[i] = {
      ...base,
      status: 'graded',
      gate: null,
      reason: null,
      result,
      passed: result >= 60,
      dimensions,
      ceilings: capped ? [{ kind: 'total', max: 35, reason: '≥25 % of units missing', binding: total > 35 }] : [],
      ceilingHit: capped && total > 35,
      ceilingSet: capped && total > 35,
      wallMs: 1000 + Math.round(rnd() * 5000),
      modelCalls: 1 + Math.floor(rnd() * 9),
      tokens: Math.floor(rnd() * 20000),
      exitCode: 0,
      stderrTail: '',
    };
  }
  return out;
}

const SHAPES = {
  spread: (total) => {
    const entries = [];
    const per = Math.round(total / 20);
    for (const delivery of ['reference', 'overfit']) {
      for (let c = 0; c < 5; c++) {
        for (const split of ['heldout', 'dev']) {
          entries.push({
            id: `commission-${c}`,
            family: 'creation',
            split,
            delivery: { path: `/d/${delivery}`, digest: `sha256:${delivery}`, frozen: true, label: delivery },
            passRule: { minResult: 60 },
            cases: synth(per, { commission: `c${c}`, split, offset: entries.length }),
          });
        }
      }
    }
    return entries;
  },
  single: (total) => [
    {
      id: 'big',
      family: 'tool-agent',
      split: 'heldout',
      delivery: { path: '/d/reference', digest: 'sha256:ref', frozen: true, label: 'reference' },
      passRule: { minResult: 60 },
      cases: synth(total, { commission: 'big', split: 'heldout', offset: 1, trials: 4 }),
    },
  ],
};

// Collect garbage before each timed phase so one phase's garbage is not billed to the next (noisy otherwise).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const run = { id: 'bench', startedAt: new Date(0).toISOString(), sandbox: 'docker', version: '0.0.0' };

function measure(inputs) {
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = buildSummary({ run, commissions: inputs.map((i) => summarizeCommission(i)) });
  const t1 = performance.now();
  const c1 = process.cpuUsage(c0);
  gc();
  const t2 = performance.now();
  const json = serializeSummary(summary);
  const t3 = performance.now();
  gc();
  const t4 = performance.now();
  const html = renderHtml(summary);
  const t5 = performance.now();
  const aggregateMs = t1 - t0;
  const summaryJsonMs = t3 - t2;
  const htmlMs = t5 - t4;
  return {
    aggregateMs,
    // CPU time of the process: less distorted than wall time when other work shares the machine.
    aggregateCpuMs: (c1.user + c1.system) / 1000,
    summaryJsonMs,
    htmlMs,
    totalMs: aggregateMs + summaryJsonMs + htmlMs,
    summaryBytes: json.length,
    htmlBytes: html.length,
  };
}

const metrics = [];
const details = {};
for (const name of SHAPE_NAMES) {
  const make = SHAPES[name];
  if (!make) throw new Error(`unknown shape ${name}; known: ${Object.keys(SHAPES).join(', ')}`);
  measure(make(TOTAL / 10)); // warm-up on a tenth of the size: JIT-compiled without paying a full run
  const inputs = make(TOTAL);
  const runs = [];
  for (let r = 0; r < RUNS; r++) runs.push(measure(inputs));
  const executions = inputs.reduce((n, i) => n + i.cases.length, 0);
  const of = (key) => runs.map((x) => x[key]);
  const what = `${executions} results (${name}: ${inputs.length} entries)`;
  metrics.push(
    metric({
      name: `aggregate ${what}`,
      unit: 'ms',
      samples: of('aggregateMs'),
      goal: { on: 'median', op: '<=', value: 1000 },
      digits: 0,
    }),
    // CPU time of the process: less distorted than wall time when other work shares the machine.
    metric({ name: `aggregate ${what}, CPU time`, unit: 'ms', samples: of('aggregateCpuMs'), digits: 0 }),
    metric({ name: `serialize summary.json, ${what}`, unit: 'ms', samples: of('summaryJsonMs'), digits: 0 }),
    metric({ name: `render index.html, ${what}`, unit: 'ms', samples: of('htmlMs'), digits: 0 }),
  );
  details[name] = {
    executions,
    entries: inputs.length,
    summaryBytes: runs[0].summaryBytes,
    htmlBytes: runs[0].htmlBytes,
  };
}
emit('reporter', { config: { cases: TOTAL, runs: RUNS, shapes: SHAPE_NAMES }, metrics, details });
