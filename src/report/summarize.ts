import type { CaseGrade, GateCategory } from '../grading/index.js';
import {
  bootstrapMeans,
  gapClosure,
  mean,
  median,
  passAtKOverCases,
  passHatKOverCases,
  percentileCI,
  signTest,
  winLossTie,
} from '../metrics/index.js';
import { sumCosts } from './cost.js';
import { defaultSeed, rememberDraws } from './draws.js';
import { boundEvidence } from './evidence-bounds.js';
import { evaluateGate, type GateContext } from './gate.js';
import { type CoverageInput, partialReport } from './partial.js';
import type {
  CaseSummary,
  CommissionSummary,
  DeliveryInfo,
  FailureModes,
  Family,
  OptimizationSummary,
  RunInfo,
  SplitName,
  Summary,
} from './schema.js';
import type { FailureModesV1 } from './schema-v1.js';
import type { GateThresholds } from './types.js';
import { familyScores, finalizeEntries, flagsOf, notRunCounts, sharesOf } from './verdicts.js';

export interface SummarizeInput {
  id: string;
  family: Family;
  split: SplitName;
  delivery: DeliveryInfo;
  /** Every case × trial grading of this commission, delivery and split, in any order. */
  cases: CaseGrade[];
  /** Success for pass^k: gates pass, grading said passed, and Result ≥ minResult (DESIGN §5). */
  passRule: { minResult: number };
  /** The dev mean of the same frozen delivery, when known: gives `gap` on a held-out entry. */
  devMean?: number | null;
  /** The starter's gradings on the same instances (computed here), or an already computed §14 block. */
  optimization?: { starter: CaseGrade[] } | OptimizationSummary | null;
  /** From the dev-string scanner (DESIGN §10). */
  hardCodedDevStrings?: string[];
  /** Overrides the ledger-derived flag, e.g. for commissions that need no model. */
  noModelCalls?: boolean;
  /** Held-out canaries and distinctive held-out strings found in the delivery (contamination), when scanned. */
  heldoutLeak?: string[];
  /** Images the run used in place of the commission's, when any were substituted. */
  substitutedImages?: { from: string; to: string }[];
  /** Tool-agent: the τ² semantics the episodes ran under. */
  semantics?: string;
  /**
   * Where a case × trial's full record lies, relative to the report directory (`cases/…meta.json`): named in the
   * summary where its evidence texts were cut to their bounds (evidence-bounds.ts).
   */
  recordOf?: (id: string, trial: number) => string;
  /** Bootstrap seed; default derived from id, split and digest so reruns give the same CI. */
  seed?: number | string;
  resamples?: number;
}

function isScored(g: CaseGrade): boolean {
  return g.status === 'graded' || g.status === 'gate-failed';
}

/** A gate failure scores 0 whatever the grader left in `result` (DESIGN §4). */
function scoreOf(g: CaseGrade): number {
  return g.status === 'graded' ? (g.result ?? 0) : 0;
}

function succeeded(g: CaseGrade, minResult: number): boolean {
  return g.status === 'graded' && g.passed && g.result !== null && g.result >= minResult;
}

/** Per-case mean Result over scored trials, keyed by case id, in first-seen order. */
function perCaseMeans(grades: CaseGrade[]): Map<string, number> {
  const acc = new Map<string, { sum: number; n: number }>();
  for (const g of grades) {
    if (!isScored(g)) continue;
    const a = acc.get(g.id);
    if (a) {
      a.sum += scoreOf(g);
      a.n++;
    } else acc.set(g.id, { sum: scoreOf(g), n: 1 });
  }
  const out = new Map<string, number>();
  for (const [id, a] of acc) out.set(id, a.sum / a.n);
  return out;
}

function compareCases(a: { id: string; trial: number }, b: { id: string; trial: number }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : a.trial - b.trial;
}

/**
 * What one pass over the gradings in case order yields: the case summaries, the failure modes, and per case with a
 * scored trial (in case order) its id, mean Result, scored trials and successes.
 */
