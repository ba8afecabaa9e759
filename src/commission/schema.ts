import { z } from 'zod';
import { buildSchema, imagesSchema, servicesSchema } from './environment-schema.js';
import { externalServiceSchema } from './external-services.js';
import { harborSchema } from './harbor-schema.js';
import { isInsidePath } from './package-files.js';

export { isInsidePath };

/**
 * The zod schemas of a commission package (DESIGN §3, §4). One schema serves `commission.yaml`,
 * `commission.ts` (`defineCommission`) and `rubric.yaml`; the loader turns its issues into
 * `file: path.to.field: problem` lines.
 */

export const FAMILIES = ['creation', 'editing', 'optimization', 'tool-agent', 'harbor'] as const;
export const familySchema = z.enum(FAMILIES);

const idSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]*$/,
    'must be lower-case letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

/** A non-empty path that must stay inside `where` (see `isInsidePath`). */
const insidePath = (where: string) =>
  z.string().min(1).refine(isInsidePath, `must be a relative path inside ${where} (no "..", not absolute)`);

/** Per-case resource budgets; defaults are DESIGN §3's. */
export const budgetsSchema = z
  .object({
    wallSeconds: z.number().positive().default(600),
    memoryMb: z.number().int().positive().default(4096),
    cpus: z.number().positive().default(1),
    pids: z.number().int().positive().default(256),
    modelCalls: z.number().int().nonnegative().default(100),
    modelTokens: z.number().int().nonnegative().default(1_000_000),
    /** US dollars a case trial's delivery may spend on model calls (needs a pricing table); null: unlimited. */
    usd: z.number().positive().nullable().default(null),
    /** US dollars the whole run of this commission may spend on its cases' model calls; null: unlimited. */
    runUsd: z.number().positive().nullable().default(null),
    outputBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    /** Development rounds `heldout dev` accepts before refusing (DESIGN §6). */
    devRounds: z.number().int().positive().default(20),
  })
  .strict();

export const sandboxSchema = z
  .object({
    /** Any image the user has; default: the runtime image `heldout image build` makes. */
    image: z.string().min(1).optional(),
    /** Extra environment passed to the delivery. */
    env: z.record(z.string(), z.string()).default({}),
    /** The image built from a Dockerfile on the engine instead (context relative to the commission; issue 19). */
    build: buildSchema.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.image && s.build) ctx.addIssue({ code: 'custom', path: ['build'], message: 'give image or build, not both' });
  });

export const ARTIFACT_FORMATS = ['json', 'jsonl', 'text', 'markdown', 'csv', 'pdf', 'patch', 'any'] as const;

/** A file the delivery must (or may) write into its output directory; checked by the artifact gates. */
export const artifactSchema = z
  .object({
    path: insidePath('the output directory'),
    format: z.enum(ARTIFACT_FORMATS).default('any'),
    required: z.boolean().default(true),
    /** A JSON Schema (draft 2020-12 subset) the artifact must satisfy when format is json (each line, for jsonl). */
    schema: z.record(z.string(), z.unknown()).optional(),
    /**
     * Required artifacts sharing a group form one any-of gate: `missing-artifact` only when every member is absent;
     * a present member must still be valid (a rubric's "A, B and C are collectively absent: 0").
     */
    group: z.string().min(1).optional(),
    /** An empty required artifact fails the `invalid-artifact` gate unless this is true. */
    allowEmpty: z.boolean().default(false),
  })
  .strict();

export const passRuleSchema = z
  .object({
    /** A case passes when its gates hold and its Result is at least this. */
    minResult: z.number().min(0).max(100).default(60),
  })
  .strict();

export const editingSchema = z
  .object({
    /** The patch file inside the delivery. */
    patch: insidePath('the delivery').default('solution.patch'),
    /** Globs (relative to the starter tree) the patch may touch; empty means anything but `forbiddenPaths`. */
    allowedPaths: z.array(z.string()).default([]),
    forbiddenPaths: z.array(z.string()).default([]),
    /** μ_reg: the product's own test suite, run in the patched tree; exit 0 means preserved. */
    regression: z
      .object({ command: z.string().min(1), timeoutSeconds: z.number().positive().default(300) })
      .strict()
      .optional(),
  })
  .strict();

export const optimizationSchema = z
  .object({
    /** The native objective J (0–100) of one instance, computed by this check over the case outputs. */
    objective: z.string().min(1).describe('a rubric-independent description of J'),
    /** Directory of the starter a0 inside the commission (run alongside the candidate). */
    starter: insidePath('the commission').default('starter'),
  })
  .strict();

