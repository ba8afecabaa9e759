import { macroBootstrapCI, macroMean, median } from '../metrics/index.js';
import { drawsOf } from './draws.js';
import { deliveryLabel } from './format.js';
import type { CommissionSummary, FailureModes, FamilyScore, Flag, GateReport } from './schema.js';
import type { FailureModesV1 } from './schema-v1.js';

/** Without a maxGap in the gate, a fidelity gap above this many points marks the row (DESIGN §10's overfitting). */
export const FLAG_GAP = 10;

/** DESIGN §5's failure-mode shares: each count over all executions (null when none ran); the six sum to 1. */
export function sharesOf(fm: FailureModesV1): FailureModes['shares'] {
  const n = fm.executions;
  const share = (x: number) => (n > 0 ? x / n : null);
  return {
    graded: share(fm.graded),
    errorExit: share(fm.errorExit),
    timeout: share(fm.timeout),
    otherGate: share(fm.otherGate),
    unscored: share(fm.unscored),
    infraError: share(fm.infraError),
  };
}

/** Why a row is marked (see FLAGS), from its own figures; `maxGap` is the gate's, when it has one. */
export function flagsOf(c: CommissionSummary, maxGap: number | undefined): Flag[] {
  const f = c.failureModes;
  const flags: Flag[] = [];
  if (c.gap !== null && c.gap > (maxGap ?? FLAG_GAP)) flags.push('fidelity-gap');
  if (f.hardCodedDevStrings.length > 0) flags.push('dev-strings');
  if ((f.heldoutLeak?.length ?? 0) > 0) flags.push('heldout-leak');
  if (f.noModelCalls) flags.push('no-model-calls');
  if (f.claimsContradicted > 0) flags.push('claims-contradicted');
  if (f.infraError > 0) flags.push('infra-errors');
  if (f.unscored > 0) flags.push('unscored');
  if (c.notRun > 0) flags.push('partial');
  if ((c.substitutedImages?.length ?? 0) > 0) flags.push('substituted-images');
  if ((c.flaky?.length ?? 0) > 0) flags.push('flaky');
  return flags;
}

const key = (commission: string, delivery: string, split: string) => `${commission}\0${delivery}\0${split}`;

/** The key `notRunCounts` is keyed by, for an entry. */
export function entryKey(c: CommissionSummary): string {
  return key(c.id, deliveryLabel(c), c.split);
}

/** Counts not-run cases by entry, for `finalizeEntries`. */
export function notRunCounts(
  cases: ReadonlyArray<{ commission: string; delivery: string; split: string }>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of cases) {
    const k = key(x.commission, x.delivery, x.split);
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

/**
 * Sets each entry's verdict, flags and not-run count once the gate is known: an entry the gate judged (a `pass` or
 * `fail` verdict) passes when all its conditions are met; any other passes when its mean reaches the pass rule; a0
 * is the baseline. Pure.
 */
export function finalizeEntries(
  entries: CommissionSummary[],
  gate: GateReport,
  notRun: Map<string, number>,
): CommissionSummary[] {
  const byEntry = new Map<string, boolean>();
  // A gate that did not judge the run (partial, a shard) judged no entry either: its rows follow the pass rule.
  const ruled = gate.verdict === 'pass' || gate.verdict === 'fail';
  for (const x of ruled ? gate.conditions : []) {
    if (x.commission === null || x.delivery === null || x.split === null) continue;
    const k = key(x.commission, x.delivery, x.split);
    byEntry.set(k, (byEntry.get(k) ?? true) && x.met);
  }
  return entries.map((c) => {
    const k = entryKey(c);
    const withCount = { ...c, notRun: notRun.get(k) ?? 0 };
    const judged = byEntry.get(k);
    const verdict: CommissionSummary['verdict'] =
      c.delivery.role === 'starter'
        ? 'baseline'
        : c.result.mean === null
          ? 'unscored'
          : (judged ?? c.result.mean >= c.passRule.minResult)
            ? 'pass'
            : 'fail';
    return { ...withCount, verdict, flags: flagsOf(withCount, gate.thresholds.maxGap) };
  });
}

/**
 * DESIGN §5's family scores: per family × delivery label × split, the plain (macro) mean of the commission Results,
 * their median, and a stratified bootstrap CI (each commission's cases resampled on their own: the draws of its own
 * CI, averaged resample by resample; one commission gives its own CI). Optimization starters are left out: a0 is a baseline, not a delivery under test. Pure.
 */
export function familyScores(entries: readonly CommissionSummary[]): FamilyScore[] {
  const groups = new Map<string, CommissionSummary[]>();
  for (const c of entries) {
    if (c.delivery.role === 'starter') continue;
    const k = `${c.family}\0${deliveryLabel(c)}\0${c.split}`;
    const g = groups.get(k);
    if (g) g.push(c);
    else groups.set(k, [c]);
  }
  const out: FamilyScore[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    const scored = group.filter((c) => c.result.mean !== null);
    const means = scored.map((c) => c.result.mean as number);
    const ci95 = scored.length === 1 ? scored[0].result.ci95 : familyCI(scored);
    out.push({
      family: first.family,
      delivery: deliveryLabel(first),
      split: first.split,
      commissions: group.map((c) => c.id).sort(),
      mean: macroMean(means.map((m) => [m])),
      median: median(means),
      ci95,
    });
  }
  return out.sort(
    (a, b) =>
      a.family.localeCompare(b.family) || a.delivery.localeCompare(b.delivery) || a.split.localeCompare(b.split),
  );
}

/** The stratified CI of the macro mean from each commission's own draws (redrawn alike when their counts differ). */
function familyCI(scored: CommissionSummary[]): [number, number] | null {
  if (scored.length === 0) return null;
  let draws = scored.map(drawsOf);
  if (draws.some((d) => d.length !== draws[0].length)) {
    draws = scored.map((c) => drawsOf({ ...c, cases: [...c.cases] }));
  }
  return macroBootstrapCI(draws);
}