interface Scan {
  cases: CaseSummary[];
  failureModes: FailureModes;
  ids: string[];
  means: Float64Array;
  trials: Int32Array;
  successes: Int32Array;
  scoredTrials: number;
}

/**
 * Scans the gradings in the order given, or returns null on finding two out of case order (unless told not to check,
 * for gradings just sorted). Gradings usually arrive in order, so the check rides along instead of a sort and a copy
 * at 100,000 cases, and each grading is read once, counters and case summary together, while it is in the CPU cache.
 * A case's trials are adjacent in case order, so no map by id is needed.
 */
function scanInOrder(grades: readonly CaseGrade[], input: SummarizeInput, checkOrder = true): Scan | null {
  const { minResult } = input.passRule;
  const fm: FailureModesV1 & { heldoutLeak?: string[] } = {
    graded: 0,
    errorExit: 0,
    timeout: 0,
    otherGate: 0,
    ceilingHit: 0,
    ceilingSet: 0,
    hardCodedDevStrings: input.hardCodedDevStrings ?? [],
    noModelCalls: false,
    claimsContradicted: 0,
    executions: grades.length,
    unscored: 0,
    infraError: 0,
    gates: {},
  };
  if (input.heldoutLeak) fm.heldoutLeak = input.heldoutLeak;
  const cases = new Array<CaseSummary>(grades.length);
  const ids: string[] = [];
  const sums = new Float64Array(grades.length);
  const trials = new Int32Array(grades.length);
  const successes = new Int32Array(grades.length);
  let n = 0;
  // Whether the id of the grading before is the last entry of `ids`, i.e. whether a scored trial joins that case.
  let caseOpen = false;
  let scoredTrials = 0;
  let ran = 0;
  let calls = 0;
  for (let i = 0; i < grades.length; i++) {
    const g = grades[i];
    if (i > 0) {
      if (checkOrder && compareCases(grades[i - 1], g) > 0) return null;
      if (g.id !== grades[i - 1].id) caseOpen = false;
    }

    const { status } = g;
    if (status === 'graded') fm.graded++;
    else if (status === 'unscored') fm.unscored++;
    else if (status === 'infra-error') fm.infraError++;
    else if (status === 'gate-failed') {
      const gate: GateCategory | 'unknown' = g.gate ?? 'unknown';
      if (gate === 'error-exit') fm.errorExit++;
      else if (gate === 'timeout') fm.timeout++;
      else fm.otherGate++;
      if (g.gate) fm.gates[g.gate] = (fm.gates[g.gate] ?? 0) + 1;
    }
    if (g.ceilingHit) fm.ceilingHit++;
    if (g.ceilingSet) fm.ceilingSet++;
    if (g.claimsContradicted.length > 0) fm.claimsContradicted++;
    if (status !== 'infra-error') {
      ran++;
      calls += g.modelCalls;
    }

    if (isScored(g)) {
      scoredTrials++;
      // Summed in the same order, starting from the first score, as a per-id accumulator would.
      if (caseOpen) sums[n - 1] += scoreOf(g);
      else {
        ids.push(g.id);
        sums[n++] = scoreOf(g);
        caseOpen = true;
      }
      trials[n - 1]++;
      if (succeeded(g, minResult)) successes[n - 1]++;
    }

    cases[i] = boundEvidence(toCaseSummary(g, minResult), input.recordOf);
  }
  fm.noModelCalls = input.noModelCalls ?? (ran > 0 && calls === 0);
  const means = new Float64Array(n);
  for (let c = 0; c < n; c++) means[c] = sums[c] / trials[c];
  return {
    cases,
    failureModes: { ...fm, shares: sharesOf(fm) },
    ids,
    means,
    trials: trials.subarray(0, n),
    successes: successes.subarray(0, n),
    scoredTrials,
  };
}

/** pass^k and pass@k for k = 1..max trials: the mean over cases (null once a case has fewer than k trials). */
function passK(trials: Int32Array, successes: Int32Array): Pick<CommissionSummary, 'passHatK' | 'passAtK'> {
  const cases = Array.from(trials, (n, i) => ({ n, c: successes[i] }));
  const maxTrials = cases.reduce((m, x) => Math.max(m, x.n), 1);
  const passHat: Record<string, number | null> = {};
  const passAt: Record<string, number | null> = {};
  for (let k = 1; k <= maxTrials; k++) {
    passHat[k] = passHatKOverCases(cases, k);
    passAt[k] = passAtKOverCases(cases, k);
  }
  return { passHatK: passHat, passAtK: passAt };
}

