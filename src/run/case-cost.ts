/** A case trial's cost in money from its ledgers (issue 34): the delivery's, the user simulator's and the judge's. */
import path from 'node:path';
import { type Gateway, type LedgerEntry, type PricingTable, readPricing } from '../gateway/index.js';
import type { CaseCost, CaseGrade, JudgeConfig } from '../grading/index.js';

/** USD of a ledger's calls, or null when one of them was on a model the table has no price for. */
export function ledgerCost(entries: LedgerEntry[], unpriced: Set<string>): number | null {
  let usd: number | null = 0;
  for (const e of entries) {
    if (e.costUsd === null) {
      if (e.model) unpriced.add(e.model);
      usd = null;
    } else if (usd !== null) usd += e.costUsd ?? 0;
  }
  return usd;
}

/** The case's cost; undefined without a pricing table (nothing was priced, so nothing is claimed). */
export function caseCost(
  pricing: PricingTable | null,
  delivery: LedgerEntry[],
  user: LedgerEntry[],
  judge: { costUsd?: number | null; model: string } | null,
): CaseCost | undefined {
  if (!pricing) return undefined;
  const unpriced = new Set<string>();
  const d = ledgerCost(delivery, unpriced);
  const u = ledgerCost(user, unpriced);
  const j = judge ? (judge.costUsd ?? null) : 0;
  if (judge && judge.costUsd === null) unpriced.add(judge.model);
  const total = d === null || u === null || j === null ? null : d + u + j;
  return { delivery: d, user: u, judge: j, total, ...(unpriced.size ? { unpriced: [...unpriced].sort() } : {}) };
}

/** The grade with its cost in money when there is a pricing table; the user simulator's ledger is `<caseKey>#user`. */
export function withCost(
  pricing: PricingTable | null,
  grade: CaseGrade,
  ledger: LedgerEntry[],
  gateway: Pick<Gateway, 'ledgerFor'>,
  caseKey: string,
  trial: number,
): CaseGrade {
  const cost = caseCost(pricing, ledger, gateway.ledgerFor(`${caseKey}#user`, trial), grade.judge);
  return cost ? { ...grade, cost } : grade;
}

/** The judge's configuration with its model's rates from the table (absent without one, null when unpriced). */
export function pricedJudge(config: JudgeConfig | null, pricing: PricingTable | null, model: string | undefined) {
  if (!config || !pricing) return config;
  return { ...config, price: pricing.models[model ?? config.model] ?? null };
}

/** Reads a pricing file once up front (a bad one throws one line naming it and the field); its absolute path. */
export function checkPricing(file: string, root: string = process.cwd()): string {
  const abs = path.resolve(root, file);
  readPricing(abs);
  return abs;
}

/** The id a commission's registrations name for its `budgets.runUsd` (one gateway runs one session's cases). */
export const runPurseId = (commissionId: string) => `commission ${commissionId}`;
