import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestCase, TestModule, TestSpecification, Vitest } from 'vitest/node';
import {
  type GateContext,
  type GateReport,
  type GateThresholds,
  gateMessages,
  gateViolations,
  type JunitOptions,
  type NotRunCase,
  readSummary,
  renderTable,
  type Summary,
  summarizeMetas,
  summaryPathOf,
  type UnloadedSuite,
  writeReport,
} from '../report/index.js';
import type { CaseMeta } from '../run/index.js';
import { Progress } from './progress.js';

// The pure aggregation and gate live in the report part; `heldout/reporter` has always exported them too.
export { gateViolations, summarizeMetas };

/** The files the plugin turns into commission suites. */
const COMMISSION_FILES = ['commission.yaml', 'commission.ts'];

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface HeldoutReporterOptions {
  out: string;
  gate?: GateThresholds;
  runId?: string;
  /** Print the per-commission table (default true). */
  table?: boolean;
  /**
   * Progress lines while cases run (done/total, failures, elapsed, ETA): `auto` (default) prints them when stdout
   * is not a terminal (CI logs) unless Vitest runs `--silent`; true always; false never.
   */
  progress?: boolean | 'auto';
  /** heldout's `junit.xml`: valid junit-10.xsd by default, `{ caseProperties: true }` for the properties extension. */
  junit?: JunitOptions;
  /**
   * The case × trial executions a test file will run, known before it is collected (null: not a commission), so
   * progress counts every planned execution from the start.
   */
  plannedIn?: (moduleId: string) => Promise<number | null>;
}

/** A promise with its resolve function (Node 20 has no Promise.withResolvers). */
function settled<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The console line under the gate's headline for each condition unmet on the cases that ran. */
const unmetLines = (gate: GateReport, prefix: string) =>
  gate.conditions.filter((c) => !c.met).map((c) => `  - ${prefix}${c.message}`);

/** The gate's baseline run, read when the run ends (a missing or invalid file fails the gate, naming it). */
async function readBaseline(gate: GateThresholds): Promise<GateContext['baseline']> {
  const v = gate.noRegressionVs;
  if (v === undefined) return undefined;
  const file = await summaryPathOf(typeof v === 'string' ? v : v.summary);
  try {
    return { summary: await readSummary(file), path: file };
  } catch (err) {
    return { error: (err as Error).message, path: file };
  }
}

/**
 * A commission suite whose module threw before declaring its cases (a package that no longer loads, a delivery
 * that changed under a freeze): without this its cases would silently leave the report instead of marking it partial.
 */
function unloadedSuite(mod: TestModule): UnloadedSuite | null {
  const file = mod.moduleId;
  if (!COMMISSION_FILES.includes(path.basename(file))) return null;
  const errors = mod.errors();
  if (errors.length === 0) return null;
  for (const t of mod.children.allTests()) if (t.meta().heldoutCase || t.meta().heldout) return null;
  // One line for the partial note; a loader's message puts its header and its `file: field: problem` lines apart.
  const lines = (errors[0].message ?? String(errors[0])).split('\n').map((l) => l.trim());
  const error = lines.filter(Boolean).join(' ').slice(0, 500);
  return { commission: path.basename(path.dirname(file)), file, error };
}

/**
 * The heldout reporter: when the run ends, aggregates every test's `task.meta.heldout` into `summary.json`,
 * `report.md`, `index.html` and `junit.xml` (written atomically), with the gate evaluated and recorded and the cases
 * that were planned but not run named (`partial`); prints the per-commission table and the gate, and turns the run
 * red when the gate does not hold. Works the same on `--merge-reports`, which replays the metas.
 */
export class HeldoutReporter implements Reporter {
  private startedAt = new Date().toISOString();
  private vitest: Vitest | null = null;
  private progress: Progress | null = null;
  /** The last summary written, for programmatic callers (`heldout run`). */
  summary: Summary | null = null;
  violations: string[] = [];
  private gateDone = settled<GateReport | null>();

  constructor(private readonly options: HeldoutReporterOptions) {}

  /** This run's gate record once the report is written (null when no grade was written), for Vitest's JUnit file. */
  gateRecord(): Promise<GateReport | null> {
    return this.gateDone.promise;
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification> = []): Promise<void> {
    this.startedAt = new Date().toISOString();
    this.gateDone = settled<GateReport | null>();
    const want = this.options.progress ?? 'auto';
    const silent = Boolean(this.vitest?.config.silent);
    if (want === true || (want === 'auto' && !process.stdout.isTTY && !silent)) {
      const progress = new Progress({ write: (line) => process.stderr.write(`${line}\n`) });
      this.progress = progress;
      const planned = this.options.plannedIn;
      if (planned) {
        // Counted before any file loads; a file's own count replaces its estimate when it is collected.
        const counts = await Promise.all(specifications.map(async (s) => [s.moduleId, await planned(s.moduleId)]));
        for (const [file, n] of counts as [string, number | null][]) if (n !== null) progress.expect(file, n);
      }
    }
  }

