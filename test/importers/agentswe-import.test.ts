import { cpSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { type Commission, loadCommission } from '../../src/commission/index.js';
import { ImportError, importAgentSwe } from '../../src/importers/index.js';
import { dbAnalytics, fixtures, hasData, snapshot, tmp } from './helpers.js';

describe.skipIf(!hasData)(
  `importing the AgentSWE database-analytics package${hasData ? '' : ' — skipped: ../shared/data has no AgentSWE package'}`,
  () => {
    let out: string;
    let commission: Commission;
    beforeAll(async () => {
      out = path.join(tmp('db'), 'commission');
      await importAgentSwe(dbAnalytics, out);
      commission = await loadCommission(out);
    });

    test("gives a commission heldout accepts, with the rubric's six judged dimensions weighted 8/36/20/18/12/6", () => {
      const dims = commission.rubric.dimensions;
      expect(dims.map((d) => d.max)).toEqual([8, 36, 20, 18, 12, 6]);
      expect(dims[1]!.title).toBe('Numerical, population, and SQL correctness');
      for (const d of dims) {
        expect(d.items).toHaveLength(1);
        const item = d.items[0]!;
        expect('judge' in item && item.points === d.max).toBe(true);
        if ('judge' in item) expect(item.judge).toContain('**Full (');
      }
    });

    test('has 2 dev and 6 held-out cases with their assets, merged from the evaluator and builder copies', () => {
      expect(commission.cases.dev.map((c) => c.id)).toEqual(['dev_001', 'dev_002']);
      expect(commission.cases.heldout.map((c) => c.id)).toEqual([
        'test_001',
        'test_002',
        'test_003',
        'test_004',
        'test_005',
        'test_006',
      ]);
      const files = [...snapshot(out).keys()];
      // dev_001's input.md is the evaluator's copy, its asset only the builder's; dev_002 the other way round.
      expect(files).toContain('cases/dev/dev_001/assets/reporting_rules.md');
      expect(files).toContain('cases/dev/dev_002/assets/access_policy.md');
      expect(files).toContain('cases/dev/dev_002/input.md');
      expect(files).toContain('cases/heldout/test_006/assets/fallback_costs.csv');
      expect(readFileSync(path.join(out, 'cases/heldout/test_001/input.md'), 'utf8')).toBe(
        readFileSync(path.join(dbAnalytics, 'benchmark/test_cases/test_001/input.md'), 'utf8'),
      );
    });

    test("keeps the entry placeholders and the protocol's 600 s case budget", () => {
      expect(commission.config.entry).toBe('python run_agent.py --input {input} --output {output}');
      expect(commission.config.budgets.wallSeconds).toBe(600);
      expect(commission.config.budgets.memoryMb).toBe(4096);
      expect(commission.config.budgets.devRounds).toBe(10);
      expect(commission.config.family).toBe('creation');
    });

    test('turns the mechanical zero-gates into required artifacts and the rest into a judged zero ceiling', () => {
      const required = commission.config.artifacts.filter((a) => a.required).map((a) => `${a.path}:${a.format}`);
      expect(required).toEqual(['answer.json:json', 'queries.json:json', 'result.csv:csv']);
      expect(commission.config.artifacts.map((a) => a.path)).toContain('dashboard.html');
      const [ceiling] = commission.rubric.ceilings;
      expect(ceiling?.max).toBe(0);
      expect(ceiling && 'judge' in ceiling.unless ? ceiling.unless.judge : '').toMatch(/permission-before-access/);
    });

    test('lists what it could not map in IMPORT-NOTES.md', () => {
      const notes = readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');
      expect(notes).toMatch(/eval_prompt\.md/);
      expect(notes).toMatch(/code_rubric\.md/);
      expect(notes).toMatch(/assets\/marketplace\.sqlite/);
      expect(notes).toMatch(/builder_session_sec=28800/);
      expect(notes).toMatch(/requirement\/01_task_goal\.md: not in benchmark\/input/);
    });

    test('importing twice gives byte-identical trees', async () => {
      const again = path.join(tmp('db2'), 'commission');
      await importAgentSwe(dbAnalytics, again);
      const a = snapshot(out);
      const b = snapshot(again);
      expect([...b.keys()]).toEqual([...a.keys()]);
      for (const [k, v] of a) expect(b.get(k)!.equals(v), k).toBe(true);
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
      expect(missing).toMatch(/rubric\.md/);
      expect((err as ImportError).message).toMatch(/cannot import/);
    });

    test('refuses to write into a non-empty directory unless told to overwrite', async () => {
      await expect(importAgentSwe(dbAnalytics, out)).rejects.toThrow(/not empty/);
      const r = await importAgentSwe(dbAnalytics, out, { overwrite: true });
      expect(r.files).toContain('rubric.yaml');
    });
  },
);

describe('importing synthetic AgentSWE editing and optimization layouts', () => {
  test('editing: tree/ with result_dimensions.json weights, the a0 starter and the regression command', async () => {
    const out = path.join(tmp('edit'), 'c');
    await importAgentSwe(path.join(fixtures, 'agentswe-editing'), out);
    const c = await loadCommission(out);
    expect(c.config.family).toBe('editing');
    expect(c.rubric.dimensions.map((d) => [d.id, d.max])).toEqual([
      ['commissioned-behaviour', 60],
      ['regression-preservation', 25],
      ['report-honesty', 15],
    ]);
    expect(c.config.editing?.regression?.command).toBe('node --test {tree}/test');
    expect(c.config.entry).toBe('node src/cli.js --input {input} --output {output}');
    expect(c.config.budgets.wallSeconds).toBe(300);
    expect(c.config.budgets.memoryMb).toBe(1024);
    expect(c.starterDir).not.toBeNull();
    expect(c.cases.heldout).toHaveLength(2);
  });

  test('optimization: task_contract.json splits, budgets, entry with {run}; the editable space goes to the notes', async () => {
    const out = path.join(tmp('opt'), 'c');
    await importAgentSwe(path.join(fixtures, 'agentswe-optimization'), out);
    const c = await loadCommission(out);
    expect(c.config.family).toBe('optimization');
    expect(c.config.entry).toBe('node run_harness.js --input {input} --output {output} --run-dir {run}');
    expect(c.cases.dev.map((x) => x.id)).toEqual(['t01']);
    expect(c.cases.heldout.map((x) => x.id)).toEqual(['t02', 't03']);
    expect(c.config.budgets).toMatchObject({ wallSeconds: 900, memoryMb: 2048, modelCalls: 50, devRounds: 3 });
    const item = c.rubric.dimensions[0]!.items[0]!;
    expect(item).toMatchObject({ check: 'command', score: 'reward', points: 100 });
    const notes = readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');
    expect(notes).toMatch(/editable space \["agent\/\*\*","prompts\/\*\*"\]/);
    expect(notes).toMatch(/source_benchmark/);
    expect(parse(readFileSync(path.join(out, 'commission.yaml'), 'utf8')).optimization.objective).toMatch(
      /share of instances/,
    );
  });
});
