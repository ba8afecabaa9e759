import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import type { CaseGrade } from '../grading/index.js';
import {
  buildSummary,
  type CommissionSummary,
  renderTable,
  type Summary,
  summarizeCommission,
  writeReport,
} from '../report/index.js';
import type { CaseMeta, GateThresholds } from '../run/index.js';

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

/** Groups the case metas of a run into summary entries: commission × delivery × split (pure). */
export function summarizeMetas(metas: CaseMeta[], run: Summary['run']): Summary {
  const groups = new Map<string, CaseMeta[]>();
  for (const m of metas) {
    const key = `${m.commission.id}\0${m.delivery.label}\0${m.delivery.digest}\0${m.split}`;
    const g = groups.get(key);
    if (g) g.push(m);
    else groups.set(key, [m]);
  }
  const entries: CommissionSummary[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    const grades: CaseGrade[] = group.map((m) => m.grade);
    const starter =
      first.commission.family === 'optimization' && first.delivery.role === 'candidate'
        ? metas.filter(
            (m) => m.commission.id === first.commission.id && m.delivery.role === 'starter' && m.split === first.split,
          )
        : [];
    entries.push(
      summarizeCommission({
        id: first.commission.id,
        family: first.commission.family as CommissionSummary['family'],
        split: first.split,
        delivery: {
          path: first.delivery.dir,
          digest: first.delivery.digest,
          frozen: first.delivery.frozen,
          label: first.delivery.label,
          role: first.delivery.role,
        },
        cases: grades,
        passRule: { minResult: first.commission.minResult },
        optimization: starter.length > 0 ? { starter: starter.map((m) => m.grade) } : null,
        hardCodedDevStrings: first.delivery.devStrings,
        noModelCalls: first.commission.modelRequired ? undefined : false,
      }),
    );
  }
  entries.sort(
    (a, b) =>
      a.id.localeCompare(b.id) ||
      (a.delivery.label ?? '').localeCompare(b.delivery.label ?? '') ||
      a.split.localeCompare(b.split),
  );
  return buildSummary({ run, commissions: entries });
}

/** Checks the CI gate (DESIGN §9) on held-out entries of candidates; returns what fell short, empty when it holds. */
export function gateViolations(summary: Summary, gate: GateThresholds): string[] {
  const out: string[] = [];
  for (const c of summary.commissions) {
    // The optimization starter (a0) is the baseline the candidate is measured against, not a delivery under test.
    if (c.split !== 'heldout' || c.delivery.role === 'starter') continue;
    const who = `${c.id} (${c.delivery.label})`;
    if (gate.minResult !== undefined && (c.result.mean === null || c.result.mean < gate.minResult)) {
      out.push(`${who}: held-out Result ${c.result.mean?.toFixed(1) ?? 'unscored'} < minResult ${gate.minResult}`);
    }
    if (gate.minPassHatK !== undefined) {
      const ks = Object.keys(c.passHatK)
        .map(Number)
        .filter((k) => c.passHatK[k] !== null);
      const k = Math.max(0, ...ks);
      const v = k > 0 ? c.passHatK[k] : null;
      if (v === null || v === undefined || v < gate.minPassHatK) {
        out.push(`${who}: pass^${k || 1} ${v?.toFixed(3) ?? 'n/a'} < minPassHatK ${gate.minPassHatK}`);
      }
    }
    if (gate.maxGap !== undefined && (c.gap === null || c.gap > gate.maxGap)) {
      out.push(
        c.gap === null
          ? `${who}: no fidelity gap (needs scored dev and held-out cases of the same digest) for maxGap ${gate.maxGap}`
          : `${who}: fidelity gap ${c.gap.toFixed(1)} > maxGap ${gate.maxGap}`,
      );
    }
  }
  return out;
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
    }
    if (this.violations.length > 0) {
      process.stdout.write(`heldout gate failed:\n${this.violations.map((v) => `  - ${v}`).join('\n')}\n`);
      process.exitCode = 1;
    }
  }
}
