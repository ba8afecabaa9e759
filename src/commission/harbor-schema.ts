import { z } from 'zod';
import { isInsidePath } from './package-files.js';

/**
 * The `harbor` block of a commission (family `harbor`): a Harbor / Terminal-Bench task as Harbor runs it — one
 * container per trial built from the task's environment, the agent inside it, then the task's own verifier on the
 * same container state. `heldout import harbor` writes it from `task.toml`, the Dockerfile and the task's layout;
 * every path is relative to the commission directory.
 */

/** A path the package names, relative to the commission and inside it (the loader's hostile-input rule, issue 17). */
const insidePath = z
  .string()
  .min(1)
  .refine(isInsidePath, 'must be a relative path inside the commission (no "..", not absolute)');

/** Environment variables; a value may be a `${VAR}` / `${VAR:-default}` template, resolved on the host at run time. */
const envSchema = z.record(z.string(), z.string()).default({});

/** Docker-HEALTHCHECK polling semantics (Harbor's `[environment.healthcheck]`, `[steps.healthcheck]`). */
export const harborHealthcheckSchema = z
  .object({
    command: z.string().min(1),
    intervalSeconds: z.number().positive().default(5),
    timeoutSeconds: z.number().positive().default(30),
    startPeriodSeconds: z.number().nonnegative().default(0),
    startIntervalSeconds: z.number().positive().default(5),
    retries: z.number().int().nonnegative().default(3),
  })
  .strict();

/** A path collected from the container after the agent (and after each step): Harbor's `artifacts`. */
export const harborArtifactSchema = z
  .object({
    source: z.string().min(1),
    destination: z.string().min(1).optional(),
    exclude: z.array(z.string()).default([]),
  })
  .strict();

/** One `[[verifier.collect]]` hook in the main container: run after the agent, before the artifacts are collected. */
export const harborCollectSchema = z
  .object({
    command: z.string().min(1),
    timeoutSeconds: z.number().positive().default(60),
    /** null: the container's user. */
    user: z.string().min(1).nullable().default(null),
  })
  .strict();

/**
 * A verifier in its own environment (schema 1.4 `environment_mode = "separate"`): a fresh container of `image`, or
 * of the image built from `dockerfile` in `context` (the task's tests/, which the image owns as /tests), given only
 * the artifacts the agent's container handed over.
 */
export const harborSeparateVerifierSchema = z
  .object({
    /** `[verifier.environment].docker_image` (or the task environment's, when it is the copy); null: build. */
    image: z.string().min(1).nullable().default(null),
    /** The tests directory (relative to the commission) the verifier image is built from. */
    context: insidePath,
    /** The Dockerfile in `context` (its name); null when the image is `image`. */
    dockerfile: z.string().min(1).nullable().default(null),
    workdir: z.string().min(1).nullable().default(null),
    memoryMb: z.number().positive().nullable().default(null),
    cpus: z.number().positive().nullable().default(null),
    network: z.enum(['public', 'no-network', 'allowlist']).default('public'),
  })
  .strict();

export const harborVerifierSchema = z
  .object({
    /** Harbor's default is 600 s. */
    timeoutSeconds: z.number().positive().default(600),
    env: envSchema,
    /** The user test.sh runs as; null: the image's USER. */
    user: z.string().min(1).nullable().default(null),
    /** Collect hooks in the main container (the task's, then the step's). */
    collect: z.array(harborCollectSchema).default([]),
    /** null: the verifier runs in the agent's container (Harbor's `shared`). */
    separate: harborSeparateVerifierSchema.nullable().default(null),
  })
  .strict();

const VERIFIER_DEFAULT = { timeoutSeconds: 600, env: {}, user: null, collect: [], separate: null };

/** One `COPY`/`ADD` of the Dockerfile's final stage: sources relative to the build context, the destination inside. */
export const harborCopySchema = z
  .object({
    from: z.array(z.string().min(1)).min(1),
    to: z.string().min(1),
  })
  .strict();

/**
 * The task's environment image: how to build it and what its final stage sets. When the image run is not the one
 * built from `dockerfile` (no build happened, or an image map substituted its base), heldout replays the final
 * stage's `WORKDIR`, `ENV`, `USER`, `ENTRYPOINT` and local `COPY`/`ADD` onto it; `skipped` lists what cannot be.
 */
