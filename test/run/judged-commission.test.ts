import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStubServer } from '../../fixtures/stub-openai/server.js';
import { heldout, repoRoot } from '../helpers/cli.js';

// A commission with a judged dimension, run through `heldout run` end to end: the judge (the stub server, the only
// mock at the model boundary) is reached through the gateway's judge role; without a model the case is unscored.
describe('a judged commission', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-judged-'));
  const commission = path.join(tmp, 'log-triage');
  let stub: Awaited<ReturnType<typeof startStubServer>>;
  const answer = {
    dimensions: {
      summary: { score: 11, max: 15, evidence: 'names the top error, but the per-service section is thin' },
    },
    outcomes: [],
    major_errors: [],
    assessment: 'serviceable summary',
  };

  beforeAll(async () => {
    cpSync(path.join(repoRoot, 'tasks/log-triage'), commission, { recursive: true });
    rmSync(path.join(commission, 'properties.ts'), { force: true });
    const rubricPath = path.join(commission, 'rubric.yaml');
    const rubric = readFileSync(rubricPath, 'utf8');
    const start = rubric.indexOf('  - id: summary');
    const end = rubric.indexOf('\noutcomes:');
    writeFileSync(
      rubricPath,
      `${rubric.slice(0, start)}  - id: summary
    title: Human summary (FR-11)
    max: 15
    items:
      - { judge: 'summary.md tells an on-call engineer what broke, where and since when, in plain words', points: 15 }
${rubric.slice(end)}`,
    );
    stub = await startStubServer({ script: [{ json: answer, usage: { prompt_tokens: 900, completion_tokens: 60 } }] });
  });
  afterAll(async () => {
    await stub.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const cache = path.join(tmp, 'judge-cache');
  const run = (out: string, env: NodeJS.ProcessEnv) =>
    heldout(
      [
        'run',
        commission,
        '--delivery',
        'fixtures/deliveries/log-triage-reference',
        '--sandbox',
        'process',
        '--out',
        out,
        '--judge-cache',
        cache,
      ],
      {
        env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_MODEL: '', OPENAI_API_KEY: '', ...env },
      },
    );
  const summaryOf = (out: string) => JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).commissions[0];

  test('without a judge model every case is unscored, with the reason, and no score is invented', async () => {
    const out = path.join(tmp, 'no-model');
    const r = await run(out, { HELDOUT_JUDGE_BASE_URL: '', HELDOUT_JUDGE_MODEL: '' });
    expect(r.code).toBe(1);
    const c = summaryOf(out);
    expect(c.result.mean).toBeNull();
    expect(c.result.unscored).toBe(c.cases.length);
    for (const x of c.cases) {
      expect(x.status).toBe('unscored');
      expect(x.result).toBeNull();
      expect(x.reason).toMatch(/no judge model configured/);
    }
  });

  test('with the stub judge the judged dimension carries its score, through the gateway, and a rerun is served from the cache', async () => {
    const out = path.join(tmp, 'judged');
    const env = {
      HELDOUT_JUDGE_BASE_URL: stub.baseURL,
      HELDOUT_JUDGE_MODEL: 'judge-model',
      HELDOUT_JUDGE_API_KEY: 'sk-real-judge-key',
    };
    const r = await run(out, env);
    expect(r.code, r.out).toBe(0);
    const c = summaryOf(out);
    expect(c.cases.length).toBe(9);
    for (const x of c.cases) {
      expect(x.status).toBe('graded');
      expect(x.dimensions.summary.score).toBe(11);
      expect(x.result).toBe(96);
    }
    const judged = stub.requests.length;
    expect(judged).toBe(9);
    expect(stub.requests.every((q: any) => q.model === 'judge-model')).toBe(true);
    // The judge's calls are the gateway's: ledgered under the judge role.
    const ledger = readdirSync(path.join(out, 'ledger')).filter((f) => f.startsWith('_judge'));
    expect(ledger.length).toBeGreaterThan(0);
    const again = await run(path.join(tmp, 'judged-again'), env);
    expect(again.code, again.out).toBe(0);
    expect(stub.requests.length).toBe(judged);
    expect(existsSync(cache)).toBe(true);
  });
});
