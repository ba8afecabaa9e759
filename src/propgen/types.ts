/**
 * Property-based case generation (DESIGN §12): what a commission declares in `properties.ts`, and what a property
 * run reports. Plain types only; the runner lives in `run-properties.ts`.
 */
import type { Arbitrary } from 'fast-check';
import type { z } from 'zod';
import type { Execution, SandboxKind } from '../sandbox/index.js';

/** The files of one rendered case, relative to the case directory: `input.md` and `assets/<name>` entries. */
export type RenderedCase = Record<string, string>;

/** Read access to one execution's output directory; every reader returns null for a missing or unreadable file. */
export interface Outputs {
  execution: Execution;
  outputDir: string;
  readJson<T = unknown>(path: string): T | null;
  readText(path: string): string | null;
  exists(path: string): boolean;
}

/** What a property's `check` sees: the generated input plus the delivery's outputs for it. */
export interface PropertyContext<I> extends Outputs {
  input: I;
}

/** `true` when the property holds, otherwise the reason it does not (a string, shown in the report). */
export type Verdict = true | string;

export interface PropertyDecl<I> {
  /** Kebab-case id; it names the written case (`prop-<id>-…`). */
  id: string;
  title: string;
  check(ctx: PropertyContext<I>): Verdict | Promise<Verdict>;
}

/** A seeded random source for metamorphic transforms; deterministic for a given generated value. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
}

export interface MetamorphicDecl<I> {
  id: string;
  title: string;
  /** Derives the follow-up input from a generated one; must be pure given `rng`. */
  transform(input: I, rng: Rng): I;
  /** Relates the outputs of the source input `a` and of the follow-up input `b`. */
  relation(a: Outputs, b: Outputs, inputA: I, inputB: I): Verdict | Promise<Verdict>;
}

/** The default export of a commission's `properties.ts`. */
export interface PropertiesDecl<S extends z.ZodType = z.ZodType> {
  /** The case input: request fields and attached data. Arbitraries are derived from it. */
  input: S;
  /** Renders one input into the files of a case directory (`input.md`, `assets/…`). */
  render(input: z.output<S>): RenderedCase;
  /** The case's `truth.json`, when the commission can derive it from the input; enables the `passes-rubric` built-in. */
  truth?(input: z.output<S>): Record<string, unknown>;
  properties: PropertyDecl<z.output<S>>[];
  metamorphic?: MetamorphicDecl<z.output<S>>[];
  /** Arbitraries that replace the derived ones at dotted paths of the input (`log.events.service`: array items skip the index). */
  arbitraries?: Record<string, Arbitrary<unknown>>;
}

export type Split = 'dev' | 'heldout';

export interface PropertyRunOptions {
  /** The delivery directory under test. */
  delivery: string;
  /** Generated inputs to try (default 100). */
  runs?: number;
  /** fast-check seed (default: a fresh one, reported). */
  seed?: number;
  /** Replays a failure from its reported path (with the same seed). */
  path?: string;
  /** Split of the written minimal case (default heldout). */
  into?: Split;
  /** Root of the written case: `<casesDir>/<into>/prop-…` (default `<commission>/cases`; held-out: `$HELDOUT_CASES/<id>` when it exists). */
  casesDir?: string;
  /** false: report the failure without writing a case. */
  write?: boolean;
  sandbox?: SandboxKind;
  /** The declaration file (default `<commission>/properties.ts`). */
  propertiesFile?: string;
  /** Called after each evaluated input (generation and shrinking), e.g. for progress output. */
  onEvaluated?: (e: { index: number; failed: string | null }) => void;
}

/** One broken property, on the minimal input fast-check shrank to. */
export interface PropertyFailure {
  property: string;
  title: string;
  reason: string;
  seed: number;
  /** fast-check's replay path of the counterexample. */
  path: string;
  counterexample: unknown;
  /** The follow-up input, when a metamorphic relation broke. */
  followUp?: unknown;
  /** What an ordinary held-out run of the written case shows (built-in gate and rubric failures). */
  expect?: { gate?: string; result?: number | null; passed?: boolean };
  shrinks: number;
  /** The written case directory, or null when writing was off. */
  caseDir: string | null;
}

export interface PropertyReport {
  commission: string;
  delivery: string;
  /** The backend that ran the delivery (`SandboxBackend.name`). */
  sandbox: string;
  seed: number;
  /** Inputs run before the first failure (or all of them). */
  runs: number;
  properties: { id: string; title: string; kind: 'builtin' | 'declared' | 'metamorphic' }[];
  failure: PropertyFailure | null;
}
