import { z } from 'zod';
import { FAMILIES } from '../commission/index.js';
import {
  CASE_STATUSES,
  type CaseGrade,
  type CeilingRecord,
  GATE_CATEGORIES,
  type ItemResult,
  type OutcomeResult,
} from '../grading/index.js';
import type { IsolationName } from '../sandbox/index.js';

/**
 * The zod schema of `heldout/summary@1` (DESIGN §14), frozen: heldout writes summary@2 (schema.ts, built on these
 * objects) and reads summary@1 documents through `migrateSummary`. Every §14 field is required with its type. Fields
 * marked "Extra" go beyond §14: those heldout wrote since summary@1 began are required too; one added within the
 * version is optional (as `delivery.role` is). Objects are loose, so additive extras never needed a schema bump.
 */

// The isolations a run can report. Written out (a type import keeps the sandbox part, and dockerode, out of the
// reporter's load), and checked at compile time to name every isolation the sandbox registry can give.
export const ISOLATIONS = ['docker', 'podman', 'process'] as const satisfies readonly IsolationName[];
const everyIsolationListed: Exclude<IsolationName, (typeof ISOLATIONS)[number]> extends never ? true : false = true;
void everyIsolationListed;

export const num = z.number().finite();
export const nullableNum = num.nullable();
export const count = z.number().int().nonnegative();
export const gateSchema = z.enum(GATE_CATEGORIES);
const kMap = z.record(z.string().regex(/^[1-9][0-9]*$/), nullableNum);

/**
 * A value whose shape grading owns and types (src/grading/types.ts), carried into the summary as graded. The report
 * does not restate that shape: it checks what §14 asks of it (nothing, for the drill-down extras) and takes its type
 * from grading.
 */
export function graded<T>(check: z.ZodType = z.unknown()): z.ZodType<T> {
  return check as z.ZodType<T>;
}

export const caseSummarySchemaV1 = z.looseObject({
  id: z.string(),
  trial: z.number().int().positive(),
  status: z.enum(CASE_STATUSES),
  gate: gateSchema.nullable(),
  result: nullableNum,
  passed: z.boolean(),
  /** `score` is null for an unscored or infra-error case: nothing was earned or lost. */
  dimensions: z.record(z.string(), z.looseObject({ score: nullableNum, max: num, cap: nullableNum })),
  ceilings: z.array(
    graded<CeilingRecord>(z.looseObject({ kind: z.enum(['dimension', 'total']), max: num, reason: z.string() })),
  ),
  wallMs: num,
  modelCalls: count,
  tokens: count,
  /** Extras for the drill-down. */
  reason: z.string().nullable(),
  ceilingHit: z.boolean(),
  ceilingSet: z.boolean(),
  exitCode: z.number().nullable(),
  items: z.record(z.string(), z.array(graded<ItemResult>())),
  outcomes: z.array(graded<OutcomeResult>()),
  judge: graded<CaseGrade['judge']>(),
  stderrTail: z.string(),
  claimsContradicted: z.array(z.string()),
});

export const commissionSummarySchemaV1 = z.looseObject({
  id: z.string(),
  family: z.enum(FAMILIES),
  split: z.enum(['heldout', 'dev']),
  delivery: z.looseObject({
    path: z.string(),
    digest: z.string(),
    frozen: z.boolean(),
    /** Extra: a short human name for the delivery (`reference`, `overfit`, …); defaults to the path's last segment. */
    label: z.string().optional(),
    /** Extra: `starter` for an optimization commission's a0 (the baseline, outside the CI gate), else `candidate`. */
    role: z.enum(['candidate', 'starter']).optional(),
  }),
  result: z.looseObject({
    /** Mean over cases of each case's mean Result across its scored trials; null when nothing was scored. */
    mean: nullableNum,
    median: nullableNum,
    ci95: z.tuple([num, num]).nullable(),
    /** Cases with at least one scored trial. */
    n: count,
    /** Case × trial executions a judge could not score (not counted as 0). */
    unscored: count,
    /** Extra: scored case × trial executions (graded + gate-failed). */
    trials: count,
    /** Extra: executions lost to infrastructure, dropped and counted (DESIGN §5). */
    infraErrors: count,
  }),
  /** pass^k for k = 1..max trials, keyed "k"; null where some case has fewer than k trials. */
  passHatK: kMap,
  passAtK: kMap,
  /** Dev mean − held-out mean for the same commission and digest; null until both splits ran. */
  gap: nullableNum,
  optimization: z
    .looseObject({
      j0: num,
      j1: num,
      delta: num,
      gamma: num,
      S: num,
      wins: count,
      losses: count,
      ties: count,
      signTestP: num.min(0).max(1),
    })
    .nullable(),
  failureModes: z.looseObject({
    /** Executions that passed every gate and were graded. */
    graded: count,
    errorExit: count,
    timeout: count,
    /** Gate failures other than error-exit and timeout (oom, missing/invalid artifact, patch, constraint). */
    otherGate: count,
    ceilingHit: count,
    ceilingSet: count,
    hardCodedDevStrings: z.array(z.string()),
    /** True when the delivery made no model call in any execution that ran. */
    noModelCalls: z.boolean(),
    /** Executions whose observations contradicted at least one claim of the delivery's run_report.json. */
    claimsContradicted: count,
    /** Extra: all executions, the denominator of the shares. */
    executions: count,
    /** Extra. */
    unscored: count,
    /** Extra. */
    infraError: count,
    /** Extra: gate failures by category. */
    gates: z.partialRecord(gateSchema, count),
  }),
  /** Extra: the pass rule the successes of pass^k were counted by. */
  passRule: z.looseObject({ minResult: num }),
  cases: z.array(caseSummarySchemaV1),
});

export const summarySchemaV1 = z.looseObject({
  schema: z.literal('heldout/summary@1'),
  run: z.looseObject({
    id: z.string(),
    startedAt: z.iso.datetime({ offset: true }),
    sandbox: z.enum(ISOLATIONS),
    version: z.string(),
  }),
  commissions: z.array(commissionSummarySchemaV1),
});

/** A `heldout/summary@1` document, as heldout wrote it before summary@2. */
export type SummaryV1 = z.infer<typeof summarySchemaV1>;
/** The failure-mode counts of a summary@1 entry (summary@2 adds their shares). */
export type FailureModesV1 = z.infer<typeof commissionSummarySchemaV1>['failureModes'];