export const harborImageSchema = z
  .object({
    /** environment/Dockerfile, relative to the commission; null when the task has none. */
    dockerfile: insidePath.nullable().default(null),
    /** The build context (the task's environment/ directory). */
    context: insidePath,
    /** The final stage's FROM. */
    base: z.string().min(1).nullable().default(null),
    /** `[environment].docker_image`: a prebuilt image Harbor would run instead of building. */
    prebuilt: z.string().min(1).nullable().default(null),
    /** The final stage's WORKDIR, resolved (null: none set). */
    workdir: z.string().min(1).nullable().default(null),
    /** The final stage's USER (null: none set, the base image's). */
    user: z.string().min(1).nullable().default(null),
    /** The final stage's ENTRYPOINT (exec form); null when it sets none, [] when it clears it. */
    entrypoint: z.array(z.string()).nullable().default(null),
    /** The final stage's ENV, in order. */
    env: envSchema,
    copies: z.array(harborCopySchema).default([]),
    /** Instructions of the final stage a replay cannot apply (RUN, COPY --from, ADD <url>, …), as written. */
    skipped: z.array(z.string()).default([]),
  })
  .strict();

/** An MCP server the task declares; Harbor never starts it (it is a compose service), it hands it to the agent. */
export const harborMcpServerSchema = z
  .object({
    name: z.string().min(1),
    transport: z.enum(['sse', 'streamable-http', 'stdio']),
    url: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
  })
  .strict();

/** One `[[steps]]` entry: its files are under `<dir>/steps/<name>/`. */
export const harborStepSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a directory name under steps/'),
    /** Stop after this step when its reward is below this (a number gates `reward`; an object gates each key). */
    minReward: z
      .union([z.number(), z.record(z.string(), z.number())])
      .nullable()
      .default(null),
    /** The step's agent timeout; null: the task's `[agent].timeout_sec`. */
    agentTimeoutSeconds: z.number().positive().nullable().default(null),
    agentUser: z.string().min(1).nullable().default(null),
    verifier: harborVerifierSchema.default(VERIFIER_DEFAULT),
    healthcheck: harborHealthcheckSchema.nullable().default(null),
    artifacts: z.array(harborArtifactSchema).default([]),
  })
  .strict();

export const harborSchema = z
  .object({
    /** The task's own files (environment/, tests/, solution/, steps/), copied verbatim by the importer. */
    dir: insidePath.default('harbor'),
    /** `[environment].workdir`: the working directory of every phase; null: the image's WORKDIR. */
    workdir: z.string().min(1).nullable().default(null),
    /** `[environment].env`: set in the container for every phase (and its entrypoint). */
    env: envSchema,
    agent: z
      .object({
        /** Harbor has no default agent timeout; the commission's budgets.wallSeconds bounds the agent when null. */
        timeoutSeconds: z.number().positive().nullable().default(null),
        user: z.string().min(1).nullable().default(null),
      })
      .strict()
      .default({ timeoutSeconds: null, user: null }),
    verifier: harborVerifierSchema.default(VERIFIER_DEFAULT),
    /** `[solution].env`: set only while the oracle's solve.sh runs. */
    solutionEnv: envSchema,
    image: harborImageSchema,
    healthcheck: harborHealthcheckSchema.nullable().default(null),
    artifacts: z.array(harborArtifactSchema).default([]),
    /** `[environment].network_mode` (or the legacy `allow_internet`): honoured only where the engine has a network. */
    network: z.enum(['public', 'no-network', 'allowlist']).default('public'),
    allowedHosts: z.array(z.string()).default([]),
    mcpServers: z.array(harborMcpServerSchema).default([]),
    /** `[environment].skills_dir`: a directory in the environment the agent is told about. */
    skillsDir: z.string().min(1).nullable().default(null),
    /** `[[steps]]`, in order; empty for a single-step task. */
    steps: z.array(harborStepSchema).default([]),
    /**
     * The reward keys the Result is made of (the rubric's dimensions); the verifier's other numbers are recorded.
     * Empty: `reward` when the verifier writes it, else every key it writes.
     */
    score: z.array(z.string().min(1)).default([]),
    /** How a multi-step trial's reward is made from its steps' (Harbor's `multi_step_reward_strategy`). */
    rewardStrategy: z.enum(['mean', 'final']).default('mean'),
  })
  .strict();

export type HarborConfig = z.output<typeof harborSchema>;
export type HarborStep = z.output<typeof harborStepSchema>;
export type HarborHealthcheck = z.output<typeof harborHealthcheckSchema>;
export type HarborArtifact = z.output<typeof harborArtifactSchema>;
export type HarborImage = z.output<typeof harborImageSchema>;
export type HarborVerifier = z.output<typeof harborVerifierSchema>;
export type HarborSeparateVerifier = z.output<typeof harborSeparateVerifierSchema>;