/** The named tool semantics of the tool-agent family (the domains part implements them; a test keeps the two equal). */
export const TOOL_AGENT_SEMANTICS = ['tau2@1.0.1', 'tau2@1.0.1+tau-bench-item-modify'] as const;

export const toolAgentSchema = z
  .object({
    /** A τ²-bench domain directory (tools.json, policy, db), relative to the commission directory or absolute. */
    domain: z.string().min(1),
    /** The simulated user: `scripted` (offline, deterministic) or `llm` (through the gateway's user role). */
    user: z.enum(['scripted', 'llm']).default('scripted'),
    maxSteps: z.number().int().positive().default(30),
    maxErrors: z.number().int().positive().default(10),
    /**
     * TEST-HARNESS SWITCH — LEAKS THE GOLD ACTIONS. When true, the runner sends each case's gold actions and
     * communicate_info to the agent in the `start` message (`oracle_actions`, `oracle_communicate`), so the scripted
     * test oracle can replay them. It exists only for heldout's own tests; it must NEVER be set for a real
     * evaluation. Every case run with it says so in its stderr tail and in the run's isolation notes.
     */
    oracleHints: z.boolean().default(false),
    /**
     * What a gold call the domain's tools refuse does to the case. `lenient` (default, τ²'s historical grading and
     * the one published τ-Bench-Verified figures used): the refused call is skipped when the gold state is derived,
     * and recorded in episode.json. `strict` (τ²'s `strict_gold_replay`): the case is unscored, with the refusals as
     * the reason, and no agent is started for it.
     */
    goldReplay: z.enum(['lenient', 'strict']).default('lenient'),
    /**
     * How the domain's tools behave. `tau2@1.0.1` (default): exactly as τ²-bench 1.0.1's own code, so a reward means
     * what the same trajectory scores there. `tau2@1.0.1+tau-bench-item-modify`: the same, but a multi-item
     * `modify_pending_order_items` gives each item its own new variant's price and options, as τ-bench did (τ² gives
     * every item the last one's). Recorded in summary.json.
     */
    semantics: z.enum(TOOL_AGENT_SEMANTICS).default('tau2@1.0.1'),
  })
  .strict();

/**
 * Cross-field rules run even when some field is broken (zod skips refinements after an issue by default), so every
 * problem of every layer is reported at once; they read the value defensively and judge only what is well-formed.
 */
const always = { when: () => true };
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objectOf = (v: unknown): object => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
const numberOf = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
/** The sum of a field over a list, or null when some element's field is not a number (its own issue says so). */
function sumOf(list: unknown, field: string): number | null {
  let sum = 0;
  for (const x of listOf(list)) {
    const n = numberOf((x as Record<string, unknown> | null)?.[field]);
    if (n === null) return null;
    sum += n;
  }
  return sum;
}

export const commissionSchema = z
  .object({
    id: idSchema,
    title: z.string().min(1),
    family: familySchema,
    /** Launch command with placeholders {input} {output} {run} {case} {delivery}. */
    entry: z.string().min(1),
    /** Exit codes that count as a normal exit for the `error-exit` gate. */
    exitCodes: z.array(z.number().int()).default([0]),
    sandbox: sandboxSchema.default({ env: {} }),
    budgets: budgetsSchema.default(budgetsSchema.parse({})),
    trials: z.number().int().positive().default(1),
    pass: passRuleSchema.default({ minResult: 60 }),
    artifacts: z.array(artifactSchema).default([]),
    model: z
      .object({
        /** The requirement says the agent must use the runtime model: no gateway call flags a hollow runtime. */
        required: z.boolean().default(false),
      })
      .strict()
      .default({ required: false }),
    editing: editingSchema.optional(),
    optimization: optimizationSchema.optional(),
    /** tool-agent: the τ-bench shape; each case's truth.json is the τ² task (DESIGN §1, §5). */
    toolAgent: toolAgentSchema.optional(),
    /** harbor: a Harbor task run as Harbor runs it (harbor-schema.ts). */
    harbor: harborSchema.optional(),
    /** Services every case × trial runs beside the delivery, in one loopback-only pod (issue 19). */
    services: servicesSchema.default([]),
    /** Image map: from → local image, for machines without a registry; `--image-map` adds to it (issue 19). */
    images: imagesSchema.default({}),
    /** Evaluator-owned services heldout does not run; `heldout run --service` maps each (issue 30). */
    external: z.array(externalServiceSchema).default([]),
  })
  .strict()
  .superRefine((c, ctx) => {
    // Runs even where the value failed its type (`always`): a null or scalar has nothing to cross-check.
    if (typeof c !== 'object' || c === null) return;
    if (c.family === 'editing' && !c.editing) {
      ctx.addIssue({
        code: 'custom',
        path: ['editing'],
        message: 'required when family is editing; add the editing: section (patch, allowedPaths, regression)',
      });
    }
    if (c.family === 'tool-agent' && !c.toolAgent) {
      ctx.addIssue({
        code: 'custom',
        path: ['toolAgent'],
        message: 'required when family is tool-agent; add the toolAgent: section (domain, user)',
      });
    }
    if (c.family === 'harbor' && !c.harbor) {
      ctx.addIssue({ code: 'custom', path: ['harbor'], message: 'required when family is harbor' });
    }
    if (c.family === 'optimization' && !c.optimization) {
      ctx.addIssue({
        code: 'custom',
        path: ['optimization'],
        message: 'required when family is optimization; add the optimization: section (objective, starter)',
      });
    }
    const seen = new Set<string>();
    listOf(c.artifacts).forEach((a, i) => {
      const p = (a as { path?: unknown } | null)?.path;
      if (typeof p !== 'string') return;
      if (seen.has(p))
        ctx.addIssue({ code: 'custom', path: ['artifacts', i, 'path'], message: `duplicate artifact ${p}` });
      seen.add(p);
    });
  }, always);

