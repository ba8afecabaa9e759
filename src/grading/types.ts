/**
 * What grading produces for one case × trial (DESIGN §4, §14). The runner stores it in the test's `task.meta.heldout`
 * and the reporter aggregates it; so it must stay plain JSON.
 */

export const GATE_CATEGORIES = [
  'error-exit',
  // Issue 17: the outputs went past budgets.outputBytes (bytes, entries or depth); heldout kept only what fits.
  'output-limit',
  'timeout',
  'oom',
  'missing-artifact',
  'invalid-artifact',
  'patch-rejected',
  'constraint-violation',
] as const;
export type GateCategory = (typeof GATE_CATEGORIES)[number];

export const CASE_STATUSES = ['graded', 'gate-failed', 'unscored', 'infra-error'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

/** One rubric item's verdict. `score` is the share in [0, 1] of the item's points; null when unscored. */
export interface ItemResult {
  kind: string;
  title: string;
  points: number;
  score: number | null;
  earned: number | null;
  evidence: string;
}

export interface DimensionResult {
  score: number;
  max: number;
  /** The effective cap from unmet outcomes / safety failures; null when none applies. */
  cap: number | null;
  earned: number;
  items: ItemResult[];
}

export interface CeilingRecord {
  kind: 'dimension' | 'total';
  dimension?: string;
  max: number;
  reason: string;
  /** True when this ceiling lowered the score in its scope. */
  binding: boolean;
}

export interface OutcomeResult {
  id: string;
  satisfied: boolean | null;
  safety: boolean | null;
  evidence: string;
}

/** The grading of one case × trial. */
export interface CaseGrade {
  id: string;
  trial: number;
  split: 'dev' | 'heldout';
  status: CaseStatus;
  gate: GateCategory | null;
  /** Why the gate failed, or why the case is unscored / an infra error. */
  reason: string | null;
  result: number | null;
  passed: boolean;
  dimensions: Record<string, DimensionResult>;
  ceilings: CeilingRecord[];
  ceilingHit: boolean;
  ceilingSet: boolean;
  outcomes: OutcomeResult[];
  judge: {
    model: string;
    assessment: string;
    majorErrors: string[];
    /** Spread of total scores across judge samples when n-sample judging is on. */
    samples?: number[];
    cached: boolean;
    /** USD the verdict cost (0 from the cache), with a pricing table; null when the judge model is unpriced. */
    costUsd?: number | null;
  } | null;
  wallMs: number;
  modelCalls: number;
  tokens: number;
  exitCode: number | null;
  /** Last lines of stderr, for the report's drill-down. */
  stderrTail: string;
  /** The streams the sandbox cut at their cap (the rest was discarded); absent when neither was. */
  truncated?: ('stdout' | 'stderr')[];
  /**
   * With a pricing table (issue 34): USD of the case trial's model calls, the delivery's, the user simulator's and the
   * judge's apart; a part is null when a model it used is not in the table (listed in `unpriced`), never 0.
   */
  cost?: CaseCost;
  /** Claims from the delivery's run_report.json the case contradicted (DESIGN §10). */
  claimsContradicted: string[];
  /** Editing: μ_new (the rubric's pass rule) and μ_reg (the product's regression suite; null when not run). */
  editing?: {
    muNew: boolean;
    muReg: boolean | null;
    evidence: string;
    /** The regression suite's failing tests, when its output names them (unittest, pytest). */
    failedTests?: string[];
  };
}

/** What applying an editing delivery's patch to the pinned starter tree gave. */
export type PatchOutcome =
  | { ok: true; touched: string[]; workDir: string }
  | { ok: false; gate: 'patch-rejected' | 'constraint-violation'; reason: string; touched: string[] };

/** Editing: a delivery's patch and the tree it made, once per delivery; its cases only read it. */
export interface PatchedTree {
  /** The patch file; the delivery's reports (run_report.json, edit_report.json) sit beside it. */
  patch: string;
  outcome: PatchOutcome;
}

/** A case trial's cost in USD by who spent it; `total` is null when any part is. */
export interface CaseCost {
  delivery: number | null;
  user: number | null;
  judge: number | null;
  total: number | null;
  /** Models that were called but are not in the pricing table. */
  unpriced?: string[];
}
