import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Commission } from '../commission/index.js';
import { gradeCase, runGates } from '../grading/index.js';
import { mappedImage, type SandboxBackend } from '../sandbox/index.js';
import { renderedHash, writeRendered } from './case-files.js';
import { seededRng } from './define.js';
import { outputsOf } from './outputs.js';
import type { Outputs, PropertiesDecl, RenderedCase, Verdict } from './types.js';

/** The properties every declaration gets, checked before its own, in this order. */
export const BUILTINS = [
  { id: 'never-crashes', title: "exits with one of the commission's exit codes, within the wall-clock budget" },
  { id: 'artifacts-parse', title: 'every required artifact is present and parses (the artifact gates pass)' },
  { id: 'passes-rubric', title: "graded by the commission's own rubric against the derived truth, the case passes" },
] as const;

/** The first property an input breaks. */
export interface Broken {
  property: string;
  title: string;
  reason: string;
  followUp?: unknown;
  /** What an ordinary held-out run of the case will show: the failed gate, or the rubric Result. */
  expect?: { gate?: string; result?: number | null; passed?: boolean };
}

interface Executed {
  outputs: Outputs;
  caseDir: string;
  inputPath: string;
}

/**
 * Runs a delivery on generated inputs through a sandbox backend and evaluates a declaration's properties. Renders
 * each input into a fresh case directory under a private work dir; identical renderings share one execution
 * (the delivery is required to be deterministic). `close()` removes the work dir.
 */
export class PropertyHarness {
  private readonly work = mkdtempSync(path.join(os.tmpdir(), 'heldout-propgen-'));
  private readonly cache = new Map<string, Promise<Executed>>();
  private count = 0;

  constructor(
    readonly commission: Commission,
    readonly decl: PropertiesDecl,
    readonly backend: SandboxBackend,
    readonly deliveryDir: string,
    readonly runId: string,
  ) {
    // The docker backend's non-root user must reach the staged case and write its outputs.
    chmodSync(this.work, 0o755);
  }

  /** Every property in evaluation order. */
  list(): { id: string; title: string; kind: 'builtin' | 'declared' | 'metamorphic' }[] {
    const builtins = BUILTINS.filter((b) => b.id !== 'passes-rubric' || this.decl.truth);
    return [
      ...builtins.map((b) => ({ id: b.id, title: b.title, kind: 'builtin' as const })),
      ...this.decl.properties.map((p) => ({ id: p.id, title: p.title, kind: 'declared' as const })),
      ...(this.decl.metamorphic ?? []).map((m) => ({ id: m.id, title: m.title, kind: 'metamorphic' as const })),
    ];
  }