  onTestModuleCollected(mod: TestModule): void {
    if (!this.progress) return;
    let n = 0;
    for (const t of mod.children.allTests()) if (t.meta().heldoutCase && t.options.mode === 'run') n++;
    this.progress.planned(n, mod.moduleId);
  }

  onTestCaseResult(test: TestCase): void {
    if (!this.progress || !test.meta().heldoutCase) return;
    const state = test.result().state;
    if (state === 'skipped' || state === 'pending') return;
    this.progress.finished(state === 'failed', test.meta().heldout?.grade.status === 'infra-error');
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    try {
      await this.report(testModules);
    } finally {
      this.gateDone.resolve(this.summary?.gate ?? null);
    }
  }

  private async report(testModules: ReadonlyArray<TestModule>): Promise<void> {
    this.summary = null;
    this.progress?.stop();
    const metas: CaseMeta[] = [];
    const notRun: NotRunCase[] = [];
    let planned = 0;
    // A case that threw (a refused delivery, a tampered tree) has no grade: the gate must not pass over it.
    let ungraded = 0;
    const unloaded: UnloadedSuite[] = [];
    for (const mod of testModules) {
      const suiteError = unloadedSuite(mod);
      if (suiteError) unloaded.push(suiteError);
      for (const test of mod.children.allTests()) {
        const meta = test.meta().heldout;
        const plan = test.meta().heldoutCase;
        if (meta || plan) planned++;
        if (meta) {
          metas.push(meta);
          continue;
        }
        const failed = test.result().state === 'failed';
        if (failed) ungraded++;
        if (!plan) continue;
        const filtered = test.options.mode === 'skip' || test.options.mode === 'todo';
        notRun.push({ ...plan, why: failed ? 'no-grade' : filtered ? 'filtered' : 'not-reached' });
      }
    }
    // With no grade at all there are no figures to report; Vitest's own output names the failed suites.
    if (metas.length === 0) return;
    const gate = this.options.gate ?? {};
    const runId = this.options.runId ?? metas[0].runId;
    // The weakest isolation any case had, else the engine the cases ran on (docker, podman).
    const sandbox = metas.some((m) => m.sandbox === 'process') ? 'process' : metas[0].sandbox;
    const shard = this.vitest?.config.shard;
    const hasGate = Object.keys(gate).length > 0;
    const summary = summarizeMetas(
      metas,
      { id: runId, startedAt: this.startedAt, sandbox, version: VERSION },
      {
        gate,
        gateContext: { baseline: await readBaseline(gate), ungraded: hasGate ? ungraded : 0 },
        coverage: { planned, notRun, unloaded, shard: shard ? `${shard.index}/${shard.count}` : null },
      },
    );
    await writeReport(this.options.out, summary, { junit: this.options.junit });
    this.summary = summary;
    this.violations = gateMessages(summary.gate);
    if (this.options.table !== false) {
      const weaker = [...new Set(metas.flatMap((m) => m.weakerIsolation))];
      process.stdout.write(`\n${renderTable(summary)}\n`);
      if (weaker.length > 0) {
        const title = sandbox === 'process' ? 'process sandbox — weaker isolation' : 'sandbox notes';
        process.stdout.write(`${title}:\n${weaker.map((w) => `  - ${w}`).join('\n')}\n`);
      }
      if (summary.partial) process.stdout.write(`heldout: partial run: ${summary.partial.reason}\n`);
      process.stdout.write(`heldout report: ${path.relative(process.cwd(), this.options.out) || '.'}/index.html\n`);
      // Refused cases (a delivery that changed during the run) never ran: say so beside the figures they are not in.
      if (ungraded > 0)
        process.stdout.write(
          `heldout: ${ungraded} case test(s) have no grade and are not in the report (refused, or an error: see above)\n`,
        );
    }
    const { verdict } = summary.gate;
    if (verdict === 'fail') {
      process.stdout.write(`heldout gate failed:\n${this.violations.map((v) => `  - ${v}`).join('\n')}\n`);
    } else if (verdict === 'not-evaluated' || verdict === 'deferred') {
      // What would fail on the cases that ran is said here too, not only in summary.json and the HTML gate box.
      const head = verdict === 'deferred' ? 'deferred to the merge' : 'not evaluated';
      const unmet = unmetLines(
        summary.gate,
        verdict === 'deferred' ? 'unmet on this shard: ' : 'unmet on the cases that ran: ',
      );
      process.stdout.write(`heldout gate ${head}: ${summary.gate.reason}\n${unmet.map((l) => `${l}\n`).join('')}`);
    } else if (verdict === 'pass' && this.options.table !== false) {
      process.stdout.write(`heldout gate holds (${summary.gate.conditions.length} conditions met)\n`);
    }
    const left = summary.gate.excludedFlaky;
    // The gate must say what it did not look at: a run green only because its flaky cases were left out reads so.
    if (left)
      process.stdout.write(
        `heldout gate: ${left.length} flaky case(s) left out (excludeFlaky)${left.length ? `: ${left.join(', ')}` : ''}\n`,
      );
    if (this.violations.length > 0) process.exitCode = 1;
  }
}
