import type { CaseSummary, CommissionSummary, GateCondition, GateReport } from './schema.js';

/** Display formatting shared by the table, Markdown, JUnit and HTML renderers: one rounding rule everywhere. */

export const DASH = '—';

/** Fixed decimals for display only; summary.json keeps full precision. */
export function fmt(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH;
  const s = x.toFixed(digits);
  // -0.0 reads as a regression that is not there.
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

export function fmtSigned(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH;
  const s = fmt(x, digits);
  return x > 0 && s !== fmt(0, digits) ? `+${s}` : s;
}

export function fmtCI(ci: [number, number] | null): string {
  return ci ? `${fmt(ci[0])}–${fmt(ci[1])}` : DASH;
}

export function fmtP(p: number): string {
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}

/** The largest k with a pass^k value, or null. */
export function maxK(c: CommissionSummary): number | null {
  const ks = Object.keys(c.passHatK)
    .map(Number)
    .filter((k) => c.passHatK[k] !== null)
    .sort((a, b) => a - b);
  return ks.length > 0 ? ks[ks.length - 1] : null;
}

export function deliveryLabel(c: CommissionSummary): string {
  return c.delivery.label ?? c.delivery.path;
}

export function gateFailures(c: CommissionSummary): number {
  return c.failureModes.errorExit + c.failureModes.timeout + c.failureModes.otherGate;
}

/** Deliveries are told apart by digest; the label alone names them unless two digests share one label. */
export function deliveryKeys(commissions: CommissionSummary[]): (c: CommissionSummary) => string {
  const digests = new Map<string, Set<string>>();
  for (const c of commissions) {
    const set = digests.get(deliveryLabel(c)) ?? new Set<string>();
    set.add(c.delivery.digest);
    digests.set(deliveryLabel(c), set);
  }
  return (c) => {
    const label = deliveryLabel(c);
    return digests.get(label)!.size > 1 ? `${label} (${c.delivery.digest.replace(/^sha256:/, '').slice(0, 8)})` : label;
  };
}

/** A ceiling's short name: its dimension's cap, or the head of its reason (`μ_reg failed: …` is `μ_reg`). */
export function ceilingName(x: CaseSummary['ceilings'][number]): string {
  if (x.kind === 'dimension') return `${x.dimension} ≤ ${fmt(x.max)}`;
  const head = x.reason
    .split(/[:\n]/)[0]!
    .trim()
    .replace(/\s+(failed|unmet)$/i, '');
  const name = head.length > 40 ? `${head.slice(0, 39)}…` : head;
  return name || `total ≤ ${fmt(x.max)}`;
}

/**
 * Which ceilings set or lowered the Results, counted by name: `ceiling set by μ_reg ×8`, then the ones that lowered
 * a score without setting the Result (`ceiling hit by correctness ≤ 25 ×2`); the bare counts when the cases are absent.
 */
function ceilingAccount(c: CommissionSummary): string {
  const set = new Map<string, number>();
  const hit = new Map<string, number>();
  for (const x of c.cases) {
    if (!x.ceilingHit && !x.ceilingSet) continue;
    for (const r of x.ceilings) {
      if (!r.binding) continue;
      const into = x.ceilingSet && r.kind === 'total' ? set : hit;
      into.set(ceilingName(r), (into.get(ceilingName(r)) ?? 0) + 1);
    }
  }
  const list = (m: Map<string, number>) => [...m].map(([k, n]) => `${k} ×${n}`).join(', ');
  const parts: string[] = [];
  if (set.size) parts.push(`ceiling set by ${list(set)}`);
  if (hit.size) parts.push(`ceiling hit by ${list(hit)}`);
  const f = c.failureModes;
  return parts.length ? parts.join(', ') : `ceiling hit ${f.ceilingHit}/set ${f.ceilingSet}`;
}

/** A one-line account of the failure modes, for table cells. */
export function failureSummary(c: CommissionSummary): string {
  const f = c.failureModes;
  const parts = [`graded ${f.graded}`];
  if (f.errorExit) parts.push(`error-exit ${f.errorExit}`);
  if (f.timeout) parts.push(`timeout ${f.timeout}`);
  if (f.otherGate) {
    const named = Object.entries(f.gates)
      .filter(([g]) => g !== 'error-exit' && g !== 'timeout')
      .map(([g, n]) => `${g} ${n}`);
    parts.push(`other gate ${f.otherGate}${named.length ? ` (${named.join(', ')})` : ''}`);
  }
  if (c.result.unscored) parts.push(`unscored ${c.result.unscored}`);
  if (c.result.infraErrors) parts.push(`infra ${c.result.infraErrors}`);
  if (f.ceilingHit || f.ceilingSet) parts.push(ceilingAccount(c));
  if (f.noModelCalls) parts.push('no model calls');
  if (f.hardCodedDevStrings.length) parts.push(`dev strings ${f.hardCodedDevStrings.length}`);
  if (f.claimsContradicted) parts.push(`claims contradicted ${f.claimsContradicted}`);
  return parts.join(', ');
}

/** Dimensions that fell short of their maximum, largest shortfall first: `id score/max (cap c)`. */
export function shortDimensions(c: CaseSummary): string[] {
  return Object.entries(c.dimensions)
    .filter((e): e is [string, (typeof e)[1] & { score: number }] => e[1].score !== null && e[1].score < e[1].max)
    .sort((a, b) => b[1].max - b[1].score - (a[1].max - a[1].score))
    .map(([id, d]) => `${id} ${fmt(d.score)}/${fmt(d.max)}${d.cap !== null ? ` (cap ${fmt(d.cap)})` : ''}`);
}

/** Why a case × trial did not pass, naming the gate or the dimensions that fell short (DESIGN §9); null if it passed. */
export function caseFailureMessage(c: CaseSummary, minResult: number): string | null {
  if (c.passed) return null;
  if (c.status === 'infra-error') return `infra error: ${c.reason ?? 'unknown'}`;
  if (c.status === 'unscored') return `unscored: ${c.reason ?? 'no score'}`;
  if (c.status === 'gate-failed') return `gate ${c.gate ?? 'unknown'} failed${c.reason ? `: ${c.reason}` : ''}`;
  const short = shortDimensions(c);
  const binding = c.ceilings
    .filter((x) => x.binding)
    .map((x) => `${x.kind === 'total' ? 'total' : x.dimension} ≤ ${fmt(x.max)}: ${x.reason}`);
  let msg = `Result ${fmt(c.result)} < ${fmt(minResult)}`;
  if ((c.result ?? 0) >= minResult) msg = `Result ${fmt(c.result)} but not passed`;
  if (short.length) msg += `; short: ${short.join(', ')}`;
  if (binding.length) msg += `; ceilings: ${binding.join('; ')}`;
  if (c.judge?.majorErrors.length) msg += `; major errors: ${c.judge.majorErrors.join('; ')}`;
  return msg;
}

/** The gate's verdict as a headline word (report.md, index.html, the console). */
export function gateHeadline(gate: GateReport): string {
  return {
    pass: 'PASS',
    fail: 'FAIL',
    'not-evaluated': 'NOT EVALUATED',
    deferred: 'DEFERRED TO THE MERGE',
    none: 'no gate',
    'not-recorded': 'not recorded',
  }[gate.verdict];
}

/** The thresholds of a gate in one line, `minResult 80 · maxGap 10 · …`; empty when none were set. */
export function thresholdsText(gate: GateReport): string {
  const t = gate.thresholds;
  const parts: string[] = [];
  if (t.minResult !== undefined) parts.push(`minResult ${t.minResult}`);
  if (t.minPassHatK !== undefined) parts.push(`minPassHatK ${t.minPassHatK}`);
  if (t.maxGap !== undefined) parts.push(`maxGap ${t.maxGap}`);
  if (t.noRegressionVs) {
    const run = t.noRegressionVs.runId ? ` (run ${t.noRegressionVs.runId})` : '';
    const margin = t.noRegressionVs.margin ? `, margin ${t.noRegressionVs.margin}` : '';
    parts.push(`noRegressionVs ${t.noRegressionVs.summary}${run}${margin}`);
  }
  if (t.onPartial) parts.push(`onPartial ${t.onPartial}`);
  if (t.excludeFlaky) {
    const left = gate.excludedFlaky ?? [];
    parts.push(
      `excludeFlaky (${left.length} flaky case${left.length === 1 ? '' : 's'} left out${left.length ? `: ${left.join(', ')}` : ''})`,
    );
  }
  return parts.join(' · ');
}

/** A gate condition's value for a table cell: pass^k to three places, the rest to one (signed for a difference). */
export function conditionValue(c: GateCondition): string {
  if (c.condition === 'minPassHatK') return c.value === null ? DASH : c.value.toFixed(3);
  if (c.condition === 'noRegressionVs') {
    const p = c.comparison;
    return p ? `${fmtSigned(p.meanDiff)} (CI ${fmtCI(p.ci95)})` : DASH;
  }
  if (c.condition === 'graded') return `${c.value ?? 0} without a grade`;
  return fmt(c.value);
}

/** Where a gate condition was checked: `commission · delivery`, or `run` for a run-wide one. */
export function conditionWhere(c: GateCondition): string {
  return c.commission === null ? 'run' : `${c.commission} · ${c.delivery}`;
}

/** Entries grouped by commission and delivery digest: one dev-strings (or leak) list per delivery, not per split. */
export function perDelivery(commissions: readonly CommissionSummary[]): CommissionSummary[] {
  const seen = new Set<string>();
  return commissions.filter((c) => {
    const k = `${c.id}\0${c.delivery.digest}\0${deliveryLabel(c)}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
