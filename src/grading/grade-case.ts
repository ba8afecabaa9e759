import type { CommissionConfig } from '../commission/index.js';
import { CheckSetupError } from './checks.js';
import { familyStrategy } from './families/index.js';
import type { FamilyGrading } from './families/types.js';
import { runGates } from './gates.js';
import { checkCeilings, checkOutcomes, scoreItems } from './grade-items.js';
import { askJudge } from './grade-judge.js';
import { computeScore, recordClaims, settleVerdict } from './grade-score.js';
import { emptyGrade, type GradeCaseInput, gateFailed, infra, newContext, type Phase } from './grading-context.js';
import { providerFaultReason } from './provider-faults.js';
import type { CaseGrade } from './types.js';

/**
 * The run gates (DESIGN §4): launched, within budget, exited as allowed, artifacts present and valid. A gate that
 * failed after the case's model calls failed on the provider's side is the provider's fault: an infra-error with
 * the ledger lines as evidence, never the delivery's Result 0.
 */
const checkGates: Phase = (ctx) => {
  const { execution, outputDir, commission, ledger } = ctx.input;
  const gates = runGates({ execution, outputDir, commission });
  ctx.gates = gates;
  if (gates.passed) return;
  const provider = execution ? providerFaultReason(gates.gate!, gates.reason!, ledger?.entries) : null;
  return provider ? infra(ctx.grade, provider) : gateFailed(ctx, gates.gate!, gates.reason!);
};

/** One case's grading, in order, with the family's own phases in their places. */
function phases(family: FamilyGrading): Phase[] {
  return [
    family.gates ?? checkGates,
    family.afterGates,
    scoreItems,
    checkOutcomes,
    checkCeilings,
    askJudge,
    computeScore,
    family.afterScore,
    recordClaims,
    settleVerdict,
    family.afterVerdict,
  ].filter((p): p is Phase => p !== undefined);
}

/** The family whose grading applies: an `editing` block makes any family's case a patch graded against starter/. */
function gradingFamily(config: Pick<CommissionConfig, 'family' | 'editing'>): FamilyGrading {
  return familyStrategy(config.editing ? 'editing' : config.family).grading ?? {};
}

/**
 * Grades one case × trial (DESIGN §4): gates → check and judge items per dimension → outcomes → total ceilings →
 * `scoreCase`, with the family's phases between. Always resolves to a plain-JSON `CaseGrade`: a judge that cannot
 * answer (or none configured) leaves the case `unscored` with its reason, a fault of the evaluator's own setup or
 * of the grader itself makes it `infra-error`; the case never vanishes.
 */
export async function gradeCase(input: GradeCaseInput): Promise<CaseGrade> {
  try {
    return await gradeOnce(input);
  } catch (err) {
    // A fault of the grader itself (an output it could not read, a bug) is the evaluator's, never the delivery's:
    // the case stays in the report as an infra-error with the fault as its evidence, rather than vanishing.
    return infra(emptyGrade(input), `the grader failed: ${(err as Error)?.message ?? String(err)}`);
  }
}

async function gradeOnce(input: GradeCaseInput): Promise<CaseGrade> {
  const steps = phases(gradingFamily(input.commission.config));
  const ctx = newContext(input);
  try {
    for (const step of steps) {
      const done = await step(ctx);
      if (done) return done;
    }
    return ctx.grade;
  } catch (err) {
    if (err instanceof CheckSetupError) return infra(ctx.grade, `evaluator setup: ${err.message}`);
    throw err;
  } finally {
    for (const clean of ctx.cleanups) clean();
  }
}
