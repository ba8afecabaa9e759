import type { CaseGrade } from '../../src/grading/index.js';

/** Builds a CaseGrade with plausible defaults: a graded, passing case with two dimensions. */
export function grade(over: Partial<CaseGrade> & { id: string }): CaseGrade {
  const result = over.result === undefined ? 80 : over.result;
  return {
    trial: 1,
    split: 'heldout',
    status: 'graded',
    gate: null,
    reason: null,
    result,
    passed: (result ?? 0) >= 60,
    dimensions: {
      correctness: {
        score: Math.min(60, result ?? 0),
        max: 60,
        cap: null,
        earned: Math.min(60, result ?? 0),
        items: [{ kind: 'check', title: 'totals match', points: 60, score: 1, earned: 60, evidence: 'sum = 42' }],
      },
      clarity: { score: Math.max(0, (result ?? 0) - 60), max: 40, cap: null, earned: 0, items: [] },
    },
    ceilings: [],
    ceilingHit: false,
    ceilingSet: false,
    outcomes: [],
    judge: null,
    wallMs: 1200,
    modelCalls: 3,
    tokens: 900,
    exitCode: 0,
    stderrTail: '',
    claimsContradicted: [],
    ...over,
  };
}

export function gateFailed(id: string, gate: CaseGrade['gate'], over: Partial<CaseGrade> = {}): CaseGrade {
  return grade({
    id,
    status: 'gate-failed',
    gate,
    result: 0,
    passed: false,
    reason: `${gate} happened`,
    dimensions: {},
    exitCode: gate === 'error-exit' ? 1 : 0,
    ...over,
  });
}

export const delivery = { path: '/deliveries/reference', digest: 'sha256:aaaa', frozen: true, label: 'reference' };
