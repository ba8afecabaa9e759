import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test, vi } from 'vitest';
import command from '../../src/cli/commands/gen-property.js';
import { loadCommission } from '../../src/commission/index.js';
import { gradeCase } from '../../src/grading/index.js';
import {
  generatedArbitrary,
  loadProperties,
  type PropertyReport,
  renderedHash,
  runProperties,
} from '../../src/propgen/index.js';
import { engineAnswers, ensureRuntimeImage, resolveSandbox, type SandboxKind } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const repo = path.resolve(import.meta.dirname, '../..');
const commissionDir = path.join(repo, 'tasks/log-triage');
const declFile = path.join(commissionDir, 'properties.ts');
const delivery = (name: string) => path.join(repo, 'fixtures/deliveries', `log-triage-${name}`);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-propgen-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const docker = await engineAnswers(WAIT_MS);

/** A copy of the commission (one held-out case of its own kept) that written cases land in. */
function commissionCopy(name: string): string {
  const dir = path.join(tmp, name);
  // properties.ts stays behind: its imports resolve from the repository only (passed as --properties).
  cpSync(commissionDir, dir, {
    recursive: true,
    filter: (src) => !/cases\/heldout\/h0[2-9]|properties\.ts$/.test(src),
  });
  return dir;
}

/** Runs one written case as an ordinary case: the sandbox, then the commission's own grading. */
async function gradeOrdinary(
  dir: string,
  split: 'dev' | 'heldout',
  caseId: string,
  deliveryDir: string,
  kind: SandboxKind = 'process',
) {
  const commission = await loadCommission(dir);
  const caseRef = commission.cases[split].find((c) => c.id === caseId);
  expect(caseRef, `${caseId} is a ${split} case of the copy`).toBeDefined();
  const outputDir = path.join(tmp, `ordinary-${caseId}-${split}`);
  mkdirSync(outputDir, { recursive: true });
  const cfg = commission.config;
  const backend = await resolveSandbox(kind);
  const execution = await backend.run({
    runId: `propgen-test-${process.pid}`,
    caseId,
    trial: 1,
    command: cfg.entry,
    deliveryDir,
    inputPath: caseRef!.inputPath,
    assetsDir: caseRef!.assetsDir,
    outputDir,
    limits: { ...cfg.budgets, outputBytes: cfg.budgets.outputBytes },
  });
  return gradeCase({ commission, caseRef: caseRef!, trial: 1, execution, outputDir, judge: null, cacheDir: null });
}

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const parsed = (await import('node:util')).parseArgs({
      args,
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    const code = await command.run(parsed as { values: Record<string, unknown>; positionals: string[] });
    return { code, out: lines.join('\n') };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describe('log-triage properties', () => {
  test('every generated input parses with the declared schema and renders a case whose log is named in input.md', async () => {
    const decl = await loadProperties(commissionDir);
    fc.assert(
      fc.property(generatedArbitrary(decl), ([input]) => {
        expect(decl.input.safeParse(input).success).toBe(true);
        const files = decl.render(input);
        const log = /^(?:- )?Log: (\S+)$/m.exec(files['input.md']!)?.[1];
        expect(log && files[log] !== undefined).toBe(true);
        expect(decl.truth!(input)).toHaveProperty('total_events');
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  test('the reference delivery passes 100 generated runs', async () => {
    const report = await runProperties(commissionDir, {
      delivery: delivery('reference'),
      runs: 100,
      seed: 20240301,
      sandbox: 'process',
      write: false,
    });
    expect(report.failure, JSON.stringify(report.failure?.reason)).toBeNull();
    expect(report.runs).toBe(100);
    expect(report.properties.map((p) => p.id)).toEqual([
      'never-crashes',
      'artifacts-parse',
      'passes-rubric',
      'report-matches-events',
      'summary-sections',
      'run-report-honest',
      'reorder-lines',
      'rename-service',
    ]);
  });

  test('hollow: `gen property` exits 1, prints seed and path, writes a dev case that fails the same gate when run', async () => {
    const dir = commissionCopy('hollow');
    const r = await cli([
      dir,
      '--delivery',
      delivery('hollow'),
      '--runs',
      '20',
      '--seed',
      '7',
      '--into',
      'dev',
      '--sandbox',
      'process',
      '--properties',
      declFile,
    ]);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/Property failed: artifacts-parse/);
    expect(r.out).toMatch(/\{ seed: 7, path: "[\d:]+", endOnFailure: true \}/);
    const caseDir = /Minimal case written: (\S+)/.exec(r.out)![1]!;
    expect(path.dirname(caseDir)).toBe(path.join(dir, 'cases/dev'));
    expect(path.basename(caseDir)).toMatch(/^prop-artifacts-parse-7-[0-9a-f]{8}$/);
    const recorded = JSON.parse(readFileSync(path.join(caseDir, 'property.json'), 'utf8'));
    expect(recorded).toMatchObject({ property: 'artifacts-parse', seed: 7, expect: { gate: 'missing-artifact' } });
    expect(existsSync(path.join(caseDir, 'truth.json'))).toBe(true);
    const grade = await gradeOrdinary(dir, 'dev', path.basename(caseDir), delivery('hollow'));
    expect(grade.status).toBe('gate-failed');
    expect(grade.gate).toBe('missing-artifact');
    // The reference delivery passes the same case: the failure is the delivery's, not the case's.
    const ok = await gradeOrdinary(dir, 'dev', path.basename(caseDir), delivery('reference'));
    expect(
      ok.passed,
      JSON.stringify({ s: ok.status, g: ok.gate, r: (ok as any).reason, e: (ok as any).evidence }),
    ).toBe(true);
  });

  test('overfit: fails a property; the minimal held-out case fails its rubric the same way; the same seed gives the same case', async () => {
    const dirs = [commissionCopy('overfit-a'), commissionCopy('overfit-b')];
    const reports: PropertyReport[] = [];
    for (const dir of dirs) {
      reports.push(
        await runProperties(dir, {
          delivery: delivery('overfit'),
          runs: 50,
          seed: 1234,
          sandbox: 'process',
          casesDir: path.join(dir, 'cases'),
          propertiesFile: declFile,
        }),
      );
    }
    const [a, b] = reports as [PropertyReport, PropertyReport];
    expect(a.failure).not.toBeNull();
    expect(a.failure!.property).toBe('passes-rubric');
    expect(a.failure!.caseDir).toMatch(/\/cases\/heldout\/prop-passes-rubric-1234-[0-9a-f]{8}$/);
    // Same seed → same counterexample, same path, same case directory name and bytes.
    expect(b.failure!.path).toBe(a.failure!.path);
    expect(b.failure!.counterexample).toEqual(a.failure!.counterexample);
    expect(path.basename(b.failure!.caseDir!)).toBe(path.basename(a.failure!.caseDir!));
    const files = (d: string) =>
      readdirSync(d, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(d, path.join(e.parentPath, e.name)))
        .sort()
        .map((f) => [f, readFileSync(path.join(d, f), 'utf8')]);
    expect(files(b.failure!.caseDir!)).toEqual(files(a.failure!.caseDir!));

    const caseId = path.basename(a.failure!.caseDir!);
    const grade = await gradeOrdinary(dirs[0]!, 'heldout', caseId, delivery('overfit'));
    expect(grade.status).toBe('graded');
    expect(grade.passed).toBe(false);
    expect(grade.result).toBe(a.failure!.expect!.result);
    const ok = await gradeOrdinary(dirs[0]!, 'heldout', caseId, delivery('reference'));
    expect(ok.passed).toBe(true);
  });

  test('the same seed generates the same inputs', async () => {
    const decl = await loadProperties(commissionDir);
    const sample = () => fc.sample(generatedArbitrary(decl), { numRuns: 25, seed: 42 });
    const first = sample();
    expect(sample()).toEqual(first);
    expect(new Set(first.map(([input]) => renderedHash(decl.render(input)))).size).toBeGreaterThan(20);
    expect(fc.sample(generatedArbitrary(decl), { numRuns: 25, seed: 43 })).not.toEqual(first);
  });

  test('usage errors exit 2 through UsageError', async () => {
    await expect(cli([commissionDir])).rejects.toThrow(/--delivery/);
    await expect(cli([commissionDir, '--delivery', delivery('reference'), '--into', 'prod'])).rejects.toThrow(/--into/);
    await expect(cli([path.join(tmp, 'nowhere'), '--delivery', delivery('reference')])).rejects.toThrow(
      /nowhere: no such directory; name the commission directory/,
    );
  });

  test.skipIf(!docker)(
    `docker sandbox: hollow fails a built-in property inside a container too${docker ? '' : ' — skipped: no docker engine answers'}`,
    async () => {
      await ensureRuntimeImage();
      const report = await runProperties(commissionDir, {
        delivery: delivery('hollow'),
        runs: 5,
        seed: 3,
        sandbox: 'docker',
        write: false,
      });
      expect(report.sandbox).toBe('docker');
      expect(report.failure?.property).toBe('artifacts-parse');
    },
  );
});
