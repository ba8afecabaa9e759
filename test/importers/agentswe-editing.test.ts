import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Commission, loadCommission } from '../../src/commission/index.js';
import { type AccountRow, gitTreeHash, ImportError, importAgentSwe } from '../../src/importers/index.js';
import { deeptutor, expectEveryFileAccounted, mastery, productCheckout, tmp } from './helpers.js';

const notesOf = (out: string) => readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');

describe('editing: deeptutor-adaptive-remediation (a fixture faithful to the published layout)', () => {
  let out: string;
  let rows: AccountRow[];
  let c: Commission;
  beforeAll(async () => {
    out = path.join(tmp('editing'), 'c');
    rows = (await importAgentSwe(deeptutor, out, { product: productCheckout() })).sourceFiles;
    c = await loadCommission(out);
  });

  test('the English overlay (lang/en-backtranslation/) is applied: 03 and the fifth document, a held-out case only there', () => {
    expect(readFileSync(path.join(out, 'requirement/03_requirements_and_constraints.md'), 'utf8')).toMatch(
      /^# Requirements and constraints/,
    );
    expect(readFileSync(path.join(out, 'requirement/05_mastery_tool_contract.md'), 'utf8')).toMatch(
      /Mastery tool contract/,
    );
    expect(readFileSync(path.join(out, 'requirement/mastery_tool_schema.json'), 'utf8')).toMatch(/"bounded"/);
    expect(c.cases.heldout.map((x) => x.id)).toEqual(['test_001', 'test_002']);
    expect(notesOf(out)).toMatch(/language: en-backtranslation over tree\//);
  });

  test('the as-run tree without the overlay is refused, naming the case it lacks', async () => {
    const err = await importAgentSwe(deeptutor, path.join(tmp('asrun'), 'c'), { lang: 'as-run' }).catch((e) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).missing.join('\n')).toMatch(/heldout case test_002: input\.md/);
  });

  test("result_dimensions.json's ids and maxima are the dimensions, paired with the rubric's rows by position", () => {
    expect(c.rubric.dimensions.map((d) => [d.id, d.max])).toEqual([
      ['recovery_correctness', 40],
      ['learning_integrity', 20],
      ['evidence_integrity', 20],
      ['report_faithfulness', 20],
    ]);
    const first = c.rubric.dimensions[0]!.items[0]!;
    expect('judge' in first && first.judge).toMatch(/the rubric's "Task outcome"[\s\S]*learner-operation goal/);
  });

  test("--product is checked against the pin and becomes the starter; μ_reg is the product's own test command", () => {
    expect(c.starterDir).not.toBeNull();
    expect(readFileSync(path.join(c.starterDir!, 'mastery/cli.py'), 'utf8')).toBe(
      readFileSync(path.join(mastery, 'mastery/cli.py'), 'utf8'),
    );
    expect(c.config.editing).toMatchObject({
      patch: 'solution.patch',
      allowedPaths: ['mastery/**', 'tests/**'],
      regression: { command: 'python3 -m unittest discover -s tests' },
    });
    expect(c.config.entry).toBe('python -m mastery.cli --input {input} --output {output}');
    expect(c.config.budgets).toMatchObject({ wallSeconds: 600, modelCalls: 12, modelTokens: 240_000 });
    expect(c.cases.heldout[0]!.truth).toMatchObject({
      judgeReference: { 'tree/evaluator/cases/{case}': { seed_mode: 'tampered_witness_head' } },
    });
    expectEveryFileAccounted(deeptutor, out, rows);
  });

  test("the tree hash is git's: a product that differs from the pin is refused with both hashes", async () => {
    const product = productCheckout();
    expect(gitTreeHash(product)).toBe('dc0b378e3055fbe1c6ac85357d6d6be450403157');
    writeFileSync(path.join(product, 'mastery/cli.py'), '# changed\n');
    const err = await importAgentSwe(deeptutor, path.join(tmp('pin'), 'c'), { product }).catch((e) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).message).toMatch(
      /its git tree is [0-9a-f]{40}, the task pins dc0b378e3055fbe1c6ac85357d6d6be450403157/,
    );
  });

  test('without --product it imports (exit 0) and says how to supply the product; validation names the missing starter', async () => {
    const bare = path.join(tmp('bare'), 'c');
    await importAgentSwe(deeptutor, bare);
    expect(notesOf(bare)).toMatch(/import again with --product <checkout>/);
    await expect(loadCommission(bare)).rejects.toThrow(/starter: \(root\): missing/);
  });

  test('an interface whose product command heldout cannot run is refused with the reason, unless --entry names one', async () => {
    const copy = path.join(tmp('aider-like'), 'deeptutor-adaptive-remediation');
    cpSync(deeptutor, copy, { recursive: true });
    writeFileSync(
      path.join(copy, 'tree/input/02_interface_and_delivery.md'),
      '# Interface and delivery\n\nImplement exactly this non-interactive adapter:\n\n```bash\npython -m mastery.worktree_plan_adapter --request <request.json> --response <response.json>\n```\n\nSubmit `solution.patch`, `edit_report.json`, and `run_report.json`.\n',
    );
    const err = await importAgentSwe(copy, path.join(tmp('r'), 'c')).catch((e) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).message).toMatch(
      /refused: no runnable per-case command[\s\S]*--request <request\.json>[\s\S]*--entry/,
    );
    const given = path.join(tmp('given'), 'c');
    await importAgentSwe(copy, given, { entry: 'python -m mastery.cli --input {input} --output {output}' });
    expect(notesOf(given)).toMatch(/from the --entry option \(user-supplied, not the package\)/);
  });

  test('a caps contract producer (result_score_caps.py) is accounted as the ceilings it issues, and said', async () => {
    const copy = path.join(tmp('caps'), 'deeptutor-adaptive-remediation');
    cpSync(deeptutor, copy, { recursive: true });
    writeFileSync(path.join(copy, 'tree/evaluator/result_score_caps.py'), 'SCHEMA = "agentswe-result-score-caps/v1"\n');
    const capped = path.join(tmp('caps-out'), 'c');
    const r = await importAgentSwe(copy, capped, { product: productCheckout() });
    expect(r.sourceFiles.find((x) => x.source === 'tree/evaluator/result_score_caps.py')?.became).toBe('ceiling');
    expect(notesOf(capped)).toMatch(/per-case caps contract \(agentswe-result-score-caps\/v1/);
  });
});
