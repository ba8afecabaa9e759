import { type Reporter, startVitest } from 'vitest/node';
import type { Summary } from '../report/index.js';
import type { HeldoutOptions } from './options.js';
import { heldout } from './plugin.js';
import { HeldoutReporter } from './reporter.js';

export interface RunResult {
  summary: Summary | null;
  /** What fell short of the gate; empty when it holds. */
  violations: string[];
  /** Tests (case × trial) that missed their pass rule, plus suites that errored. */
  failedTests: number;
  /** Vitest's own verdict (non-zero on failed tests or errors). */
  vitestExitCode: number;
}

/**
 * Runs commissions through Vitest's Node API with the heldout plugin: the same generated suites `npx vitest`
 * runs, without the user's config (only the commission files are test files). Resolves when the run ends.
 */
export async function runHeldout(
  options: HeldoutOptions,
  run: {
    reporters?: (string | Reporter)[];
    filters?: string[];
    silent?: boolean;
    /** Vitest's `-t`: only cases whose test name matches run; the report marks the run partial. */
    testNamePattern?: string;
  } = {},
): Promise<RunResult> {
  const before = process.exitCode;
  process.exitCode = undefined;
  const vitest = await startVitest(
    'test',
    run.filters ?? [],
    {
      run: true,
      watch: false,
      config: false,
      passWithNoTests: false,
      ...(run.silent ? { silent: true } : {}),
      ...(run.testNamePattern ? { testNamePattern: run.testNamePattern } : {}),
    },
    { plugins: [heldout(options)], test: { include: [], reporters: run.reporters ?? ['default'] } },
  );
  await vitest.close();
  const vitestExitCode = Number(process.exitCode ?? 0);
  process.exitCode = before;
  const reporter = (vitest as unknown as { reporters: unknown[] }).reporters.find(
    (r) => r instanceof HeldoutReporter,
  ) as HeldoutReporter | undefined;
  return {
    summary: reporter?.summary ?? null,
    violations: reporter?.violations ?? [],
    failedTests: vitest.state.getCountOfFailedTests(),
    vitestExitCode,
  };
}

/**
 * A console reporter that prints one line per finished commission file and the errors that stopped files; the
 * heldout table says the rest. For runs whose failing cases are expected (the demo).
 */
export class QuietReporter implements Reporter {
  onTestModuleEnd(mod: Parameters<NonNullable<Reporter['onTestModuleEnd']>>[0]): void {
    let passed = 0;
    let failed = 0;
    for (const t of mod.children.allTests()) {
      const state = t.result().state;
      if (state === 'passed') passed++;
      else if (state === 'failed') failed++;
    }
    process.stdout.write(
      `  ${mod.moduleId.split('/').slice(-2).join('/')}: ${passed} cases passed, ${failed} failed\n`,
    );
    for (const e of mod.errors()) process.stdout.write(`  error: ${e.message}\n`);
  }

  onTestRunEnd(_modules: unknown, errors: ReadonlyArray<{ message?: string }>): void {
    for (const e of errors) process.stdout.write(`  unhandled error: ${e.message ?? String(e)}\n`);
  }
}