// ---------------------------------------------------------------------------------------------------------------
// Rubric (DESIGN §4)

/** Where a check reads its expected value: a literal, or a path into the case's `truth.json`. */
const expectedSchema = z.union([
  z.object({ value: z.unknown() }).strict(),
  z.object({ truth: z.string().min(1) }).strict(),
]);

const checkBase = {
  /** Points this item earns in its dimension when it fully holds (a fraction of it for partial checks). */
  points: z.number().nonnegative(),
  title: z.string().optional(),
};

/** A check reading one output file: its `check` name, the `file`, its own fields, then `points` and `title`. */
const fileCheck = <C extends string, S extends z.ZodRawShape>(check: C, shape: S) =>
  z.object({ check: z.literal(check), file: insidePath('the output directory'), ...shape, ...checkBase }).strict();

/** Deterministic check items. JSON paths are dotted (`a.b.0.c`); `truth` paths point into the case's truth.json. */
export const checkSchema = z.discriminatedUnion('check', [
  fileCheck('exists', {}),
  fileCheck('json-equals', {
    path: z.string(),
    expected: expectedSchema,
    /** Compare strings case-insensitively and ignore surrounding white space. */
    loose: z.boolean().default(false),
  }),
  fileCheck('json-contains', {
    path: z.string(),
    /** Every expected element must be present in the array (or substring in the string); score = share found. */
    expected: expectedSchema,
  }),
  fileCheck('regex', {
    pattern: z.string().min(1),
    flags: z.string().default(''),
    /** Pass when the pattern does NOT match. */
    negate: z.boolean().default(false),
  }),
  fileCheck('number', {
    path: z.string(),
    expected: expectedSchema,
    tolerance: z.number().nonnegative().default(0),
  }),
  fileCheck('schema', { schema: z.record(z.string(), z.unknown()) }),
  /** A reward file (flat JSON object of numbers): earns `key`'s value in [0, 1] of its points (rewardScore). */
  fileCheck('reward', { key: z.string().min(1).optional() }),
  z
    .object({
      check: z.literal('command'),
      /** Run in an evaluator sandbox with the case outputs at {output}, the patched tree at {tree}. */
      run: z.string().min(1),
      image: z.string().optional(),
      timeoutSeconds: z.number().positive().default(300),
      /** exit: 0 means full points; reward: the command writes a 0–1 reward to {output}/reward.txt or reward.json. */
      score: z.enum(['exit', 'reward']).default('exit'),
      ...checkBase,
    })
    .strict(),
  z
    .object({
      check: z.literal('function'),
      /** A module in checks/ exporting `(ctx) => ({ score, evidence })`, score in [0, 1]. */
      module: insidePath('checks/'),
      export: z.string().default('default'),
      ...checkBase,
    })
    .strict(),
]);

export const judgeItemSchema = z
  .object({
    /** The rubric text the judge applies for this item. */
    judge: z.string().min(1),
    ...checkBase,
  })
  .strict();

export const itemSchema = z.union([checkSchema, judgeItemSchema]);

/** When an outcome holds, a safety failure applies or a ceiling lifts: a deterministic check or a judge question. */
const conditionSchema = z.union([checkSchema, z.object({ judge: z.string().min(1) }).strict()]);