  /** Renders `input`, runs the delivery on it (once per distinct rendering) and returns its outputs. */
  execute(input: unknown): Promise<Executed> {
    const files = this.decl.render(input);
    const key = renderedHash(files) + JSON.stringify(files).length;
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.run(files);
      this.cache.set(key, hit);
    }
    return hit;
  }

  private async run(files: RenderedCase): Promise<Executed> {
    const n = ++this.count;
    const caseDir = path.join(this.work, 'cases', `c${n}`);
    const outputDir = path.join(this.work, 'out', `c${n}`);
    const assetsDir = writeRendered(caseDir, files);
    mkdirSync(outputDir, { recursive: true });
    chmodSync(outputDir, 0o777);
    const cfg = this.commission.config;
    const execution = await this.backend.run({
      runId: this.runId,
      caseId: `prop-${n}`,
      trial: 1,
      // The commission's own image map applies here as in a run (a machine without a registry runs the mapped one).
      image: cfg.sandbox.image && (mappedImage(cfg.sandbox.image, cfg.images) ?? cfg.sandbox.image),
      command: cfg.entry,
      deliveryDir: this.deliveryDir,
      inputPath: path.join(caseDir, 'input.md'),
      assetsDir,
      outputDir,
      env: cfg.sandbox.env,
      limits: {
        wallSeconds: cfg.budgets.wallSeconds,
        memoryMb: cfg.budgets.memoryMb,
        cpus: cfg.budgets.cpus,
        pids: cfg.budgets.pids,
        outputBytes: Math.min(cfg.budgets.outputBytes, 8 * 1024 * 1024),
      },
    });
    return { outputs: outputsOf(outputDir, execution), caseDir, inputPath: path.join(caseDir, 'input.md') };
  }

  /**
   * Evaluates every property on one input, in `list()` order, and returns the first one broken (null: all hold).
   * `metaSeed` seeds the metamorphic transforms, so the same value always gives the same follow-up inputs.
   * `eager` runs the follow-up inputs alongside the source one (faster while most inputs pass; wasted work when
   * the source input already breaks a property, as during shrinking).
   */
  async evaluate(input: unknown, metaSeed: number, eager = false): Promise<Broken | null> {
    const followUps = (this.decl.metamorphic ?? []).map((m, i) => {
      try {
        return {
          value: m.transform(structuredClone(input), seededRng((metaSeed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0)),
        };
      } catch (err) {
        return { error: `transform threw: ${(err as Error).message}` };
      }
    });
    const pending = eager ? followUps.map((f) => ('value' in f ? this.execute(f.value) : null)) : [];
    // Unobserved rejections would crash the process; the awaited copy below reports them.
    for (const p of pending) p?.catch(() => {});
    const a = await this.execute(input);
    const { execution } = a.outputs;
    const cfg = this.commission.config;
    const [crash, parse, rubric] = BUILTINS;
    if (execution.timedOut) return { ...pick(crash), reason: `timed out after ${Math.round(execution.wallMs)} ms` };
    if (execution.oom) return { ...pick(crash), reason: `exceeded the memory budget of ${cfg.budgets.memoryMb} MiB` };
    if (execution.exitCode === null || !cfg.exitCodes.includes(execution.exitCode)) {
      const how =
        execution.exitCode === null
          ? `was killed by ${execution.signal ?? 'nothing (never launched)'}`
          : `exited ${execution.exitCode}`;
      return { ...pick(crash), reason: `the entry command ${how}${tail(execution.stderr)}` };
    }
    const gates = runGates({ execution, outputDir: a.outputs.outputDir, commission: this.commission });
    if (!gates.passed) {
      return { ...pick(parse), reason: `${gates.gate}: ${gates.reason}`, expect: { gate: gates.gate!, passed: false } };
    }
    if (this.decl.truth) {
      const truth = this.decl.truth(input);
      const grade = await gradeCase({
        commission: this.commission,
        caseRef: { id: path.basename(a.caseDir), split: 'heldout', inputPath: a.inputPath, truth },
        trial: 1,
        execution,
        outputDir: a.outputs.outputDir,
        judge: null,
        cacheDir: null,
      });
      // A rubric that needs a judge cannot decide here; only a scored case can break this property.
      if (grade.status === 'graded' && !grade.passed) {
        const missed = Object.entries(grade.dimensions)
          .flatMap(([d, r]) => r.items.filter((i) => (i.score ?? 1) < 1).map((i) => `${d}: ${i.title}`))
          .slice(0, 8);
        return {
          ...pick(rubric),
          reason: `Result ${grade.result} < ${cfg.pass.minResult}${missed.length ? `; missed: ${missed.join('; ')}` : ''}`,
          expect: { result: grade.result, passed: false },
        };
      }
      if (grade.status === 'gate-failed') {
        return {
          ...pick(parse),
          reason: `${grade.gate}: ${grade.reason}`,
          expect: { gate: grade.gate!, passed: false },
        };
      }
    }
    for (const p of this.decl.properties) {
      const v = await verdictOf(() => p.check({ ...a.outputs, input }));
      if (v !== true) return { property: p.id, title: p.title, reason: v };
    }
    for (const [i, m] of (this.decl.metamorphic ?? []).entries()) {
      const f = followUps[i]!;
      if (!('value' in f)) return { property: m.id, title: m.title, reason: f.error! };
      const followUp = f.value;
      const b = await (pending[i] ?? this.execute(followUp));
      const v = await verdictOf(() => m.relation(a.outputs, b.outputs, input, followUp));
      if (v !== true) return { property: m.id, title: m.title, reason: v, followUp };
    }
    return null;
  }

  close(): void {
    rmSync(this.work, { recursive: true, force: true });
  }
}

function pick(b: { id: string; title: string }) {
  return { property: b.id, title: b.title };
}

async function verdictOf(f: () => Verdict | Promise<Verdict>): Promise<Verdict> {
  try {
    const v = await f();
    if (v === true) return true;
    return typeof v === 'string' && v ? v : `returned ${JSON.stringify(v)}`;
  } catch (err) {
    return `threw: ${(err as Error).message}`;
  }
}

function tail(stderr: string): string {
  const t = stderr.trim().split('\n').slice(-3).join(' | ');
  return t ? `: ${t.slice(-300)}` : '';
}
