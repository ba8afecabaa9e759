import type { CommissionConfig, Rubric } from '../commission/index.js';
import type { Execution } from '../sandbox/index.js';
import { artifactProblem } from './artifact-format.js';
import { lastLines } from './checks.js';
import { matchesAny } from './glob.js';
import { listFiles, readOutputFile } from './outputs.js';
import type { GateCategory } from './types.js';

/** What the gates decided; `artifacts` records every declared artifact's state (for run_report claims). */
export interface GateOutcome {
  passed: boolean;
  gate: GateCategory | null;
  reason: string | null;
  artifacts: Record<string, { present: boolean; problem: string | null }>;
}

/** The execution fields the gates read. */
export type GateExecution = Pick<
  Execution,
  'exitCode' | 'signal' | 'timedOut' | 'oom' | 'wallMs' | 'stdout' | 'stderr' | 'outputs'
> &
  Partial<Pick<Execution, 'outputLimit'>>;

export interface RunGatesInput {
  /** null when the delivery was not executed (an editing delivery that is only a patch): run gates are skipped. */
  execution: GateExecution | null;
  outputDir: string;
  commission: { config: CommissionConfig; rubric: Rubric };
}

const fail = (gate: GateCategory, reason: string, artifacts: GateOutcome['artifacts'] = {}): GateOutcome => ({
  passed: false,
  gate,
  reason,
  artifacts,
});

/**
 * The deterministic gates of DESIGN §4 in order, stopping at the first failure: launched, budgets (outputs past
 * theirs, then a kill by the wall clock or memory: each explains the exit code, so it is reported as
 * `output-limit`/`timeout`/`oom`, not `error-exit`), exit code, required artifacts present and parseable, no
 * forbidden output.
 */
export function runGates({ execution, outputDir, commission }: RunGatesInput): GateOutcome {
  const { config, rubric } = commission;
  if (execution) {
    if (execution.exitCode === null && execution.signal === null && !execution.timedOut && !execution.oom) {
      return fail('error-exit', 'the entry command did not launch');
    }
    // Outputs past their budget are a fact of what the case left, however it was stopped (by the output watch, whose
    // SIGKILL is no error exit, or by the wall clock while it was still writing): that gate comes first.
    if (execution.outputLimit) return fail('output-limit', `${execution.outputLimit}; only what fits was kept`);
    if (execution.timedOut || execution.wallMs > config.budgets.wallSeconds * 1000) {
      return fail(
        'timeout',
        `exceeded the wall-clock budget of ${config.budgets.wallSeconds} s (ran ${Math.round(execution.wallMs)} ms)`,
      );
    }
    if (execution.oom) return fail('oom', `exceeded the memory budget of ${config.budgets.memoryMb} MiB`);
    if (execution.exitCode === null || !config.exitCodes.includes(execution.exitCode)) {
      const how = execution.exitCode === null ? `was killed by ${execution.signal}` : `exited ${execution.exitCode}`;
      // The reason is what a builder reads first (console, report.md): the end of stderr usually says why.
      const tail = lastLines(execution.stderr, 3);
      return fail(
        'error-exit',
        `the entry command ${how}; allowed exit codes: ${config.exitCodes.join(', ')}; ${tail ? `stderr: ${tail}` : 'stderr was empty'}`,
      );
    }
  }
  const artifacts: GateOutcome['artifacts'] = {};
  for (const a of config.artifacts) {
    const read = readOutputFile(outputDir, a.path);
    artifacts[a.path] = read.ok
      ? { present: true, problem: artifactProblem(a, read.bytes) }
      : { present: false, problem: null };
  }
  for (const a of config.artifacts) {
    if (!a.required || artifacts[a.path]!.present) continue;
    if (!a.group) return fail('missing-artifact', `required artifact ${a.path} is missing`, artifacts);
    const group = config.artifacts.filter((b) => b.required && b.group === a.group);
    if (group.every((b) => !artifacts[b.path]!.present))
      return fail(
        'missing-artifact',
        `none of ${group.map((b) => b.path).join(', ')} is present (at least one is required)`,
        artifacts,
      );
  }
  for (const a of config.artifacts) {
    const problem = artifacts[a.path]!.problem;
    if (a.required && problem) return fail('invalid-artifact', `${a.path} ${problem}`, artifacts);
  }
  if (rubric.forbiddenOutputs.length > 0) {
    const files = new Set([...(execution?.outputs ?? []), ...listFiles(outputDir)]);
    const bad = [...files].filter((f) => matchesAny(f, rubric.forbiddenOutputs)).sort();
    if (bad.length > 0)
      return fail('constraint-violation', `forbidden output written: ${bad.slice(0, 5).join(', ')}`, artifacts);
  }
  return { passed: true, gate: null, reason: null, artifacts };
}
