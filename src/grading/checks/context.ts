import type { CheckItem } from '../../commission/index.js';
import type { Execution } from '../../sandbox/index.js';

/** A check's verdict: `score` is the share in [0, 1] of its points; `evidence` says what was expected vs found. */
export interface CheckResult {
  score: number;
  evidence: string;
}

/** What an evaluator command returns. `outputDir` is where its writes to `{output}` landed (reward.txt/json). */
export interface CommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  outputDir?: string;
}

/**
 * Runs an evaluator command (a `command` check, the μ_reg regression suite) in a sandbox the caller owns.
 * `mounts` maps placeholders to host directories: `{output}` (writable, a copy of the case outputs) and `{tree}`
 * (the patched starter tree); the runner substitutes the paths where it mounts them.
 */
export type CommandRunner = (
  command: string,
  options: { mounts: { output: string; tree?: string }; timeoutSeconds: number; image?: string },
) => Promise<CommandResult>;

/** What a `function` check module receives. */
export interface CheckFunctionContext {
  caseId: string;
  split: 'dev' | 'heldout';
  /** The case's input.md text. */
  input: string;
  truth: Record<string, unknown> | null;
  outputDir: string;
  readJson(relPath: string): unknown;
  readText(relPath: string): string;
  execution: Execution | null;
}

/** What every check kind reads: the case, its outputs and execution, and how to run commands and modules. */
export interface CheckContext {
  caseId: string;
  split: 'dev' | 'heldout';
  input: string;
  truth: Record<string, unknown> | null;
  outputDir: string;
  execution: Execution | null;
  /** The commission's checks/ directory, for `function` checks. */
  checksDir: string | null;
  /** The patched starter tree of an editing case, mounted at `{tree}` for commands. */
  treeDir?: string | null;
  runCommand?: CommandRunner;
}

/** A fault of the evaluator's own setup (missing truth path, check module, runner): never the delivery's fault. */
export class CheckSetupError extends Error {
  override name = 'CheckSetupError';
}

/** A missing or unreadable output: the delivery's fault, so the check scores 0 with this message as evidence. */
export class OutputError extends Error {}

/** A check kind's name as the commission schema's `check` union spells it (what `heldout validate` accepts). */
export type SchemaCheckKind = CheckItem['check'];

/** The item of kind `K`, as the commission schema parsed it. */
export type CheckItemOf<K extends string> = Extract<CheckItem, { check: K }>;

/**
 * One check kind: scores its item in [0, 1] with evidence. It throws `OutputError` for a missing or broken output
 * (scored 0) and `CheckSetupError` for a fault of the evaluator's setup. `I` is the item it reads.
 */
export interface CheckKind<I = never> {
  run(item: I, ctx: CheckContext): CheckResult | Promise<CheckResult>;
}

/** A kind for the schema's items of kind `K`: its `run` receives exactly that item. */
export function defineCheck<K extends SchemaCheckKind>(
  _kind: K,
  run: (item: CheckItemOf<K>, ctx: CheckContext) => CheckResult | Promise<CheckResult>,
): CheckKind<CheckItemOf<K>> {
  return { run };
}

/** Substitutes `{name}` placeholders; unknown ones are left as they are. */
export function resolvePlaceholders(command: string, values: Record<string, string | undefined>): string {
  return command.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
}

/** The last `n` non-empty lines of a command's output on one line (` | `), at most 300 characters. */
export function lastLines(text: string, n: number): string {
  return text.trim().split('\n').filter(Boolean).slice(-n).join(' | ').slice(0, 300);
}
