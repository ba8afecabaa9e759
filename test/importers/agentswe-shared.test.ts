import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { GATE_CATEGORIES } from '../../src/grading/index.js';
import type { AccountRow } from '../../src/importers/index.js';
import { heldout } from '../helpers/cli.js';
import { agentsweTasks, expectEveryFileAccounted, hasData, snapshot, tmp } from './helpers.js';

// Issue 20's first acceptance line on every AgentSWE package ../shared holds, found by listing it (a package added
// there is covered without a change here), through the built CLI as a user runs it: import exits 0 with an account
// of every source file, validate exits 0, and `heldout run` on an empty delivery gives Result 0 by a named gate on
// every case of both splits, never unscored. No model is configured: a gate never needs one.
const noModel = {
  ...process.env,
  HELDOUT_JUDGE_BASE_URL: '',
  HELDOUT_JUDGE_MODEL: '',
  OPENAI_BASE_URL: '',
  OPENAI_MODEL: '',
};

const packages = hasData
  ? readdirSync(agentsweTasks)
      .sort()
      .flatMap((family) =>
        readdirSync(path.join(agentsweTasks, family))
          .sort()
          .map((id) => `${family}/${id}`),
      )
      .filter((rel) => existsSync(path.join(agentsweTasks, rel, 'task.json')))
  : [];

test.skipIf(!hasData)('../shared holds a package of the creation and the optimization stage', () => {
  expect(packages.some((p) => p.startsWith('creation/'))).toBe(true);
  expect(packages.some((p) => p.startsWith('optimization/'))).toBe(true);
});

interface Row {
  id: string;
  split: string;
  status: string;
  gate: string | null;
  result: number | null;
  reason: string | null;
  dimensions: Record<string, { score: number | null }>;
}

describe.skipIf(!packages.length).each(packages)('the real AgentSWE package %s (../shared)', (rel) => {
  const src = path.join(agentsweTasks, rel);
  let out: string;
  let imported: { ok: boolean; sourceFiles: AccountRow[] };

  beforeAll(async () => {
    out = path.join(tmp('shared'), 'c');
    const r = await heldout(['import', 'agentswe', src, '--out', out, '--json'], { env: noModel });
    expect(r.code, r.out).toBe(0);
    imported = JSON.parse(r.stdout);
  });

  test('imports (exit 0), every source file accounted for in --json and IMPORT-NOTES.md, and validates (exit 0)', async () => {
    expect(imported.ok).toBe(true);
    expectEveryFileAccounted(src, out, imported.sourceFiles);
    const v = await heldout(['validate', out, '--json'], { env: noModel });
    expect(v.code, v.out).toBe(0);
    const [report] = JSON.parse(v.stdout) as { ok: boolean; dev: number; heldout: number }[];
    const task = JSON.parse(readFileSync(path.join(src, 'task.json'), 'utf8'));
    expect(report!.ok).toBe(true);
    expect(report!.dev + report!.heldout).toBeGreaterThan(0);
    // the case counts are the package's own (task.json's protocol, or the contract's splits)
    if (Array.isArray(task.protocol?.heldout_cases)) expect(report!.heldout).toBe(task.protocol.heldout_cases.length);
  });

  test('an empty delivery: Result 0 by a named gate on every case of both splits, never unscored', async () => {
    const empty = tmp('empty-delivery');
    chmodSync(empty, 0o755);
    const runOut = tmp('shared-run');
    const r = await heldout(['run', out, '--delivery', empty, '--split', 'both', '--out', runOut, '--no-judge-cache'], {
      env: noModel,
    });
    expect(r.code, r.out).toBe(1);
    const summary = JSON.parse(readFileSync(path.join(runOut, 'summary.json'), 'utf8'));
    const rows = candidateRows(summary);
    const v = JSON.parse((await heldout(['validate', out, '--json'], { env: noModel })).stdout)[0];
    expect(rows).toHaveLength(v.dev + v.heldout);
    for (const c of rows) {
      expect([c.status, c.result], `${c.split}/${c.id}`).toEqual(['gate-failed', 0]);
      expect(GATE_CATEGORIES, `${c.split}/${c.id}: ${c.gate}`).toContain(c.gate);
      for (const d of Object.values(c.dimensions)) expect(d.score, `${c.id} ${c.reason}`).not.toBeNull();
    }
    // what the delivery ran into is on record per case, not only the gate's name
    for (const c of rows) expect(c.reason, c.id).toBeTruthy();
    expect([...snapshot(runOut).keys()].some((f) => f.endsWith('.meta.json'))).toBe(true);
  });
});

/** The delivery's rows of every entry of a summary, with their split (an optimization run's a0 rows left out). */
function candidateRows(summary: { commissions: { verdict: string; split: string; cases: Row[] }[] }): Row[] {
  return summary.commissions
    .filter((c) => c.verdict !== 'baseline')
    .flatMap((c) => c.cases.map((x) => ({ ...x, split: c.split })));
}
