import { existsSync, readFileSync } from 'node:fs';
import type { CaseRef, CheckItem, Commission, Split } from '../commission/index.js';
import type { Execution } from '../sandbox/index.js';
import { type CheckContext, type CheckResult, type CommandRunner, runCheck } from './checks.js';
import { claimsContradicted } from './claims.js';
import type { GateOutcome } from './gates.js';
import type { JudgeConfig } from './judge.js';
import type { JudgedOutcome, LedgerSummary } from './judge-prompt.js';
import type { ScoreCaseInput, ScoreCaseOutput } from './score-case.js';
import type { CaseGrade, DimensionResult, GateCategory, ItemResult, OutcomeResult, PatchedTree } from './types.js';

/** What `gradeCase` grades: one case × trial, its execution and outputs, and how to judge and run commands. */
export interface GradeCaseInput {
  commission: Pick<Commission, 'config' | 'rubric' | 'checksDir' | 'starterDir'>;
  caseRef: Pick<CaseRef, 'id' | 'split' | 'inputPath' | 'truth'>;
  trial: number;
  split?: Split;
  /** null when the delivery was not executed (a patch-only editing delivery): run gates are skipped. */
  execution: Execution | null;
  outputDir: string;
  ledger?: LedgerSummary | null;
  /** The judge; undefined reads `judgeConfigFromEnv()`, null means no judge. */
  judge?: JudgeConfig | null;
  /** Judge cache directory (default `.heldout/judge-cache`); null turns the cache off. */
  cacheDir?: string | null;
  /** Runs `command` checks and the μ_reg regression suite in an evaluator sandbox. */
  runCommand?: CommandRunner;
  /** Editing: the delivery's patch (default `<outputDir>/<editing.patch>`) and where to build the patched tree. */
  patch?: string | { path: string; workDir?: string };
  /** Editing: the tree the delivery's patch made once for all its cases (read-only); without it the grader patches. */
  tree?: PatchedTree;
}

/** What the phases of one case's grading share; each phase reads what the earlier ones left and adds its part. */
export interface GradingContext {
  readonly input: GradeCaseInput;
  readonly split: Split;
  /** The grade being built; it is what `gradeCase` resolves to. */
  readonly grade: CaseGrade;
  gates: GateOutcome | null;
  /** Editing: the patched tree (mounted at `{tree}` for commands) and the patch that made it; null otherwise. */
  tree: { dir: string; patch: string } | null;
  /** Built once the gates hold; null before. */
  checks: CheckContext | null;
  /** Test-like evidence (command checks, μ_reg) that run_report.json claims are held against. */
  tests: { title: string; held: boolean }[];
  /** Judge items waiting for the case's one judge call. */
  pendingJudge: { dim: string; item: ItemResult }[];
  /** The deterministic verdicts, shown to the judge. */
  facts: { title: string; score: number | null; evidence: string }[];
  outcomes: OutcomeResult[];
  /** Outcome and ceiling conditions only the judge can decide. */
  judgedOutcomes: JudgedOutcome[];
  ceilingHolds: Map<string, { holds: boolean | null; evidence: string }>;
  /** Why no score can honestly be given (the judge could not answer, or none is configured). */
  unscored: string | null;
  score: { input: ScoreCaseInput; output: ScoreCaseOutput } | null;
  /** Run when grading ends, however it ends. */
  cleanups: (() => void)[];
}

/** One step of grading. Returning a grade ends grading with it (a failed gate, an evaluator fault). */
export type Phase = (ctx: GradingContext) => CaseGrade | undefined | Promise<CaseGrade | undefined>;

/** A check score at or above this is a held condition (float sums of whole points). */
export const FULL = 1 - 1e-9;

/** A fresh context: the grade has every rubric dimension at 0 and the execution's figures. */
export function newContext(input: GradeCaseInput): GradingContext {
  return {
    input,
    split: input.split ?? input.caseRef.split,
    grade: emptyGrade(input),
    gates: null,
    tree: null,
    checks: null,
    tests: [],
    pendingJudge: [],
    facts: [],
    outcomes: [],
    judgedOutcomes: [],
    ceilingHolds: new Map(),
    unscored: null,
    score: null,
    cleanups: [],
  };
}