function toCaseSummary(g: CaseGrade, minResult: number): CaseSummary {
  const dimensions: CaseSummary['dimensions'] = {};
  const items: CaseSummary['items'] = {};
  // Object.keys, not Object.entries: one array per case instead of one per dimension as well.
  const names = Object.keys(g.dimensions);
  // A case no one could score has no dimension score either: null, never a 0 it did not earn.
  const scored = g.status === 'graded' || g.status === 'gate-failed';
  for (let i = 0; i < names.length; i++) {
    const d = names[i];
    const r = g.dimensions[d];
    dimensions[d] = { score: scored ? r.score : null, max: r.max, cap: r.cap };
    if (r.items.length > 0) items[d] = r.items;
  }
  return {
    id: g.id,
    trial: g.trial,
    status: g.status,
    gate: g.gate,
    result: g.status === 'gate-failed' ? 0 : g.result,
    passed: succeeded(g, minResult),
    dimensions,
    ceilings: g.ceilings,
    wallMs: g.wallMs,
    modelCalls: g.modelCalls,
    tokens: g.tokens,
    reason: g.reason,
    ceilingHit: g.ceilingHit,
    ceilingSet: g.ceilingSet,
    exitCode: g.exitCode,
    items,
    outcomes: g.outcomes,
    judge: g.judge,
    stderrTail: g.stderrTail,
    claimsContradicted: g.claimsContradicted,
    ...(g.truncated ? { truncated: g.truncated } : {}),
    ...(g.editing ? { editing: g.editing } : {}),
    ...(g.cost ? { cost: g.cost } : {}),
  };
}

function optimizationBlock(
  input: SummarizeInput,
  ids: string[],
  candidateMeans: Float64Array,
): OptimizationSummary | null {
  const opt = input.optimization;
  if (!opt) return null;
  // OptimizationSummary's type is loose (any key may be present), so `in` narrows nothing; the key still tells them apart.
  if (!('starter' in opt)) return opt;
  const starterMeans = perCaseMeans(opt.starter as CaseGrade[]);
  const pairs: { candidate: number; starter: number }[] = [];
  for (let i = 0; i < ids.length; i++) {
    const starter = starterMeans.get(ids[i]);
    if (starter !== undefined) pairs.push({ candidate: candidateMeans[i], starter });
  }
  if (pairs.length === 0) return null;
  // J0 and J1 over the instances both ran, so an instance lost on one side does not bias the comparison.
  const j0 = mean(pairs.map((p) => p.starter)) as number;
  const j1 = mean(pairs.map((p) => p.candidate)) as number;
  const { gamma, S } = gapClosure(j0, j1);
  const { wins, losses, ties } = winLossTie(pairs);
  return { j0, j1, delta: j1 - j0, gamma, S, wins, losses, ties, signTestP: signTest(wins, losses) };
}

/**
 * Aggregates one commission × delivery × split into its summary.json entry (DESIGN §5, §14). Pure and deterministic:
 * the same gradings in any order give the same entry. Infra errors are dropped and counted; unscored executions are
 * counted, never scored 0; a case's Result is the mean over its scored trials and the commission's over cases.
 */
