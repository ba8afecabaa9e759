import { compareEntries, partnerOf } from './compare.js';
import { deliveryLabel, fmt, fmtCI, fmtP, fmtSigned, maxK } from './format.js';
import type { CommissionSummary, GateCondition, GateReport, PartialReport, Summary } from './schema.js';
import type { GateThresholds } from './types.js';

/** What the gate reads beside the entries: the baseline run, the cases that ran to no grade, the partial record. */
export interface GateContext {
  /** The `noRegressionVs` baseline, read (and migrated) by the caller; `error` when it could not be read. */
  baseline?: { summary: Summary; path: string } | { error: string; path: string };
  /** Case tests that failed without a grade (a refused delivery, a tampered tree). */
  ungraded?: number;
  partial?: PartialReport | null;
}

type Entry = Pick<CommissionSummary, 'id' | 'split' | 'delivery' | 'result' | 'passHatK' | 'gap'> &
  Partial<CommissionSummary>;

const hasThresholds = (t: GateThresholds) =>
  t.minResult !== undefined || t.minPassHatK !== undefined || t.maxGap !== undefined || t.noRegressionVs !== undefined;

function baselineOf(t: GateThresholds): { summary: string; margin: number } | null {
  const v = t.noRegressionVs;
  if (v === undefined) return null;
  return typeof v === 'string' ? { summary: v, margin: 0 } : { summary: v.summary, margin: v.margin ?? 0 };
}

function entryConditions(c: Entry, t: GateThresholds, ctx: GateContext): GateCondition[] {
  const label = deliveryLabel(c as CommissionSummary);
  const who = `${c.id} (${label})`;
  const at = { commission: c.id, delivery: label, split: c.split };
  const out: GateCondition[] = [];
  const mean = c.result.mean;
  if (t.minResult !== undefined) {
    const met = mean !== null && mean >= t.minResult;
    out.push({
      ...at,
      condition: 'minResult',
      threshold: t.minResult,
      value: mean,
      met,
      message: met
        ? `${who}: held-out Result ${fmt(mean)} ≥ minResult ${t.minResult}`
        : `${who}: held-out Result ${mean?.toFixed(1) ?? 'unscored'} < minResult ${t.minResult}`,
    });
  }
  if (t.minPassHatK !== undefined) {
    const k = maxK(c as CommissionSummary);
    const v = k !== null ? (c.passHatK[k] ?? null) : null;
    const met = v !== null && v >= t.minPassHatK;
    out.push({
      ...at,
      condition: 'minPassHatK',
      threshold: t.minPassHatK,
      value: v,
      met,
      message: `${who}: pass^${k ?? 1} ${v?.toFixed(3) ?? 'n/a'} ${met ? '≥' : '<'} minPassHatK ${t.minPassHatK}`,
    });
  }
  if (t.maxGap !== undefined) {
    const met = c.gap !== null && c.gap <= t.maxGap;
    out.push({
      ...at,
      condition: 'maxGap',
      threshold: t.maxGap,
      value: c.gap,
      met,
      message:
        c.gap === null
          ? `${who}: no fidelity gap (needs scored dev and held-out cases of the same digest) for maxGap ${t.maxGap}`
          : `${who}: fidelity gap ${c.gap.toFixed(1)} ${met ? '≤' : '>'} maxGap ${t.maxGap}`,
    });
  }
  const base = baselineOf(t);
  if (base && ctx.baseline && 'summary' in ctx.baseline) out.push(regression(c, at, who, base.margin, ctx.baseline));
  return out;
}

function regression(
  c: Entry,
  at: Pick<GateCondition, 'commission' | 'delivery' | 'split'>,
  who: string,
  margin: number,
  baseline: { summary: Summary; path: string },
): GateCondition {
  const runId = baseline.summary.run.id;
  // −0 would print as 0 anyway; keep the record plain.
  const cond = { ...at, condition: 'noRegressionVs' as const, threshold: -margin || 0 };
  const partner = partnerOf(c as CommissionSummary, baseline.summary.commissions);
  if (!partner) {
    return {
      ...cond,
      value: null,
      met: false,
      message: `${who}: the baseline ${baseline.path} (run ${runId}) has no held-out entry to compare it with`,
    };
  }
  const cmp = compareEntries(partner, c as CommissionSummary);
  const p = cmp.paired;
  if (p.n === 0) {
    return {
      ...cond,
      value: null,
      met: false,
      message: `${who}: no case was graded in both this run and the baseline run ${runId}`,
      comparison: p,
    };
  }
  const worse = p.ci95 !== null && p.ci95[1] < -margin;
  const figures = `Δ ${fmtSigned(p.meanDiff)} (95 % CI ${fmtCI(p.ci95)}) over ${p.n} cases, W/L/T ${p.wins}/${p.losses}/${p.ties}, sign test p=${fmtP(p.signTestP)}`;
  return {
    ...cond,
    value: p.meanDiff,
    met: !worse,
    message: worse
      ? `${who}: significantly worse than baseline run ${runId}: ${figures}`
      : `${who}: no significant regression against baseline run ${runId}: ${figures}`,
    comparison: p,
  };
}