/** The grade of a case before any phase ran: every rubric dimension at 0, with the execution's figures. */
export function emptyGrade(input: GradeCaseInput): CaseGrade {
  const { execution } = input;
  const grade = blankGrade(input.caseRef, input.split ?? input.caseRef.split, input.trial, {
    dimensions: Object.fromEntries(
      input.commission.rubric.dimensions.map((d) => [
        d.id,
        { score: 0, max: d.max, cap: null, earned: 0, items: [] } satisfies DimensionResult,
      ]),
    ),
    wallMs: execution?.wallMs ?? 0,
    modelCalls: input.ledger?.calls ?? 0,
    tokens: input.ledger?.tokens ?? 0,
    exitCode: execution?.exitCode ?? null,
    stderrTail: tailLines(execution?.stderr ?? '', 20, 2000),
  });
  // What the judge and the report see of the streams is their head: say when that is not all there was.
  const cut = (['stdout', 'stderr'] as const).filter((s) => execution?.[`${s}Truncated`]);
  if (cut.length > 0) grade.truncated = cut;
  return grade;
}

/** A case grade that is not a score: `unscored` (no reward can honestly be given) or an evaluator-side fault. */
export function stoppedGrade(
  caseRef: Pick<CaseRef, 'id'>,
  split: Split,
  trial: number,
  status: 'unscored' | 'infra-error',
  reason: string,
): CaseGrade {
  const none = { dimensions: {}, wallMs: 0, modelCalls: 0, tokens: 0, exitCode: null, stderrTail: '' };
  return { ...blankGrade(caseRef, split, trial, none), status, reason };
}

// One literal, so every grade has its keys in the same order (the records and the report are JSON).
function blankGrade(
  caseRef: Pick<CaseRef, 'id'>,
  split: Split,
  trial: number,
  f: Pick<CaseGrade, 'dimensions' | 'wallMs' | 'modelCalls' | 'tokens' | 'exitCode' | 'stderrTail'>,
): CaseGrade {
  return {
    id: caseRef.id,
    trial,
    split,
    status: 'graded',
    gate: null,
    reason: null,
    result: null,
    passed: false,
    dimensions: f.dimensions,
    ceilings: [],
    ceilingHit: false,
    ceilingSet: false,
    outcomes: [],
    judge: null,
    wallMs: f.wallMs,
    modelCalls: f.modelCalls,
    tokens: f.tokens,
    exitCode: f.exitCode,
    stderrTail: f.stderrTail,
    claimsContradicted: [],
  };
}

/** Ends the case as an evaluator fault: no Result, never the delivery's failure. */
export function infra(grade: CaseGrade, reason: string): CaseGrade {
  grade.status = 'infra-error';
  grade.reason = reason;
  grade.result = null;
  grade.passed = false;
  return grade;
}

/** Ends the case at a failed gate: Result 0, with the run_report claims the failure contradicts. */
export function gateFailed(ctx: GradingContext, gate: GateCategory, reason: string): CaseGrade {
  const { grade } = ctx;
  grade.status = 'gate-failed';
  grade.gate = gate;
  grade.reason = reason;
  grade.result = 0;
  grade.claimsContradicted = claimsContradicted(ctx.input.outputDir, {
    gate: { category: gate, reason },
    artifacts: ctx.gates?.artifacts ?? {},
    tests: ctx.tests,
  });
  return grade;
}

/** Runs one check item against the case (and the patched tree); `command` checks count as tests for claims. */
export async function runItemCheck(ctx: GradingContext, item: CheckItem): Promise<CheckResult> {
  ctx.checks ??= checkContext(ctx);
  const r = await runCheck(item, ctx.checks);
  if (item.check === 'command') ctx.tests.push({ title: item.title ?? `\`${item.run}\``, held: r.score >= FULL });
  return r;
}

/** What checks see of the case; built once the gates (and the family's own) hold, since it reads input.md. */
export function checkContext(ctx: GradingContext): CheckContext {
  const { caseRef, commission } = ctx.input;
  return {
    caseId: caseRef.id,
    split: ctx.split,
    input: existsSync(caseRef.inputPath) ? readFileSync(caseRef.inputPath, 'utf8') : '',
    truth: caseRef.truth,
    outputDir: ctx.input.outputDir,
    execution: ctx.input.execution,
    checksDir: commission.checksDir,
    treeDir: ctx.tree?.dir ?? null,
    runCommand: ctx.input.runCommand,
  };
}

/** The last `lines` lines of `text`, at most `chars` characters. */
export function tailLines(text: string, lines: number, chars: number): string {
  const t = text.trimEnd().split('\n').slice(-lines).join('\n');
  return t.length > chars ? t.slice(-chars) : t;
}