export function summarizeCommission(input: SummarizeInput): CommissionSummary {
  const { minResult } = input.passRule;
  const scan =
    scanInOrder(input.cases, input) ?? (scanInOrder([...input.cases].sort(compareCases), input, false) as Scan);
  const { ids, means, scoredTrials, failureModes: fm } = scan;
  const m = mean(means);
  const { passHatK: passHat, passAtK: passAt } = passK(scan.trials, scan.successes);
  const seed = input.seed ?? defaultSeed(input);
  // The draws are kept for the family scores (draws.ts); the CI is bootstrapCI's, from the same draws.
  const draws = means.length > 0 ? bootstrapMeans(means, { seed, resamples: input.resamples }) : null;
  const devMean = input.devMean ?? null;
  const entry: CommissionSummary = {
    id: input.id,
    family: input.family,
    split: input.split,
    delivery: { ...input.delivery, label: input.delivery.label ?? defaultLabel(input.delivery.path) },
    result: {
      mean: m,
      median: median(means),
      ci95: draws === null ? null : means.length === 1 ? [means[0], means[0]] : percentileCI(draws),
      n: ids.length,
      unscored: fm.unscored,
      trials: scoredTrials,
      infraErrors: fm.infraError,
    },
    passHatK: passHat,
    passAtK: passAt,
    gap: input.split === 'heldout' && devMean !== null && m !== null ? devMean - m : null,
    optimization: optimizationBlock(input, ids, means),
    failureModes: fm,
    passRule: { minResult },
    verdict: m === null ? 'unscored' : m >= minResult ? 'pass' : 'fail',
    flags: [],
    notRun: 0,
    ...(input.substitutedImages ? { substitutedImages: input.substitutedImages } : {}),
    ...(input.semantics ? { semantics: input.semantics } : {}),
    cases: scan.cases,
  };
  const cost = sumCosts(input.cases.map((g) => g.cost));
  if (cost) entry.cost = cost;
  if (draws) rememberDraws(entry.cases, draws);
  if (input.delivery.role === 'starter') entry.verdict = 'baseline';
  entry.flags = flagsOf(entry, undefined);
  return entry;
}

function defaultLabel(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/**
 * Fills `gap` = dev mean − held-out mean on both entries of every commission whose dev and held-out splits ran for
 * the same delivery digest (DESIGN §5, the overfitting signal). Returns new entries; leaves other gaps as they were.
 */
export function computeGaps(commissions: CommissionSummary[]): CommissionSummary[] {
  const key = (c: CommissionSummary) => `${c.id}\u0000${c.delivery.digest}`;
  const dev = new Map<string, number>();
  const held = new Map<string, number>();
  for (const c of commissions) {
    if (c.result.mean === null) continue;
    const map = c.split === 'dev' ? dev : held;
    if (!map.has(key(c))) map.set(key(c), c.result.mean);
  }
  return commissions.map((c) => {
    const d = dev.get(key(c));
    const h = held.get(key(c));
    return d !== undefined && h !== undefined ? { ...c, gap: d - h } : c;
  });
}

/** What `buildSummary` needs beyond the entries: the gate's thresholds and context, and the run's coverage. */
export interface BuildOptions {
  run: RunInfo;
  commissions: CommissionSummary[];
  gate?: GateThresholds;
  gateContext?: Omit<GateContext, 'partial'>;
  coverage?: CoverageInput;
  /** The entries the gate is evaluated on when not `commissions` (`excludeFlaky`: the same less the flaky cases). */
  gateOn?: CommissionSummary[];
  /** The flaky cases `gateOn` leaves out, named in the gate's report. */
  excludedFlaky?: string[];
}

/**
 * Assembles the whole `heldout/summary@2` document: gaps across the given entries, the partial record, the gate
 * evaluated on them, each entry's verdict and flags, and the family scores. Pure.
 */
export function buildSummary(options: BuildOptions): Summary {
  const { run, commissions, gate = {}, gateContext = {}, coverage, gateOn, excludedFlaky } = options;
  const partial = coverage ? partialReport(coverage) : null;
  const withGaps = computeGaps(commissions);
  const gateReport = evaluateGate(gateOn ? computeGaps(gateOn) : withGaps, gate, { ...gateContext, partial });
  if (excludedFlaky) gateReport.excludedFlaky = excludedFlaky;
  const entries = finalizeEntries(withGaps, gateReport, notRunCounts(coverage?.notRun ?? []));
  const cost = sumCosts(entries.map((e) => e.cost));
  return {
    schema: 'heldout/summary@2',
    run,
    gate: gateReport,
    partial,
    families: familyScores(entries),
    commissions: entries,
    ...(cost ? { cost } : {}),
  };
}
