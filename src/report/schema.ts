import { z } from 'zod';
import { FAMILIES } from '../commission/index.js';
import {
  caseSummarySchemaV1,
  commissionSummarySchemaV1,
  count,
  nullableNum,
  num,
  summarySchemaV1,
} from './schema-v1.js';

/**
 * The zod schema of `heldout/summary@2` (DESIGN §14), and the one definition of the summary's type (`z.infer` below).
 * summary@2 is summary@1 (schema-v1.ts) plus what people decide from: the CI gate with each condition's value and
 * the verdict, `partial` (cases planned but not run, named), family scores with CIs, each entry's verdict and
 * flags, failure-mode shares, per-case editing evidence, and the optional fields other parts fill where they apply
 * (substituted images, τ² semantics, heldoutLeak). `src/report/migrate.ts` reads summary@1 into it; the JSON Schema
 * shipped in `schema/` is generated from this one (`summaryJsonSchema`). Objects stay loose, so additive extras
 * never need a bump; an optional field added within the version leaves older documents valid.
 */

export const SPLITS = ['heldout', 'dev'] as const;

/** Why a row is marked: the signals of DESIGN §10 and what limits how far its figures can be trusted. */
export const FLAGS = [
  /** dev − held-out mean above the gate's maxGap, or above 10 points without one. */
  'fidelity-gap',
  'dev-strings',
  /** Held-out canaries or distinctive held-out text found in the delivery (`failureModes.heldoutLeak`). */
  'heldout-leak',
  'no-model-calls',
  'claims-contradicted',
  'infra-errors',
  'unscored',
  /** Some of the entry's cases were planned and not run (see `partial`). */
  'partial',
  /** Images were substituted (`substitutedImages`): the figures are not those of the original environment. */
  'substituted-images',
  /** Issue 34: a case's verdict changed across the identical rounds of `heldout run --repeat` (`flaky`). */
  'flaky',
] as const;
export type Flag = (typeof FLAGS)[number];

/** An entry's verdict: its gate conditions where the gate applies to it, else its mean against the pass rule. */
export const VERDICTS = ['pass', 'fail', 'unscored', 'baseline'] as const;
/** `not-recorded`: a summary@1 document, which never said. */
export const GATE_VERDICTS = ['pass', 'fail', 'not-evaluated', 'deferred', 'none', 'not-recorded'] as const;
/** `graded`: every case test ran to a grade (one that failed without one fails the gate). */
export const GATE_CONDITIONS = ['minResult', 'minPassHatK', 'maxGap', 'noRegressionVs', 'graded'] as const;
/** `filtered`: skipped by a filter (`-t`, `.skip`, a case filter); `not-reached`: cancelled or bailed out before it ran. */
export const NOT_RUN_REASONS = ['filtered', 'not-reached', 'no-grade'] as const;

const ci95 = z.tuple([num, num]).nullable();

/** B − A on the cases both graded (metrics' pairedDifference): what `compare` and `noRegressionVs` report. */
export const pairedSchema = z.looseObject({
  n: count,
  wins: count,
  losses: count,
  ties: count,
  meanDiff: nullableNum,
  ci95,
  signTestP: num.min(0).max(1),
  verdict: z.enum(['better', 'worse', 'no-difference']),
});

/** One verdict of a case × trial: an earlier attempt (`--resume --retry`) or a round of `--repeat`. */
export const attemptSchema = z.looseObject({
  runId: z.string(),
  status: caseSummarySchemaV1.shape.status,
  gate: caseSummarySchemaV1.shape.gate,
  result: nullableNum,
  passed: z.boolean(),
  reason: z.string().nullable(),
});

/**
 * v2, optional (issue 34), with a pricing table: USD by who spent it; a part is null when a model it used is not in
 * the table (`unpriced` names them), never 0.
 */
export const costSchema = z.object({
  delivery: nullableNum,
  user: nullableNum,
  judge: nullableNum,
  total: nullableNum,
  unpriced: z.array(z.string()).optional(),
});

