import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import {
  type GateThresholds,
  gateViolations,
  renderTable,
  type Summary,
  summarizeMetas,
  writeReport,
} from '../report/index.js';
import type { CaseMeta } from '../run/index.js';

// The pure aggregation and gate live in the report part; `heldout/reporter` has always exported them too.
export { gateViolations, summarizeMetas };

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface HeldoutReporterOptions {
  out: string;
  gate?: GateThresholds;
  runId?: string;
  /** Print the per-commission table (default true). */
  table?: boolean;
}

/**
 * The heldout reporter: when the run ends, aggregates every test's `task.meta.heldout` into `summary.json`,
 * `report.md`, `index.html` and `junit.xml` (written atomically), prints the per-commission table, and turns the
 * run red when the gate does not hold. Works the same on `--merge-reports`, which replays the metas.
 */
export class HeldoutReporter implements Reporter {
  private startedAt = new Date().toISOString();
  /** The last summary written, for programmatic callers (`heldout run`). */
  summary: Summary | null = null;
  violations: string[] = [];

  constructor(private readonly options: HeldoutReporterOptions) {}

  onTestRunStart(): void {
    this.startedAt = new Date().toISOString();
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const metas: CaseMeta[] = [];
    // A case that threw (a refused delivery, a tampered tree) has no grade: the gate must not pass over it.
    let ungraded = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const meta = test.meta().heldout;
        if (meta) metas.push(meta);
        else if (test.result().state === 'failed') ungraded++;
      }
    }
    if (metas.length === 0) return;
    const runId = this.options.runId ?? metas[0].runId;
    const sandbox = metas.some((m) => m.sandbox === 'process') ? 'process' : 'docker';
    const summary = summarizeMetas(metas, { id: runId, startedAt: this.startedAt, sandbox, version: VERSION });
    await writeReport(this.options.out, summary);
    this.summary = summary;
    this.violations = gateViolations(summary, this.options.gate ?? {});
    if (ungraded > 0 && Object.keys(this.options.gate ?? {}).length > 0)
      this.violations.push(`${ungraded} case test(s) failed without a grade (see the errors above)`);
    if (this.options.table !== false) {
      const weaker = [...new Set(metas.flatMap((m) => m.weakerIsolation))];
      process.stdout.write(`\n${renderTable(summary)}\n`);
      if (weaker.length > 0) {
        const title = sandbox === 'process' ? 'process sandbox — weaker isolation' : 'sandbox notes';
        process.stdout.write(`${title}:\n${weaker.map((w) => `  - ${w}`).join('\n')}\n`);
      }
      process.stdout.write(`heldout report: ${path.relative(process.cwd(), this.options.out) || '.'}/index.html\n`);
      // Refused cases (a delivery that changed during the run) never ran: say so beside the figures they are not in.
      if (ungraded > 0)
        process.stdout.write(
          `heldout: ${ungraded} case test(s) have no grade and are not in the report (refused, or an error: see above)\n`,
        );
    }
    if (this.violations.length > 0) {
      process.stdout.write(`heldout gate failed:\n${this.violations.map((v) => `  - ${v}`).join('\n')}\n`);
      process.exitCode = 1;
    }
  }
}
