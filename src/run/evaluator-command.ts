import path from 'node:path';
import type { CaseRef, Commission } from '../commission/index.js';
import type { CommandRunner } from '../grading/index.js';
import type { SandboxBackend } from '../sandbox/index.js';

/**
 * What of the evaluator a delivery must not see: the commission (rubric, truth, other cases), the cases' own
 * directory (which may live outside it), this run's report directory (records, ledger) and the judge cache.
 */
export function evaluatorPaths(
  commission: Commission,
  caseRef: CaseRef,
  run: { out: string; judgeCache: string | false },
): string[] {
  const paths = [commission.dir, path.dirname(path.dirname(caseRef.inputPath)), run.out];
  if (run.judgeCache) paths.push(run.judgeCache);
  return [...new Set(paths.map((p) => path.resolve(p)))];
}

/**
 * Runs an evaluator-side command (hidden tests, the μ_reg suite, Harbor's test.sh) in a sandbox of its own: the
 * tree read-only at {tree} (= {delivery}), the grader's scratch copy of the case outputs writable at {output}.
 */
export async function evaluatorCommand(
  run: { backend: SandboxBackend; runId: string; caseRef: CaseRef; trial: number; runDir: string; hidden: string[] },
  command: string,
  opts: Parameters<CommandRunner>[1],
): Promise<Awaited<ReturnType<CommandRunner>>> {
  const { caseRef } = run;
  const exec = await run.backend.run({
    runId: run.runId,
    caseId: `${caseRef.id}-eval`,
    trial: run.trial,
    image: opts.image,
    command: command.replaceAll('{tree}', '{delivery}'),
    deliveryDir: opts.mounts.tree ?? run.runDir,
    inputPath: caseRef.inputPath,
    assetsDir: caseRef.assetsDir,
    outputDir: opts.mounts.output,
    // The evaluator's command runs the delivery's code (hidden tests of a patched tree): the same things stay hidden.
    evaluatorPaths: run.hidden,
    limits: { wallSeconds: opts.timeoutSeconds, memoryMb: 1024, cpus: 1, pids: 256, outputBytes: 1024 * 1024 },
  });
  return {
    exitCode: exec.timedOut ? null : exec.exitCode,
    stdout: exec.stdout,
    stderr: exec.stderr,
    outputDir: opts.mounts.output,
  };
}
