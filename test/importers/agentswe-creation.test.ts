import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { type Commission, loadCommission } from '../../src/commission/index.js';
import { buildJudgeMessages } from '../../src/grading/index.js';
import { type AccountRow, ImportError, importAgentSwe } from '../../src/importers/index.js';
import { stageCase } from '../../src/sandbox/staging.js';
import {
  agentsweFixtures,
  dbAnalytics,
  expectEveryFileAccounted,
  hasData,
  hasLite,
  pdfTranslation,
  snapshot,
  tmp,
} from './helpers.js';

const security = path.join(agentsweFixtures, 'creation/authorized-vulnerability-validation');
const notesOf = (out: string) => readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');

async function imported(src: string, options = {}) {
  const out = path.join(tmp('creation'), 'c');
  const r = await importAgentSwe(src, out, options);
  return { out, rows: r.sourceFiles as AccountRow[], commission: await loadCommission(out) };
}

describe.skipIf(!hasLite)('creation: the real scientific-pdf-translation package (../shared)', () => {
  let out: string;
  let rows: AccountRow[];
  let c: Commission;
  beforeAll(async () => ({ out, rows, commission: c } = await imported(pdfTranslation)));

  test('its six weighted headings are the dimensions; the "(100 points)" title is not one', () => {
    expect(c.rubric.dimensions.map((d) => [d.title, d.max])).toEqual([
      ['Semantic Translation Completeness and Terminology', 35],
      ['Scientific Object and Data Fidelity', 35],
      ['Page, Render, and Reading Structure', 12],
      ['Alignment Auditability', 8],
      ['Bidirectional Offline Viewer', 8],
      ['Delivery Integrity and Accessibility', 2],
    ]);
  });

  test('"## Validity and Execution Rules" becomes gates: translated.pdf is a required PDF, the rest a judged zero ceiling', () => {
    const pdf = c.config.artifacts.find((a) => a.path === 'translated.pdf');
    expect(pdf).toMatchObject({ format: 'pdf', required: true });
    expect(c.config.artifacts.filter((a) => a.required).map((a) => a.path)).toEqual(['translated.pdf']);
    expect(c.config.artifacts.map((a) => a.path)).toContain('viewer/index.html');
    const zero = c.rubric.ceilings.find((x) => x.id === 'zero-rules')!;
    expect(zero.max).toBe(0);
    expect('judge' in zero.unless && zero.unless.judge).toMatch(/placeholders or an unrelated document/);
    expect(notesOf(out)).toMatch(/zero-score rules read from: Validity and Execution Rules/);
  });

  test('the "Core-Quality Ceilings" table becomes seven judged total ceilings', () => {
    expect(c.rubric.ceilings.filter((x) => x.id !== 'zero-rules').map((x) => x.max)).toEqual([
      35, 45, 40, 55, 35, 60, 75,
    ]);
  });

  test('budgets from task.json and the Lite 04 prose, each with its source sentence', () => {
    expect(c.config.budgets).toMatchObject({ wallSeconds: 600, memoryMb: 4096, modelCalls: 300, devRounds: 10 });
    const notes = notesOf(out);
    expect(notes).toMatch(
      /budget modelCalls = 300, from requirement\/04: "GATEWAY: at most 300 total requests per case/,
    );
    expect(notes).toMatch(/budget modelTokens: the package states none; heldout's default 1000000 applies/);
  });

  test('the Lite profile it marks is applied by default; --profile paper keeps the paper bytes', async () => {
    const lite = readFileSync(path.join(pdfTranslation, 'profiles/lite-v1.1/builder_package/input/04_resources.md'));
    expect(readFileSync(path.join(out, 'requirement/04_resources.md')).equals(lite)).toBe(true);
    const paper = await imported(pdfTranslation, { profile: 'paper' });
    const builder = readFileSync(path.join(pdfTranslation, 'builder_package/input/04_resources.md'));
    expect(readFileSync(path.join(paper.out, 'requirement/04_resources.md')).equals(builder)).toBe(true);
    await expect(importAgentSwe(pdfTranslation, path.join(tmp('p'), 'c'), { profile: 'nope' })).rejects.toThrow(
      /--profile nope: no profiles\/nope\/ \(available: lite-v1\.1\)/,
    );
  });

  test('IMPORT-NOTES accounts for every source file; the PDFs the package lacks are named per case', () => {
    expectEveryFileAccounted(pdfTranslation, out, rows);
    const byFile = new Map(rows.map((r) => [r.source, r]));
    expect(byFile.get('profiles/lite-v1.1/builder_package/input/04_resources.md')?.became).toBe('requirement');
    expect(byFile.get('builder_package/input/04_resources.md')?.became).toBe('superseded');
    expect(byFile.get('adapter/one_stop.py')?.became).toBe('unmapped');
    expect(notesOf(out)).toMatch(
      /heldout case test_001: input\.md names assets the package does not hold[^\n]*assets\/source\.pdf/,
    );
  });

  test('importing twice gives byte-identical trees', async () => {
    const again = await imported(pdfTranslation);
    const a = snapshot(out);
    const b = snapshot(again.out);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [k, v] of a) expect(b.get(k)!.equals(v), k).toBe(true);
  });
});

