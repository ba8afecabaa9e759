import type { Execution } from './types.js';

/** The execution gates of DESIGN §4 that an Execution alone decides. */
export type ExecutionGate = 'error-exit' | 'timeout' | 'oom' | 'output-limit';

/**
 * The gate category an execution implies, or null when it launched, stayed within its wall-clock and memory budget,
 * and exited with one of `exitCodes` (default [0]). The cause wins over its symptom: a run killed at the wall-clock
 * limit is `timeout` (not `error-exit`, although its exit code is 137), one killed by the memory limit is `oom`;
 * a run that left more in its output directory than the output budget is `output-limit` (first: it says what the
 * case left, however it was stopped); a run that never launched (no exit code) is `error-exit`.
 */
export function gateFromExecution(
  exec: Pick<Execution, 'exitCode' | 'timedOut' | 'oom' | 'outputLimit'>,
  exitCodes: readonly number[] = [0],
): ExecutionGate | null {
  if (exec.outputLimit) return 'output-limit';
  if (exec.timedOut) return 'timeout';
  if (exec.oom) return 'oom';
  if (exec.exitCode === null || !exitCodes.includes(exec.exitCode)) return 'error-exit';
  return null;
}
