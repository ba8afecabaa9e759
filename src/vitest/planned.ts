import { type Commission, loadCommission } from '../commission/index.js';
import { familyStrategy } from '../grading/index.js';
import type { SuitePlan } from '../run/index.js';
import { selectCases } from './case-filter.js';

/** The deliveries a commission suite runs, the family's optimization starter (a0) first, and its trials. */
export function suiteShape(commission: Commission, plan: SuitePlan) {
  const deliveries = [...plan.deliveries];
  const baseline = familyStrategy(commission.config.family).baseline?.(commission);
  // Gap closure compares a0 and the candidate on the same instances in the same run (DESIGN §5).
  if (baseline) deliveries.unshift({ ...baseline, freeze: null, role: 'starter' });
  return { deliveries, trials: plan.trials ?? commission.config.trials };
}

/** How many case × trial tests a commission suite declares to run (the filter's skipped cases left out). */
export async function plannedExecutions(plan: SuitePlan): Promise<number> {
  const commission = await loadCommission(plan.commissionDir);
  const { deliveries, trials } = suiteShape(commission, plan);
  let cases = 0;
  for (const split of plan.splits) cases += selectCases(commission.cases[split], plan.cases).run.length;
  return cases * trials * deliveries.length;
}
