import type { CaseRef, Split } from '../commission/index.js';
import type { CaseGrade } from '../grading/index.js';

/** A case grade that is not a score: `unscored` (no reward can honestly be given) or an evaluator-side fault. */
export function stoppedGrade(
  caseRef: Pick<CaseRef, 'id'>,
  split: Split,
  trial: number,
  status: 'unscored' | 'infra-error',
  reason: string,
): CaseGrade {
  return {
    id: caseRef.id,
    trial,
    split,
    status,
    gate: null,
    reason,
    result: null,
    passed: false,
    dimensions: {},
    ceilings: [],
    ceilingHit: false,
    ceilingSet: false,
    outcomes: [],
    judge: null,
    wallMs: 0,
    modelCalls: 0,
    tokens: 0,
    exitCode: null,
    stderrTail: '',
    claimsContradicted: [],
  };
}
