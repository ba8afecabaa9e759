import { afterAll, describe, test } from 'vitest';
import { loadCommission } from '../commission/index.js';
import { type CaseMeta, failureSummary, type PlannedCase, RunSession, type SuitePlan } from '../run/index.js';
import { selectCases } from './case-filter.js';
import { suiteShape } from './planned.js';

declare module 'vitest' {
  interface TaskMeta {
    /** The grading of a heldout case × trial; plain JSON, so blob reports and `--merge-reports` carry it. */
    heldout?: CaseMeta;
    /** Which case × trial the test is, set at collection: the reporter names the cases a filter left out. */
    heldoutCase?: PlannedCase;
  }
}

/** Raised by a heldout test whose case missed the commission's pass rule; the message names gate or dimensions. */
export class CaseFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaseFailure';
    // The stack of this file says nothing about why a delivery failed a case.
    this.stack = `${this.name}: ${message}`;
  }
}

/**
 * Runs at collection time of a generated commission module: declares `describe(commission)` →
 * `describe(delivery · split)` → one `test` per case × trial. Each test runs its case in the sandbox, grades it,
 * stores the grading in `task.meta.heldout` and fails when the case misses the pass rule.
 */
export async function defineCommissionSuite(plan: SuitePlan): Promise<void> {
  const commission = await loadCommission(plan.commissionDir);
  const session = RunSession.forPlan(plan);
  afterAll(() => session.close());

  const { deliveries, trials } = suiteShape(commission, plan);
  // A hang deadline only: a case prepared ahead may wait one case's run for its turn before its own (plugin.ts).
  // `--repeat` runs the case that many times within the one test.
  const timeout = (plan.repeat ?? 1) * (2 * commission.config.budgets.wallSeconds + 300) * 1000;

  describe(`${commission.config.id}`, () => {
    for (const delivery of deliveries) {
      for (const split of plan.splits) {
        const { skipped } = selectCases(commission.cases[split], plan.cases);
        describe.concurrent(`${delivery.label} · ${split}`, () => {
          for (const caseRef of commission.cases[split]) {
            // A case the filter leaves out is declared skipped, not left out: Vitest's output and the report
            // (which counts skipped cases as planned and not run) both show the run is partial.
            const declare = skipped.includes(caseRef.id) ? test.skip : test;
            for (let trial = 1; trial <= trials; trial++) {
              const name = trials > 1 ? `${caseRef.id} · trial ${trial}` : caseRef.id;
              const heldoutCase: PlannedCase = {
                commission: commission.config.id,
                delivery: delivery.label,
                split,
                id: caseRef.id,
                trial,
              };
              declare(name, { timeout, meta: { heldoutCase } }, async ({ task }) => {
                const meta = await session.runCase({ commission, delivery, caseRef, split, trial });
                task.meta.heldout = meta;
                if (meta.refused) throw new CaseFailure(`refused: ${meta.refused}`);
                // a0 is the evaluator's baseline, measured beside the candidate and outside the verdict: its
                // misses are in the report (J0), not failed tests that would turn every optimization run red.
                if (!meta.grade.passed && delivery.role !== 'starter')
                  throw new CaseFailure(failureSummary(meta.grade, commission.config.pass.minResult));
              });
            }
          }
        });
      }
    }
  });
}