export const caseSummarySchema = caseSummarySchemaV1.extend({
  /** v2, optional (issue 34): the case trial's model calls in USD (`costSchema`). */
  cost: costSchema.optional(),
  /** v2, editing cases: μ_new, μ_reg (null when not run), the suite's evidence and the tests it named as failing. */
  editing: z
    .looseObject({
      muNew: z.boolean(),
      muReg: z.boolean().nullable(),
      evidence: z.string(),
      failedTests: z.array(z.string()).optional(),
    })
    .optional(),
  /**
   * v2, optional: where the case's full record lies, relative to the report directory, set when some of its
   * evidence texts were cut to their bounds (the tail is kept, after a line saying how much was cut).
   */
  record: z.string().optional(),
  /**
   * v2, optional (issue 19): images that ran instead of the ones the commission names (an image map), on every row
   * they affect, with what each ran for (the case, a service, a build): such a row is not comparable with a run in
   * the original environment. The entry's `substitutedImages` is their union.
   */
  substitutedImages: z.array(z.looseObject({ from: z.string(), to: z.string(), for: z.string() })).optional(),
  /** v2, optional (issue 17): the streams the sandbox cut at their cap; absent when neither was. */
  truncated: z.array(z.enum(['stdout', 'stderr'])).optional(),
  /** v2, optional (issue 34): earlier complete attempts a resumed run replaced (`--retry`), oldest first. */
  attempts: z.array(attemptSchema).optional(),
  /** v2, optional (issue 34): each round's verdict under `--repeat n`; the row's own figures are the last round's. */
  repeats: z.array(attemptSchema).optional(),
  /** v2, optional (issue 34): the verdict (status or pass) changed across the rounds of `--repeat`. */
  flaky: z.boolean().optional(),
});

const shares = z.looseObject({
  graded: nullableNum,
  errorExit: nullableNum,
  timeout: nullableNum,
  otherGate: nullableNum,
  unscored: nullableNum,
  infraError: nullableNum,
});

export const commissionSummarySchema = commissionSummarySchemaV1.extend({
  failureModes: commissionSummarySchemaV1.shape.failureModes.extend({
    /** v2: each count over `executions` (DESIGN §5's shares), null when nothing ran; the six sum to 1. */
    shares,
    /** v2, optional: held-out canaries and distinctive held-out strings found in the delivery (contamination). */
    heldoutLeak: z.array(z.string()).optional(),
  }),
  /** v2: pass / fail by the gate where it applies, else by the mean against the pass rule; a0 is `baseline`. */
  verdict: z.enum(VERDICTS),
  /** v2: why the row is marked, whatever its verdict. */
  flags: z.array(z.enum(FLAGS)),
  /** v2: case × trial executions planned for this entry and not run (named in the summary's `partial`). */
  notRun: count,
  /** v2, optional: images the run used in place of the ones the commission names. */
  substitutedImages: z.array(z.looseObject({ from: z.string(), to: z.string() })).optional(),
  /** v2, optional (issue 34): `id` (or `id#trial`) of each case whose verdict changed across `--repeat` rounds. */
  flaky: z.array(z.string()).optional(),
  /**
   * v2, optional (issue 34), under `--repeat n`: run-to-run noise, the entry's mean Result in each round (null: none
   * scored) and their range and sample standard deviation, shown beside pass^k.
   */
  noise: z.looseObject({ rounds: count, means: z.array(nullableNum), range: nullableNum, sd: nullableNum }).optional(),
  /** v2, optional, tool-agent: the τ² tool semantics the episodes ran under (`tau2@1.0.1` or a named opt-in). */
  semantics: z.string().optional(),
  /** v2, optional (issue 34): the sum of the cases' costs, every execution included (infra errors spent too). */
  cost: costSchema.optional(),
  cases: z.array(caseSummarySchema),
});

export const gateConditionSchema = z.looseObject({
  /** The entry the condition was checked on; all null for a run-wide condition (`graded`). */
  commission: z.string().nullable(),
  delivery: z.string().nullable(),
  split: z.enum(SPLITS).nullable(),
  condition: z.enum(GATE_CONDITIONS),
  threshold: nullableNum,
  /** The figure held to the threshold (noRegressionVs: the mean difference); null when there is none. */
  value: nullableNum,
  met: z.boolean(),
  /** What was checked and found, in a sentence (the console's gate lines are these). */
  message: z.string(),
  comparison: pairedSchema.optional(),
});

