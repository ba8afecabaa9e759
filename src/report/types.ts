/**
 * The report part's types that its schema cannot give: the summary's own types are `z.infer` of the schema
 * (src/report/schema.ts); what a run's CI gate demands of a summary is an input (summary.json records it as
 * `gate.thresholds`).
 */

/** Gate thresholds that turn a run red (DESIGN §9), checked on held-out candidate entries by `evaluateGate`. */
export interface GateThresholds {
  minResult?: number;
  minPassHatK?: number;
  /** Needs both splits: an entry without a fidelity gap (no scored dev or held-out cases) fails it. */
  maxGap?: number;
  /**
   * A baseline run's summary.json or report directory (summary@1 or @2): each held-out candidate fails when it is significantly worse
   * than the baseline's entry of the same commission (and delivery label, when the baseline has it): the paired
   * bootstrap 95 % CI of new − baseline over the cases both graded lies wholly below −margin (default 0).
   */
  noRegressionVs?: string | { summary: string; margin?: number };
  /**
   * A partial run (cases filtered, not reached, or a shard): `not-evaluated` (default) does not judge it, and a gate
   * not evaluated does not hold; `subset` judges the cases that ran, and the report says so.
   */
  onPartial?: 'not-evaluated' | 'subset';
  /** Leave the cases `--repeat` found flaky out of the figures the gate checks (the report names them). */
  excludeFlaky?: boolean;
}
