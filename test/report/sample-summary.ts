import { type BuildOptions, buildSummary, type Summary, summarizeCommission } from '../../src/report/index.js';
import { delivery, gateFailed, grade } from './synthetic-grades.js';

export const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> | & "q" \u0001';

/**
 * A small run: the reference delivery on two splits of one commission (so a gap), an overfit delivery, and an
 * optimization commission with a starter. Case c-hostile carries markup and control characters in every text field.
 */
export function sampleSummary(options: Omit<BuildOptions, 'run' | 'commissions'> = {}): Summary {
  const overfit = { path: '/deliveries/overfit', digest: 'sha256:bbbb', frozen: true, label: 'overfit' };
  const held = [
    grade({ id: 'c-01', result: 92 }),
    grade({ id: 'c-02', result: 71 }),
    gateFailed('c-03', 'timeout', { reason: 'killed after 600 s', stderrTail: 'Traceback: slow loop' }),
    grade({
      id: 'c-hostile',
      result: 35,
      passed: false,
      reason: HOSTILE,
      stderrTail: HOSTILE,
      ceilings: [{ kind: 'total', max: 35, reason: `missing units ${HOSTILE}`, binding: true }],
      ceilingHit: true,
      ceilingSet: true,
      dimensions: {
        correctness: {
          score: 20,
          max: 60,
          cap: 25,
          earned: 30,
          items: [
            {
              kind: 'judge',
              title: 'faithful',
              points: 60,
              score: 0.5,
              earned: 30,
              evidence: `output said ${HOSTILE}`,
            },
          ],
        },
        clarity: { score: 15, max: 40, cap: null, earned: 15, items: [] },
      },
      judge: { model: 'judge-model', assessment: `weak ${HOSTILE}`, majorErrors: ['dropped rows'], cached: false },
    }),
  ];
  const dev = [grade({ id: 'd-01', split: 'dev', result: 95 }), grade({ id: 'd-02', split: 'dev', result: 85 })];
  const base = { id: 'csv-report', family: 'creation' as const, passRule: { minResult: 60 } };
  const commissions = [
    summarizeCommission({ ...base, split: 'heldout', delivery, cases: held }),
    summarizeCommission({ ...base, split: 'dev', delivery, cases: dev }),
    summarizeCommission({
      ...base,
      split: 'heldout',
      delivery: overfit,
      hardCodedDevStrings: ['ACME-2231'],
      cases: [
        grade({ id: 'c-01', result: 20, passed: false }),
        gateFailed('c-02', 'error-exit'),
        grade({ id: 'c-03', result: 61 }),
      ],
    }),
    summarizeCommission({
      id: 'speedup',
      family: 'optimization',
      split: 'heldout',
      delivery,
      passRule: { minResult: 50 },
      cases: [1, 2].flatMap((t) => [
        grade({ id: 'o-1', trial: t, result: 60 }),
        grade({ id: 'o-2', trial: t, result: 40 + t }),
      ]),
      optimization: { starter: [grade({ id: 'o-1', result: 20 }), grade({ id: 'o-2', result: 50 })] },
    }),
  ];
  return buildSummary({
    ...options,
    run: { id: 'run-2025-01-02', startedAt: '2025-01-02T03:04:05.000Z', sandbox: 'docker', version: '0.1.0' },
    commissions,
  });
}
