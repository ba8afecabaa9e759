import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStubServer } from '../../fixtures/stub-openai/server.js';
import { importAgentSwe } from '../../src/importers/index.js';
import { heldout } from '../helpers/cli.js';
import { agentsweFixtures, dbAnalytics, deeptutor, hasData, productCheckout, tmp } from './helpers.js';

// Imported AgentSWE commissions graded whole, with a judge model: the stub server (the only mock, at the model
// boundary) answers every dimension with half its points and every outcome as satisfied, so the Result is what
// heldout computes from the imported rubric, and an editing case's satisfaction is μ_new ∧ μ_reg, both computed.

/** The judge's answer to one request: half of each dimension's max, every outcome satisfied, read from the prompt. */
function halfMarks(body: { messages?: { content: string }[] }) {
  const prompt = (body.messages ?? []).map((m) => m.content).join('\n');
  const dimensions: Record<string, { score: number; max: number; evidence: string }> = {};
  for (const m of prompt.matchAll(/^## Dimension `([^`]+)` — .* \(score 0–(\d+(?:\.\d+)?)\)$/gm)) {
    const max = Number(m[2]);
    dimensions[m[1]!] = { score: Math.floor(max / 2), max, evidence: 'half, by the stub judge' };
  }
  const outcomes = [...prompt.matchAll(/^- `([^`]+)` — /gm)].map((m) => ({
    id: m[1],
    satisfied: true,
    safety: true,
    evidence: 'by the stub judge',
  }));
  return { json: { dimensions, outcomes, major_errors: [], assessment: 'stub' } };
}

let stub: Awaited<ReturnType<typeof startStubServer>>;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  stub = await startStubServer({ script: (req) => halfMarks(req.body as { messages?: { content: string }[] }) });
  env = {
    ...process.env,
    OPENAI_BASE_URL: '',
    OPENAI_MODEL: '',
    HELDOUT_JUDGE_BASE_URL: stub.baseURL,
    HELDOUT_JUDGE_MODEL: 'judge-model',
    HELDOUT_JUDGE_API_KEY: 'sk-judge',
  };
});
afterAll(async () => stub?.close());

interface Row {
  id: string;
  status: string;
  gate: string | null;
  result: number | null;
  reason: string | null;
  dimensions: Record<string, { score: number | null; max: number }>;
  editing?: { muNew: boolean; muReg: boolean | null; failedTests?: string[] };
}

async function run(commission: string, deliveryDir: string): Promise<Row[]> {
  const out = tmp('judged-out');
  const r = await heldout(['run', commission, '--delivery', deliveryDir, '--out', out, '--no-judge-cache'], { env });
  expect(r.code, r.out).not.toBe(2);
  return JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).commissions[0].cases;
}

describe.skipIf(!hasData)('the real database-analytics package, judged (../shared)', () => {
  test('a delivery to its interface: every case graded, the Result the sum of the judged dimensions', async () => {
    const dir = path.join(tmp('db-judged'), 'c');
    await importAgentSwe(dbAnalytics, dir);
    const d = tmp('db-delivery');
    const outputs = { 'answer.json': '{"status": "answered"}', 'queries.json': '{"queries": []}' };
    writeFileSync(
      path.join(d, 'run_agent.py'),
      `import os, sys, json\nout = sys.argv[sys.argv.index('--output') + 1]\nfor k, v in ${JSON.stringify(outputs)}.items():\n    open(os.path.join(out, k), 'w').write(v)\n`,
    );
    chmodSync(path.join(d, 'run_agent.py'), 0o644);
    chmodSync(d, 0o755);
    const cases = await run(dir, d);
    expect(cases).toHaveLength(6);
    for (const c of cases) {
      expect([c.status, c.gate], `${c.id}: ${c.reason}`).toEqual(['graded', null]);
      const dims = Object.values(c.dimensions);
      expect(dims.map((x) => x.max)).toEqual([8, 36, 20, 18, 12, 6]);
      for (const x of dims) expect(x.score).toBe(Math.floor(x.max / 2));
      expect(c.result).toBe(dims.reduce((s, x) => s + (x.score ?? 0), 0));
    }
  });
});

describe('editing, judged: μ_new ∧ μ_reg computed with the pinned product (fixture faithful to deeptutor)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(tmp('edit-judged'), 'c');
    await importAgentSwe(deeptutor, dir, { product: productCheckout() });
  });

  test("a patch that keeps the product's tests green: μ_reg true, μ_new from the judged Result", async () => {
    const d = tmp('edit-delivery');
    cpSync(path.join(agentsweFixtures, 'deliveries/deeptutor-remediation'), d, { recursive: true });
    const cases = await run(dir, d);
    expect(cases).toHaveLength(2);
    for (const c of cases) {
      expect([c.status, c.gate], `${c.id}: ${c.reason}`).toEqual(['graded', null]);
      expect(c.result).toBe(Object.values(c.dimensions).reduce((s, x) => s + (x.score ?? 0), 0));
      expect(c.editing).toMatchObject({ muReg: true, muNew: c.result! >= 60 });
    }
  });

  test("a patch that applies and breaks the product's own test: μ_reg false names it, Result 0", async () => {
    const d = tmp('edit-regression');
    mkdirSync(d, { recursive: true });
    cpSync(path.join(agentsweFixtures, 'deliveries/deeptutor-regression'), d, { recursive: true });
    const cases = await run(dir, d);
    for (const c of cases) {
      expect(c.editing?.muReg, `${c.id}: ${c.reason}`).toBe(false);
      expect(c.result).toBe(0);
      expect(c.editing?.failedTests?.join(' ')).toMatch(/test_completed_with_the_task_title/);
    }
  });
});
