// Cost in money through the real gateway over HTTP (its Unix socket) against the stub upstream: each ledger line's
// costUsd from the pricing table (cached input, long-context tier, streams, Responses), a model missing from the
// table ledgered null and said once, and budgets.usd reserved before forwarding and settled after, so 50 parallel
// calls cannot overshoot it by more than one call's reservation.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { type StubScript, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, type GatewayOptions, readPricing, startGateway } from '../../src/gateway/index.js';
import { UNTIL, WAIT_MS } from '../helpers/deadlines.js';
import { chat } from './helpers.js';

let dir: string;
let stub: StubServer | undefined;
let gw: Gateway | undefined;
let notices: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-cost-'));
  return () => rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await gw?.close();
  await stub?.close();
  gw = stub = undefined;
  notices = [];
});

/** USD per million tokens, as the default file format says. */
const PRICING = `# the test's pricing table
models:
  chat-model:
    input: 2
    output: 8
    cachedInput: 0.5
    tiers:
      - above: 1000
        input: 4
        output: 16
  emb-model: { input: 0.1, output: 0 }
`;

async function setup(script: StubScript, model = 'chat-model', options: Partial<GatewayOptions> = {}) {
  const file = join(dir, `pricing-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, PRICING);
  stub = await startStubServer({ script });
  gw = await startGateway({
    env: {},
    ledgerDir: join(dir, `ledger-${Math.random().toString(36).slice(2)}`),
    roles: {
      runtime: { baseURL: stub.baseURL, apiKey: 'sk-cost-real-key-0123456789', model, embeddingModel: 'emb-model' },
    },
    retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 2 },
    timeoutMs: WAIT_MS,
    pricing: readPricing(file),
    onNotice: (line) => notices.push(line),
    ...options,
  });
  return gw;
}

function post(g: Gateway, token: string, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath: g.socketPath,
        method: 'POST',
        path,
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (t: string) => {
          text += t;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const none = { calls: null, tokens: null, wallSeconds: null };

describe('costUsd in the ledger', () => {
  test('each call priced from its reported usage: cached input at its rate, a long prompt at its tier, streams and Responses alike', async () => {
    const g = await setup([
      { content: 'a', usage: { prompt_tokens: 400, completion_tokens: 100, cached_tokens: 300 } },
      { content: 'b', usage: { prompt_tokens: 2000, completion_tokens: 10 }, stream: {} },
      { content: 'c', usage: { input_tokens: 50, output_tokens: 5, cached_tokens: 50 } },
      { content: 'd' },
    ]);
    const c = g.registerCase({ caseId: 'priced', trial: 0, budgets: none });
    expect((await post(g, c.token, '/v1/chat/completions', chat('one'))).status).toBe(200);
    expect((await post(g, c.token, '/v1/chat/completions', chat('two', { stream: true }))).status).toBe(200);
    expect((await post(g, c.token, '/v1/responses', { model: 'x', input: 'three' })).status).toBe(200);
    expect((await post(g, c.token, '/v1/embeddings', { model: 'x', input: 'four' })).status).toBe(200);
    await g.flush();
    const ledger = g.ledgerFor('priced', 0);
    expect(ledger.map((l) => l.usage?.cacheReadTokens)).toEqual([300, undefined, 50, undefined]);
    const costs = ledger.map((l) => l.costUsd);
    // 100 uncached × $2 + 300 cached × $0.5 + 100 out × $8, per million
    expect(costs[0]).toBeCloseTo((100 * 2 + 300 * 0.5 + 100 * 8) / 1e6, 12);
    // 2,000 prompt tokens pass the 1,000 tier: the whole call at $4 / $16
    expect(costs[1]).toBeCloseTo((2000 * 4 + 10 * 16) / 1e6, 12);
    expect(costs[2]).toBeCloseTo((50 * 0.5 + 5 * 8) / 1e6, 12);
    expect(ledger[3]!.model).toBe('emb-model');
    expect(costs[3]).toBeCloseTo((ledger[3]!.usage!.promptTokens * 0.1) / 1e6, 12);
    expect(costs[3]).toBeGreaterThan(0);
    expect(notices).toEqual([]);
    // costUsd is the line's last field, after the ones test/gateway/ledger-lines.test.ts pins
    expect(Object.keys(ledger[0]!).slice(-2)).toEqual(['truncated', 'costUsd']);
  });

  test('a model missing from the table: costUsd null on every call (never 0), said once; a refused call costs 0', async () => {
    const g = await setup([{ content: 'ok', usage: { prompt_tokens: 10, completion_tokens: 10 } }], 'other-model');
    const c = g.registerCase({ caseId: 'unpriced', trial: 0, budgets: { ...none, calls: 2 } });
    for (let i = 0; i < 3; i++) await post(g, c.token, '/v1/chat/completions', chat(`n${i}`));
    await g.flush();
    const ledger = g.ledgerFor('unpriced', 0);
    expect(ledger.map((l) => [l.status, l.costUsd])).toEqual([
      [200, null],
      [200, null],
      [429, 0],
    ]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/model other-model is not in the pricing table .*pricing-.*\.yaml/);
  });

  test('without a pricing table the ledger line has no costUsd at all', async () => {
    const g = await setup([{ content: 'ok' }], 'chat-model', { pricing: undefined });
    const c = g.registerCase({ caseId: 'none', trial: 0, budgets: none });
    await post(g, c.token, '/v1/chat/completions', chat());
    await g.flush();
    expect(g.ledgerFor('none', 0)[0]).not.toHaveProperty('costUsd');
  });
});

describe('budgets.usd', () => {
  test('50 parallel calls against $1: the price of each reservation is held before forwarding, spent ≤ budget + one reservation', async () => {
    const N = 50;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // 30 prompt + 30,000 output tokens reported: 30 × $2 + 30,000 × $8 per million = $0.24006 a call
    const usage = { prompt_tokens: 30, completion_tokens: 30_000 };
    const g = await setup([{ content: 'a b', usage, stream: { before: () => gate } }]);
    const c = g.registerCase({ caseId: 'usd', trial: 0, budgets: { ...none, usd: 1 } });
    const body = chat('go', { stream: true, max_tokens: 40_000 });
    const calls = Array.from({ length: N }, () => post(g, c.token, '/v1/chat/completions', body));
    // each reserves ~$0.32 (its prompt at bytes / 4 and 40,000 output tokens): four fit under $1, the rest wait
    await vi.waitUntil(() => g.pending('usd', 0).waiting === N - 4, UNTIL);
    expect(stub!.requests).toHaveLength(4);
    release();
    const results = await Promise.all(calls);
    await g.flush();
    const ledger = g.ledgerFor('usd', 0);
    const spent = ledger.reduce((s, l) => s + (l.costUsd ?? 0), 0);
    const ok = results.filter((r) => r.status === 200);
    // four settle at $0.96006; a fifth starts and settles at $1.2: the rest are refused as over the budget
    expect(ok).toHaveLength(5);
    expect(spent).toBeCloseTo(5 * 0.24006, 9);
    expect(spent).toBeLessThanOrEqual(1 + 0.33);
    const refused = results.filter((r) => r.status === 429).map((r) => JSON.parse(r.body).error);
    expect(refused).toHaveLength(N - 5);
    expect(refused.every((e) => e.code === 'budget_exceeded' && /usd budget of \$1 is used up/.test(e.message))).toBe(
      true,
    );
    expect(ledger.filter((l) => l.error === 'budget_exceeded').every((l) => l.attempts === 0)).toBe(true);
  });

  test("a run's usd budget is shared by its cases: 3 cases × 10 parallel calls against $1 for the run", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const usage = { prompt_tokens: 30, completion_tokens: 30_000 };
    const g = await setup([{ content: 'a b', usage, stream: { before: () => gate } }]);
    const run = { id: 'run-1', usd: 1 };
    const cases = ['r1', 'r2', 'r3'].map((id) => g.registerCase({ caseId: id, trial: 0, budgets: none, run }));
    const body = chat('go', { stream: true, max_tokens: 40_000 });
    const calls = cases.flatMap((c) =>
      Array.from({ length: 10 }, () => post(g, c.token, '/v1/chat/completions', body)),
    );
    // the four reservations that fit under the run's $1 are held across its cases; the other 26 calls wait
    const waiting = () => cases.reduce((n, c) => n + g.pending(c.caseId, 0).waiting, 0);
    await vi.waitUntil(() => waiting() === 26, UNTIL);
    expect(g.runSpend('run-1').reservedUsd).toBeGreaterThan(1);
    expect(stub!.requests).toHaveLength(4);
    release();
    const results = await Promise.all(calls);
    await g.flush();
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(g.runSpend('run-1')).toEqual({ usd: expect.closeTo(5 * 0.24006, 9), reservedUsd: expect.closeTo(0, 9) });
    const refused = results.filter((r) => r.status === 429).map((r) => JSON.parse(r.body).error.message);
    expect(refused).toHaveLength(25);
    expect(refused.every((m) => m.startsWith('run run-1: usd budget of $1 is used up'))).toBe(true);
  });

  test('a usd budget on a model with no price: 503 model_unpriced, the provider side at fault, nothing sent', async () => {
    const g = await setup([{ content: 'ok' }], 'other-model');
    const c = g.registerCase({ caseId: 'usd-unpriced', trial: 0, budgets: { ...none, usd: 5 } });
    const r = await post(g, c.token, '/v1/chat/completions', chat());
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body).error.code).toBe('model_unpriced');
    await g.flush();
    const [line] = g.ledgerFor('usd-unpriced', 0);
    expect(line).toMatchObject({ classification: 'provider_failure', error: 'model_unpriced', attempts: 0 });
    expect(stub!.requests).toHaveLength(0);
  });
});
