import { z } from 'zod';

/**
 * The zod schema of `heldout/summary@1` (DESIGN §14). Every §14 field is required with its type; objects are loose
 * so additive extras (labels, shares, drill-down data) stay valid without a schema bump.
 */

const num = z.number().finite();
const nullableNum = num.nullable();
const gateSchema = z
  .enum([
    'error-exit',
    'timeout',
    'oom',
    'missing-artifact',
    'invalid-artifact',
    'patch-rejected',
    'constraint-violation',
  ])
  .nullable();
const kMap = z.record(z.string().regex(/^[1-9][0-9]*$/), nullableNum);

export const caseSummarySchema = z.looseObject({
  id: z.string(),
  trial: z.number().int().positive(),
  status: z.enum(['graded', 'gate-failed', 'unscored', 'infra-error']),
  gate: gateSchema,
  result: nullableNum,
  passed: z.boolean(),
  dimensions: z.record(z.string(), z.looseObject({ score: num, max: num, cap: nullableNum })),
  ceilings: z.array(z.looseObject({ kind: z.enum(['dimension', 'total']), max: num, reason: z.string() })),
  wallMs: num,
  modelCalls: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
});

export const commissionSummarySchema = z.looseObject({
  id: z.string(),
  family: z.enum(['creation', 'editing', 'optimization', 'tool-agent']),
  split: z.enum(['heldout', 'dev']),
  delivery: z.looseObject({
    path: z.string(),
    digest: z.string(),
    frozen: z.boolean(),
    label: z.string().optional(),
    role: z.enum(['candidate', 'starter']).optional(),
  }),
  result: z.looseObject({
    mean: nullableNum,
    median: nullableNum,
    ci95: z.tuple([num, num]).nullable(),
    n: z.number().int().nonnegative(),
    unscored: z.number().int().nonnegative(),
  }),
  passHatK: kMap,
  passAtK: kMap,
  gap: nullableNum,
  optimization: z
    .looseObject({
      j0: num,
      j1: num,
      delta: num,
      gamma: num,
      S: num,
      wins: z.number().int().nonnegative(),
      losses: z.number().int().nonnegative(),
      ties: z.number().int().nonnegative(),
      signTestP: num.min(0).max(1),
    })
    .nullable(),
  failureModes: z.looseObject({
    graded: z.number().int().nonnegative(),
    errorExit: z.number().int().nonnegative(),
    timeout: z.number().int().nonnegative(),
    otherGate: z.number().int().nonnegative(),
    ceilingHit: z.number().int().nonnegative(),
    ceilingSet: z.number().int().nonnegative(),
    hardCodedDevStrings: z.array(z.string()),
    noModelCalls: z.boolean(),
    claimsContradicted: z.number().int().nonnegative(),
  }),
  cases: z.array(caseSummarySchema),
});

export const summarySchema = z.looseObject({
  schema: z.literal('heldout/summary@1'),
  run: z.looseObject({
    id: z.string(),
    startedAt: z.iso.datetime({ offset: true }),
    sandbox: z.enum(['docker', 'process']),
    version: z.string(),
  }),
  commissions: z.array(commissionSummarySchema),
});
