import type { CaseGrade } from '../../src/grading/index.js';
import type { SummarizeInput } from '../../src/report/index.js';

/** A small deterministic PRNG for fixtures (independent of src/metrics, so a change there cannot move the input). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let t = Math.imul(s ^ (s >>> 16), 0x21f0aaad);
    t = Math.imul(t ^ (t >>> 15), 0x735a2d97);
    return ((t ^ (t >>> 15)) >>> 0) / 4294967296;
  };
}

const DIMS: [string, number][] = [
  ['task-completion', 40],
  ['recovery', 25],
  ['consistency', 20],
  ['honest-reporting', 15],
];
const GATES = ['error-exit', 'timeout', 'oom', 'missing-artifact', 'invalid-artifact'] as const;

interface Shape {
  cases: number;
  trials: number;
  /** Results are rounded to multiples of this (large steps: few distinct values, the bootstrap's counts path). */
  step: number;
  shuffle: boolean;
}

function grades(seed: number, prefix: string, shape: Shape): CaseGrade[] {
  const rnd = prng(seed);
  const out: CaseGrade[] = [];
  for (let c = 0; c < shape.cases; c++) {
    for (let t = 1; t <= shape.trials; t++) {
      const id = `${prefix}-${String(c).padStart(4, '0')}`;
      const u = rnd();
      const common = {
        id,
        trial: t,
        split: 'heldout' as const,
        ceilings: [],
        ceilingHit: false,
        ceilingSet: false,
        outcomes: [],
        judge: null,
        claimsContradicted: u > 0.97 ? ['all rows parsed'] : [],
        stderrTail: '',
      };
      if (u < 0.1) {
        out.push({
          ...common,
          status: 'gate-failed',
          gate: u < 0.005 ? null : GATES[Math.floor(u * 50) % GATES.length],
          reason: 'exited 1',
          result: u < 0.05 ? 12 : 0,
          passed: false,
          dimensions: {},
          wallMs: 900,
          modelCalls: 2,
          tokens: 700,
          exitCode: 1,
        });
        continue;
      }
      if (u < 0.13) {
        out.push({
          ...common,
          status: u < 0.12 ? 'unscored' : 'infra-error',
          gate: null,
          reason: 'judge-error',
          result: null,
          passed: false,
          dimensions: {},
          wallMs: 0,
          modelCalls: 0,
          tokens: 0,
          exitCode: null,
        });
        continue;
      }
      const dimensions: CaseGrade['dimensions'] = {};
      let total = 0;
      for (const [name, max] of DIMS) {
        const score = Math.round((max * rnd()) / shape.step) * shape.step;
        total += Math.min(score, max);
        dimensions[name] = {
          score: Math.min(score, max),
          max,
          cap: name === 'recovery' && u > 0.9 ? 10 : null,
          earned: score,
          items:
            name === 'consistency'
              ? []
              : [{ kind: 'check', title: 'rows', points: max, score: 1, earned: max, evidence: '12/14' }],
        };
      }
      const capped = u > 0.92;
      const result = capped ? Math.min(total, 35) : total;
      out.push({
        ...common,
        status: 'graded',
        gate: null,
        reason: null,
        result,
        passed: result >= 50 && u < 0.9,
        dimensions,
        ceilings: capped ? [{ kind: 'total', max: 35, reason: 'rows missing', binding: total > 35 }] : [],
        ceilingHit: capped && total > 35,
        ceilingSet: capped,
        wallMs: 1000 + Math.round(rnd() * 5000),
        modelCalls: u > 0.95 ? 0 : 1 + Math.floor(rnd() * 9),
        tokens: Math.floor(rnd() * 20000),
        exitCode: 0,
      });
    }
  }
  if (shape.shuffle) {
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
  }
  return out;
}

const delivery = (label: string) => ({ path: `/deliveries/${label}`, digest: `sha256:${label}`, frozen: true });

/**
 * A fixed, seeded set of summarizeCommission inputs that reaches every branch of the aggregation: one and several
 * trials, shuffled and ordered gradings, every status and gate, ceilings, contradicted claims, both bootstrap
 * methods (few distinct Results → counts, many → direct), an optimization block, a given dev mean, dev/held-out pairs.
 */
export function seededInputs(): SummarizeInput[] {
  const passRule = { minResult: 60 };
  const base = { family: 'creation' as const, passRule };
  const starter = grades(7, 'opt', { cases: 120, trials: 1, step: 5, shuffle: true });
  return [
    {
      ...base,
      id: 'csv',
      split: 'heldout',
      delivery: delivery('reference'),
      cases: grades(1, 'csv', { cases: 400, trials: 1, step: 5, shuffle: false }),
    },
    {
      ...base,
      id: 'csv',
      split: 'dev',
      delivery: delivery('reference'),
      cases: grades(2, 'csv', { cases: 60, trials: 1, step: 1, shuffle: false }),
    },
    {
      ...base,
      id: 'trials',
      split: 'heldout',
      delivery: delivery('overfit'),
      cases: grades(3, 'tr', { cases: 90, trials: 4, step: 10, shuffle: true }),
      devMean: 71.25,
    },
    {
      ...base,
      id: 'fine',
      split: 'heldout',
      delivery: { ...delivery('fine'), label: 'fine-grained' },
      cases: grades(4, 'fi', { cases: 150, trials: 2, step: 0.25, shuffle: false }),
      seed: 'fixed-seed',
      resamples: 500,
    },
    {
      ...base,
      id: 'opt',
      family: 'optimization',
      split: 'heldout',
      delivery: delivery('reference'),
      cases: grades(5, 'opt', { cases: 130, trials: 1, step: 5, shuffle: false }),
      optimization: { starter },
      hardCodedDevStrings: ['ACME-2231'],
    },
    {
      ...base,
      id: 'lost',
      split: 'heldout',
      delivery: delivery('reference'),
      cases: grades(6, 'lo', { cases: 3, trials: 1, step: 5, shuffle: false }).map((g) => ({
        ...g,
        status: 'infra-error' as const,
        result: null,
      })),
      noModelCalls: true,
    },
    { ...base, id: 'empty', split: 'dev', delivery: delivery('reference'), cases: [] },
  ];
}