/**
 * Evaluates the CI gate (DESIGN §9) on the held-out candidate entries: one condition per threshold and entry with its
 * value, whether it was met, and a sentence; `graded` when case tests failed without a grade. The verdict is `none`
 * without thresholds, `fail` when a condition is unmet, `not-evaluated` on a partial run unless `onPartial` is
 * `subset` (a missing grade still fails it), `deferred` on a shard (its merge is judged), else `pass`. Pure.
 */
export function evaluateGate(commissions: readonly Entry[], t: GateThresholds, ctx: GateContext = {}): GateReport {
  const thresholds: GateReport['thresholds'] = {};
  if (t.minResult !== undefined) thresholds.minResult = t.minResult;
  if (t.minPassHatK !== undefined) thresholds.minPassHatK = t.minPassHatK;
  if (t.maxGap !== undefined) thresholds.maxGap = t.maxGap;
  const base = baselineOf(t);
  if (base) {
    const runId = ctx.baseline && 'summary' in ctx.baseline ? ctx.baseline.summary.run.id : null;
    thresholds.noRegressionVs = { summary: base.summary, runId, margin: base.margin };
  }
  if (t.onPartial !== undefined) thresholds.onPartial = t.onPartial;
  if (t.excludeFlaky) thresholds.excludeFlaky = true;
  const partial = ctx.partial ?? null;
  const evaluatedOn = partial ? 'subset' : 'all';
  if (!hasThresholds(t)) {
    return { verdict: 'none', reason: 'no gate thresholds were set', thresholds, evaluatedOn, conditions: [] };
  }
  const conditions: GateCondition[] = [];
  if (base && ctx.baseline && 'error' in ctx.baseline) {
    conditions.push({
      commission: null,
      delivery: null,
      split: null,
      condition: 'noRegressionVs',
      threshold: -base.margin || 0,
      value: null,
      met: false,
      message: `the noRegressionVs baseline could not be read: ${ctx.baseline.error}`,
    });
  }
  for (const c of commissions) {
    // The optimization starter (a0) is the baseline the candidate is measured against, not a delivery under test.
    if (c.split !== 'heldout' || c.delivery.role === 'starter') continue;
    conditions.push(...entryConditions(c, t, ctx));
  }
  const ungraded = ctx.ungraded ?? 0;
  if (ungraded > 0) {
    conditions.push({
      commission: null,
      delivery: null,
      split: null,
      condition: 'graded',
      threshold: 0,
      value: ungraded,
      met: false,
      message: `${ungraded} case test(s) failed without a grade (see the errors above)`,
    });
  }
  const failed = conditions.some((x) => !x.met);
  if (partial && t.onPartial !== 'subset' && !conditions.some((x) => x.condition === 'graded')) {
    // A shard is one job of a run its merge judges whole: red shard jobs beside a green merge tell nothing.
    if (partial.shard !== null) {
      return {
        verdict: 'deferred',
        reason: `this is shard ${partial.shard}: the gate is evaluated on the merged run (vitest --merge-reports)`,
        thresholds,
        evaluatedOn,
        conditions,
      };
    }
    return {
      verdict: 'not-evaluated',
      reason: `the run is partial: ${partial.reason}; the gate judges whole runs (gate.onPartial: 'subset' judges the cases that ran)`,
      thresholds,
      evaluatedOn,
      conditions,
    };
  }
  const reason = partial ? `evaluated on the subset that ran: ${partial.reason}` : null;
  return { verdict: failed ? 'fail' : 'pass', reason, thresholds, evaluatedOn, conditions };
}

/**
 * What fell short of the gate, one line per unmet condition (or why it was not evaluated); empty when it holds or
 * was deferred to the merge of a sharded run.
 */
export function gateMessages(gate: GateReport): string[] {
  if (gate.verdict === 'not-evaluated') return [`gate not evaluated: ${gate.reason ?? 'unknown why'}`];
  if (gate.verdict !== 'fail') return [];
  return gate.conditions.filter((c) => !c.met).map((c) => c.message);
}

/**
 * Checks the CI gate (DESIGN §9) on the held-out entries of candidates, after the summary is built; returns what fell
 * short, one line per threshold missed, empty when the gate holds. Pure; `evaluateGate` gives the whole record.
 */
export function gateViolations(summary: Pick<Summary, 'commissions'>, gate: GateThresholds): string[] {
  return evaluateGate(summary.commissions, gate)
    .conditions.filter((c) => !c.met)
    .map((c) => c.message);
}
