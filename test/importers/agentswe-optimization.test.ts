import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type Commission, loadCommission } from '../../src/commission/index.js';
import { type AccountRow, ImportError, importAgentSwe } from '../../src/importers/index.js';
import { agentsweFixtures, expectEveryFileAccounted, hasLite, pinchbench, tmp } from './helpers.js';

const tau3 = path.join(agentsweFixtures, 'optimization/tau3-retail');
const notesOf = (out: string) => readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');

async function imported(src: string) {
  const out = path.join(tmp('optimization'), 'c');
  const r = await importAgentSwe(src, out);
  return { out, rows: r.sourceFiles as AccountRow[], commission: await loadCommission(out) };
}

/** What AgentSWE's adapter (make_request) writes for a case: Python's json.dumps of the one row, ensure_ascii off. */
function adapterRow(caseId: string, instruction: string): string {
  const py =
    'import json,sys; print(json.dumps({"id": sys.argv[1], "source": "agentswe-optimization", "case_id": sys.argv[1], "instruction": sys.stdin.read()}, ensure_ascii=False))';
  return execFileSync('python3', ['-c', py, caseId], { input: instruction, encoding: 'utf8' });
}

describe.skipIf(!hasLite)('optimization: the real pinchbench-openclaw package (../shared)', () => {
  let out: string;
  let rows: AccountRow[];
  let c: Commission;
  beforeAll(async () => ({ out, rows, commission: c } = await imported(pinchbench)));

  test("the contract's splits (objects under dev and hidden) give 20 dev and 40 held-out cases with their upstream ids", () => {
    expect(c.cases.dev).toHaveLength(20);
    expect(c.cases.heldout).toHaveLength(40);
    const t1 = c.cases.heldout[0]!;
    expect(t1.id).toBe('test_001');
    expect(t1.truth).toMatchObject({
      judgeReference: {
        'task_contract.json splits': { upstream_id: 'task_cron_organizer', grading_type: 'automated' },
        'benchmark/evaluator/task_metadata': { task_id: 'task_cron_organizer' },
      },
    });
  });

  test("{input} is the one-row JSONL AgentSWE's adapter builds, byte for byte", () => {
    const t1 = c.cases.heldout[0]!;
    const jsonl = readFileSync(path.join(t1.assetsDir!, 'input.jsonl'), 'utf8');
    expect(jsonl).toBe(adapterRow('test_001', readFileSync(t1.inputPath, 'utf8')));
    expect(c.config.entry).toBe(
      'python run_harness.py --input {case}/assets/input.jsonl --output {output}/predictions.jsonl --run-dir {run}',
    );
  });

  test('budgets from the contract, J the native objective, the starter harness as a0', () => {
    expect(c.config.budgets).toMatchObject({ wallSeconds: 600, modelCalls: 20, modelTokens: 200_000, devRounds: 5 });
    expect(c.rubric.dimensions.map((d) => [d.id, d.max])).toEqual([['objective', 100]]);
    expect(c.rubric.dimensions[0]!.items[0]).toMatchObject({
      check: 'command',
      image: 'agentswe-native/pinchbench-openclaw:1',
      score: 'reward',
      points: 100,
    });
    expect(c.rubric.ceilings.map((x) => x.id)).toEqual(['zero-omits-target-prediction']);
    expect(c.config.artifacts[0]).toMatchObject({ path: 'predictions.jsonl', format: 'jsonl', required: true });
    expect(c.starterDir).not.toBeNull();
    expect(readFileSync(path.join(c.starterDir!, 'run_harness.py'), 'utf8')).toBe(
      readFileSync(path.join(pinchbench, 'benchmark/starter_harness/run_harness.py'), 'utf8'),
    );
    expect(c.config.optimization?.objective).toMatch(/official mean score over rows/);
    expect(notesOf(out)).toMatch(/per-row timeout_seconds \(\d+–\d+ s on 60 rows\)/);
  });

  test('IMPORT-NOTES accounts for every source file; the Lite contract overlay is the one read', () => {
    expectEveryFileAccounted(pinchbench, out, rows);
    const byFile = new Map(rows.map((r) => [r.source, r.became]));
    expect(byFile.get('profiles/lite-v1.1/benchmark/task_contract.json')).toBe('budget');
    expect(byFile.get('benchmark/task_contract.json')).toBe('superseded');
    expect(notesOf(out)).toMatch(/rubric\.md \(Task outcome 40, Requirement coverage 25/);
  });
});

describe('optimization: tau3-retail (a fixture faithful to the published package)', () => {
  let out: string;
  let rows: AccountRow[];
  let c: Commission;
  beforeAll(async () => ({ out, rows, commission: c } = await imported(tau3)));

  test('its budgets are 900 s, 50 calls and 150k tokens, each read from where the package states it', () => {
    expect(c.config.budgets).toMatchObject({ wallSeconds: 900, modelCalls: 50, modelTokens: 150_000 });
    const notes = notesOf(out);
    expect(notes).toMatch(
      /budget wallSeconds = 900, from requirement\/04: "Budget: 25 turns, 4 tool calls per turn, 900 seconds, and 150k tokens per row\."/,
    );
    expect(notes).toMatch(
      /budget modelCalls = 50, from task_contract\.json fixed_space\.budgets\.runtime_model_calls = 50/,
    );
  });

  test('the "(100 points)" title is not a dimension: the 50/20/15/10/5 table is read, and noted as the source\'s judge aid, not J', () => {
    expect(notesOf(out)).toMatch(
      /rubric\.md \(Official reward 50, Policy\/safety 20, Tool planning 15, Conversation quality 10, Protocol\/resource validity 5\) is a judge aid of the source, not J/,
    );
    expect(c.rubric.dimensions.map((d) => d.id)).toEqual(['objective']);
  });

  test('upstream ids from the contract; every file accounted', () => {
    expect(
      c.cases.heldout.map(
        (x) =>
          (x.truth!.judgeReference as Record<string, { upstream_id: string }>)['task_contract.json splits']!
            .upstream_id,
      ),
    ).toEqual(['5', '9']);
    expectEveryFileAccounted(tau3, out, rows);
  });
});

test('a package whose cases are encrypted rows (browsecomp) is refused with how to supply them', async () => {
  const copy = path.join(tmp('encrypted'), 'browsecomp');
  cpSync(tau3, copy, { recursive: true });
  rmSync(path.join(copy, 'benchmark/test_cases'), { recursive: true });
  rmSync(path.join(copy, 'benchmark/dev_cases'), { recursive: true });
  const task = JSON.parse(readFileSync(path.join(copy, 'task.json'), 'utf8'));
  writeFileSync(
    path.join(copy, 'task.json'),
    JSON.stringify({ ...task, encrypted_rows: { sub: 'benchmark', bundle: 'encrypted/browsecomp_rows.json' } }),
  );
  const err = await importAgentSwe(copy, path.join(tmp('enc-out'), 'c')).catch((e) => e);
  expect(err).toBeInstanceOf(ImportError);
  expect((err as ImportError).message).toMatch(/refused: the cases are encrypted rows[\s\S]*outside any repository/);
});