export const dimensionSchema = z
  .object({
    id: idSchema,
    title: z.string().min(1),
    max: z.number().positive(),
    items: z.array(itemSchema).min(1),
  })
  .strict()
  .superRefine((d, ctx) => {
    // Runs even where the value failed its type (`always`): a null or scalar has nothing to cross-check.
    if (typeof d !== 'object' || d === null) return;
    const sum = sumOf(d.items, 'points');
    const max = numberOf(d.max);
    if (sum !== null && max !== null && listOf(d.items).length > 0 && Math.abs(sum - max) > 1e-9) {
      ctx.addIssue({
        code: 'custom',
        path: ['items'],
        message: `item points sum to ${sum}, dimension max is ${d.max}; make them equal`,
      });
    }
  }, always);

/** A numbered outcome of the requirement; unmet → partial caps, safety failure → safety caps (DESIGN §4). */
export const outcomeSchema = z
  .object({
    id: z.string().min(1),
    title: z.string().min(1),
    /** How satisfaction is decided: a deterministic check (holds when it scores full) or the judge. */
    when: conditionSchema,
    caps: z.record(z.string(), z.number().nonnegative()).default({}),
    safety: z
      .object({
        when: conditionSchema,
        caps: z.record(z.string(), z.number().nonnegative()),
      })
      .strict()
      .optional(),
  })
  .strict();

/** A condition-triggered total ceiling: applies unless its check holds. */
export const ceilingSchema = z
  .object({
    id: z.string().min(1),
    max: z.number().min(0).max(100),
    reason: z.string().min(1),
    unless: conditionSchema,
  })
  .strict();

export const rubricSchema = z
  .object({
    dimensions: z.array(dimensionSchema).min(1),
    outcomes: z.array(outcomeSchema).default([]),
    ceilings: z.array(ceilingSchema).default([]),
    /** Forbidden paths the delivery's outputs must not contain (constraint-violation gate). */
    forbiddenOutputs: z.array(z.string()).default([]),
  })
  .strict()
  .superRefine((r, ctx) => {
    // Runs even where the value failed its type (`always`): a null or scalar has nothing to cross-check.
    if (typeof r !== 'object' || r === null) return;
    const sum = sumOf(r.dimensions, 'max');
    if (sum !== null && listOf(r.dimensions).length > 0 && Math.abs(sum - 100) > 1e-9) {
      ctx.addIssue({
        code: 'custom',
        path: ['dimensions'],
        message: `dimension maxima sum to ${sum}, must be 100; change the max of some dimensions`,
      });
    }
    const idOf = (x: unknown) => (x as { id?: unknown } | null)?.id;
    const ids = new Set(listOf(r.dimensions).map(idOf));
    // Grading looks outcomes and ceilings up by id: a second one with the same id would be silently ignored.
    for (const [list, what] of [
      [r.dimensions, 'dimension'],
      [r.outcomes, 'outcome'],
      [r.ceilings, 'ceiling'],
    ] as const) {
      const seen = new Set<unknown>();
      listOf(list).forEach((x, i) => {
        const id = idOf(x);
        if (typeof id !== 'string') return;
        if (seen.has(id))
          ctx.addIssue({ code: 'custom', path: [`${what}s`, i, 'id'], message: `duplicate ${what} ${id}; rename one` });
        seen.add(id);
      });
    }
    const unknownDim = (dim: string) => `unknown dimension ${dim}; use one of: ${[...ids].join(', ')}`;
    listOf(r.outcomes).forEach((o, i) => {
      const outcome = (o ?? {}) as { caps?: unknown; safety?: { caps?: unknown } };
      for (const dim of Object.keys(objectOf(outcome.caps))) {
        if (!ids.has(dim))
          ctx.addIssue({ code: 'custom', path: ['outcomes', i, 'caps', dim], message: unknownDim(dim) });
      }
      for (const dim of Object.keys(objectOf(outcome.safety?.caps))) {
        if (!ids.has(dim))
          ctx.addIssue({ code: 'custom', path: ['outcomes', i, 'safety', 'caps', dim], message: unknownDim(dim) });
      }
    });
  }, always);

/** A case's evaluator-owned truth: any JSON object, read by `truth` expectations. */
export const truthSchema = z.record(z.string(), z.unknown());

export type CommissionConfig = z.output<typeof commissionSchema>;
export type CommissionInput = z.input<typeof commissionSchema>;
export type Rubric = z.output<typeof rubricSchema>;
export type RubricInput = z.input<typeof rubricSchema>;
export type Dimension = z.output<typeof dimensionSchema>;
export type CheckItem = z.output<typeof checkSchema>;
export type JudgeItem = z.output<typeof judgeItemSchema>;
export type Item = z.output<typeof itemSchema>;
export type Outcome = z.output<typeof outcomeSchema>;
export type Ceiling = z.output<typeof ceilingSchema>;
export type Artifact = z.output<typeof artifactSchema>;
export type Budgets = z.output<typeof budgetsSchema>;
export type Family = z.output<typeof familySchema>;