describe.skipIf(!hasData)('creation: the real database-analytics package (../shared)', () => {
  let out: string;
  let rows: AccountRow[];
  let c: Commission;
  beforeAll(async () => ({ out, rows, commission: c } = await imported(dbAnalytics)));

  test('six dimensions 8/36/20/18/12/6 from the weighted headings under an unweighted title', () => {
    expect(c.rubric.dimensions.map((d) => d.max)).toEqual([8, 36, 20, 18, 12, 6]);
  });

  test('"collectively absent" becomes one any-of gate over answer.json, queries.json, result.csv and chart.json', () => {
    const group = c.config.artifacts.filter((a) => a.group);
    expect(group.map((a) => `${a.path}:${a.format}`)).toEqual([
      'answer.json:json',
      'queries.json:json',
      'result.csv:csv',
      'chart.json:json',
    ]);
    expect(new Set(group.map((a) => a.group)).size).toBe(1);
    expect(group.every((a) => a.required)).toBe(true);
  });

  test('the Builder-visible 04 is the requirement; the evaluator copy, which differs, is kept in source/', () => {
    expect(readFileSync(path.join(out, 'requirement/04_resources.md'), 'utf8')).toBe(
      readFileSync(path.join(dbAnalytics, 'builder_package/input/04_resources.md'), 'utf8'),
    );
    expect(rows.find((r) => r.source === 'benchmark/input/04_resources.md')?.became).toBe('kept in source/');
    expectEveryFileAccounted(dbAnalytics, out, rows);
  });

  test('an asset reference naming a directory the package holds (`assets/repository`) is present; an absent one is named', async () => {
    const copy = path.join(tmp('dir-asset'), 'database-analytics');
    cpSync(dbAnalytics, copy, { recursive: true });
    const input = path.join(copy, 'benchmark/test_cases/test_004/input.md');
    writeFileSync(
      input,
      `${readFileSync(input, 'utf8')}\nRepository: \`assets/repository\`; schema: \`assets/schemas/\`.\n`,
    );
    mkdirSync(path.join(copy, 'benchmark/test_cases/test_004/assets/repository/src'), { recursive: true });
    writeFileSync(path.join(copy, 'benchmark/test_cases/test_004/assets/repository/src/app.py'), 'x = 1\n');
    const out = path.join(tmp('dir-asset-out'), 'c');
    await importAgentSwe(copy, out);
    const line = notesOf(out)
      .split('\n')
      .find((l) => l.includes('heldout case test_004: input.md names assets'));
    expect(line).toMatch(/assets\/schemas/);
    expect(line).not.toMatch(/assets\/repository/);
  });

  test('an incomplete package is refused with every missing piece named', async () => {
    const copy = path.join(tmp('broken'), 'database-analytics');
    cpSync(dbAnalytics, copy, { recursive: true });
    rmSync(path.join(copy, 'builder_package/input/03_requirements_and_constraints.md'));
    rmSync(path.join(copy, 'benchmark/test_cases/test_004/input.md'));
    rmSync(path.join(copy, 'benchmark/evaluator/rubric.md'));
    const err = await importAgentSwe(copy, path.join(tmp('broken-out'), 'c')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    const missing = (err as ImportError).missing.join('\n');
    expect(missing).toMatch(/03_\*\.md \(requirements and constraints\)/);
    expect(missing).toMatch(/heldout case test_004: input\.md/);
    expect(missing).toMatch(/the Result rubric: benchmark\/evaluator\/rubric\.md/);
  });
});

describe('creation: authorized-vulnerability-validation (a fixture faithful to the published package)', () => {
  let out: string;
  let rows: AccountRow[];
  let c: Commission;
  beforeAll(async () => ({ out, rows, commission: c } = await imported(security)));

  test('the H1 "(100 points)" is the total, the six "- N points" headings the dimensions', () => {
    expect(c.rubric.dimensions.map((d) => d.max)).toEqual([28, 18, 18, 12, 14, 10]);
  });

  test('"## Validity and zero-score rules" (no "gate" in it) requires each artifact its zero rule names, the "evidence manifest" too', () => {
    // "No `findings.json`, `security_report.md`, or evidence manifest is produced": the interface's evidence/manifest.json.
    expect(c.config.artifacts.filter((a) => a.required).map((a) => a.path)).toEqual([
      'findings.json',
      'security_report.md',
      'evidence/manifest.json',
    ]);
    expect(c.rubric.ceilings.map((x) => x.id)).toEqual(['zero-rules']);
  });

  test('"GATEWAY calls: at most 300 per case." is the model-call budget', () => {
    expect(c.config.budgets.modelCalls).toBe(300);
    expect(notesOf(out)).toMatch(
      /budget modelCalls = 300, from requirement\/04: "GATEWAY calls: at most 300 per case\."/,
    );
  });

  test("the truth fixture becomes the case's truth.json and the judge's reference, and is never staged", async () => {
    const heldout = c.cases.heldout[0]!;
    expect(heldout.truth).toMatchObject({
      judgeReference: { 'benchmark/evaluator/fixtures/truth/{case}': { port: 18751, scenario: 'refund' } },
    });
    const [, user] = buildJudgeMessages({
      caseId: heldout.id,
      input: readFileSync(heldout.inputPath, 'utf8'),
      outputDir: tmp('empty-out'),
      execution: null,
      facts: [],
      dimensions: [{ id: 'd', title: 'd', max: 10, rubric: ['x'] }],
      outcomes: [],
      reference: heldout.truth?.judgeReference,
    });
    expect(user!.content).toMatch(
      /# Evaluator-owned reference for this case[\s\S]*cumulative refunds exceed captured payment/,
    );
    const staged = tmp('staged');
    await stageCase(heldout, staged);
    expect(readdirSync(staged).sort()).toEqual(['assets', 'input.md']);
    expect(readdirSync(path.join(staged, 'assets'))).toEqual(['api.md']);
  });

  test("the harness's fixture server becomes each case's service (issue 19's case.yaml), on its truth port", () => {
    const yaml = parse(readFileSync(path.join(out, 'cases/heldout/test_001/case.yaml'), 'utf8'));
    expect(yaml.services).toEqual([
      expect.objectContaining({
        name: 'fixture',
        image: 'heldout/runtime:1',
        ready: { tcp: 18751 },
        files: {
          '{commission}/services/fixture/fixture_server.py': '/fixture/fixture_server.py',
          'service/config.json': '/fixture/config.json',
        },
      }),
    ]);
    expect(JSON.parse(readFileSync(path.join(out, 'cases/heldout/test_001/service/config.json'), 'utf8')).port).toBe(
      18751,
    );
    expect(rows.find((r) => r.source === 'benchmark/evaluator/fixtures/fixture_server.py')?.became).toBe(
      'harness → service',
    );
    expect(notesOf(out)).toMatch(/harness → case service/);
    expect(rows.find((r) => r.source === 'benchmark/evaluator/harness/evaluate_case.py')).toMatchObject({
      became: 'unmapped',
      detail: expect.stringMatching(/per-case evaluator or validator[\s\S]*take its place/),
    });
    expectEveryFileAccounted(security, out, rows);
  });
});