export const gateSchema = z.looseObject({
  verdict: z.enum(GATE_VERDICTS),
  /** Why the verdict is what it is; set whenever it is not plain pass or fail. */
  reason: z.string().nullable(),
  thresholds: z.looseObject({
    minResult: num.optional(),
    minPassHatK: num.optional(),
    maxGap: num.optional(),
    noRegressionVs: z.looseObject({ summary: z.string(), runId: z.string().nullable(), margin: num }).optional(),
    onPartial: z.enum(['not-evaluated', 'subset']).optional(),
    /** Issue 34: flaky cases were left out of the gate's figures. */
    excludeFlaky: z.boolean().optional(),
  }),
  /** v2, optional (issue 34): the flaky cases `excludeFlaky` left out (`commission/delivery/split/id#trial`). */
  excludedFlaky: z.array(z.string()).optional(),
  /** What the conditions' values were computed on: every planned case, or the subset a partial run ran. */
  evaluatedOn: z.enum(['all', 'subset']),
  conditions: z.array(gateConditionSchema),
});

export const partialSchema = z.looseObject({
  reason: z.string(),
  /** Case × trial executions known to the run, those that have a grade, and those that do not. */
  planned: count,
  ran: count,
  notRun: count,
  /** `i/n` when this run was one shard of several: the others' cases are unknown here. */
  shard: z.string().nullable(),
  cases: z.array(
    z.looseObject({
      commission: z.string(),
      delivery: z.string(),
      split: z.enum(SPLITS),
      id: z.string(),
      trial: z.number().int().positive(),
      why: z.enum(NOT_RUN_REASONS),
    }),
  ),
  /** Commission suites that failed to load (their cases are unknown, so not counted in `planned`); absent when none. */
  unloaded: z.array(z.looseObject({ commission: z.string(), file: z.string(), error: z.string() })).optional(),
  /** Executions not run beyond those named in `cases` (which stops at 5,000). */
  more: count,
});

export const familyScoreSchema = z.looseObject({
  family: z.enum(FAMILIES),
  delivery: z.string(),
  split: z.enum(SPLITS),
  commissions: z.array(z.string()),
  /** DESIGN §5: the plain (macro) mean of the commission Results; median over them; a stratified bootstrap CI. */
  mean: nullableNum,
  median: nullableNum,
  ci95,
});

export const summarySchema = summarySchemaV1.extend({
  schema: z.literal('heldout/summary@2'),
  /** Set when the document was read from an older version (its gate and partial were then never recorded). */
  migratedFrom: z.literal('heldout/summary@1').optional(),
  run: summarySchemaV1.shape.run,
  gate: gateSchema,
  partial: partialSchema.nullable(),
  families: z.array(familyScoreSchema),
  commissions: z.array(commissionSummarySchema),
  /** v2, optional (issue 34): the run's cost, the sum of its entries'. */
  cost: costSchema.optional(),
});

/** The `heldout/summary@2` document, as `buildSummary` assembles it and summary.json holds it. */
export type Summary = z.infer<typeof summarySchema>;
/** One commission × delivery × split entry of the summary. */
export type CommissionSummary = z.infer<typeof commissionSummarySchema>;
/** One case × trial of an entry: the §14 fields plus the drill-down extras. */
export type CaseSummary = z.infer<typeof caseSummarySchema>;
export type RunInfo = Summary['run'];
export type DeliveryInfo = CommissionSummary['delivery'];
export type ResultSummary = CommissionSummary['result'];
export type OptimizationSummary = NonNullable<CommissionSummary['optimization']>;
export type FailureModes = CommissionSummary['failureModes'];
export type CaseDimensionSummary = CaseSummary['dimensions'][string];
export type Family = CommissionSummary['family'];
export type SplitName = CommissionSummary['split'];
export type GateReport = Summary['gate'];
export type GateCondition = GateReport['conditions'][number];
export type PartialReport = NonNullable<Summary['partial']>;
export type NotRunCase = PartialReport['cases'][number];
/** A commission suite Vitest could not load (its module threw before any case was declared). */
export type UnloadedSuite = NonNullable<PartialReport['unloaded']>[number];
export type FamilyScore = Summary['families'][number];
export type Paired = z.infer<typeof pairedSchema>;

/** The JSON Schema of summary@2 (draft 2020-12), generated from the zod schema; `schema/` ships it. */
export function summaryJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(summarySchema, { target: 'draft-2020-12', unrepresentable: 'any' });
  return {
    $schema,
    title: 'heldout/summary@2',
    description: 'summary.json of a heldout run (DESIGN §14). Generated from src/report/schema.ts; do not edit.',
    ...rest,
  };
}
