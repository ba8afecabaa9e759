// Budgets and bounds through the real gateway over HTTP (its Unix socket) against the stub upstream: tokens reserved
// before forwarding and settled after under 200 parallel streams, a failed or refused call charged only what the
// upstream reported (reservations released), and embeddings sent with their own model.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { type StubScript, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, type GatewayOptions, startGateway } from '../../src/gateway/index.js';
import { UNTIL, WAIT_MS } from '../helpers/deadlines.js';
import { chat, request } from './helpers.js';

const REAL_KEY = 'sk-budgets-real-key-0123456789abcdef';
let dir: string;
let stub: StubServer | undefined;
let gw: Gateway | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-budgets-'));
  return () => rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await gw?.close();
  await stub?.close();
  gw = stub = undefined;
});

async function setup(script: StubScript, options: Partial<GatewayOptions> = {}): Promise<Gateway> {
  stub = await startStubServer({ script });
  gw = await startGateway({
    env: {},
    ledgerDir: join(dir, `ledger-${Math.random().toString(36).slice(2)}`),
    roles: { runtime: { baseURL: stub.baseURL, apiKey: REAL_KEY, model: 'chat-model', embeddingModel: 'emb-model' } },
    retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 2 },
    timeoutMs: WAIT_MS,
    ...options,
  });
  return gw;
}

/** A POST over the socket; `onHeaders` runs when its status arrives (before its body), the promise at its end or cut. */
function post(
  g: Gateway,
  token: string,
  path: string,
  body: unknown,
  onHeaders: (status: number) => void = () => {},
): Promise<{ status: number; body: string }> {
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
        onHeaders(res.statusCode ?? 0);
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (t: string) => {
          text += t;
        });
        // a stream the gateway ends with an error event is then cut: what arrived is the answer
        const done = () => resolve({ status: res.statusCode ?? 0, body: text });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

describe('token budget under parallel calls', () => {
  test('200 parallel streams against 10 calls / 10,000 tokens: charged at most the budget plus one reservation, settled to the usage reported', async () => {
    const N = 200;
    const usage = { prompt_tokens: 20, completion_tokens: 3000 };
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // The admitted streams are held after their headers until the other calls are all waiting: nothing settles
    // while they arrive, so they find the room held by reservations, whatever the machine's speed.
    const g = await setup([{ content: 'a b c', usage, stream: { before: () => gate } }]);
    const c = g.registerCase({ caseId: 'par', trial: 1, budgets: { calls: 10, tokens: 10_000, wallSeconds: null } });
    const body = chat('go', { stream: true, max_tokens: 4000 });
    const reservation = Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 4) + 4000;
    expect(reservation).toBe(4028);
    const calls = Array.from({ length: N }, () => post(g, c.token, '/v1/chat/completions', body));
    // 3 × 4,028 reserved: the other 197 wait for one of them to settle (the room is theirs, not used up)
    await vi.waitUntil(() => g.pending('par', 1).waiting === N - 3, UNTIL);
    expect(g.pending('par', 1).reserved).toBe(3 * reservation);
    expect(stub!.requests).toHaveLength(3);
    release();
    const results = await Promise.all(calls);
    await g.flush();

    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    // after three settle at 3,020 each (9,060) one more starts; once it settles (12,080) the rest are refused
    expect(ok).toHaveLength(4);
    expect(refused).toHaveLength(N - 4);
    expect(refused.every((r) => JSON.parse(r.body).error.code === 'budget_exceeded')).toBe(true);
    expect(ok.every((r) => r.body.includes('data: [DONE]'))).toBe(true);
    expect(stub!.requests).toHaveLength(4);

    const spent = g.usage('par', 1);
    expect(spent).toEqual({ calls: 4, tokens: 4 * 3020 });
    expect(spent.tokens).toBeLessThanOrEqual(10_000 + reservation);
    const ledger = g.ledgerFor('par', 1);
    expect(ledger).toHaveLength(N);
    const charged = ledger.filter((l) => l.usage);
    expect(charged.map((l) => l.usage)).toEqual(
      Array(4).fill({ promptTokens: 20, completionTokens: 3000, totalTokens: 3020 }),
    );
    expect(spent.tokens).toBe(charged.reduce((s, l) => s + l.usage!.totalTokens, 0));
    const refusedLines = ledger.filter((l) => l.error === 'budget_exceeded' && l.usage === null && l.attempts === 0);
    expect(refusedLines).toHaveLength(N - 4);
  });

  test('a call whose room is held by reservations waits instead of being refused: 20 parallel calls on 5,000 tokens all answer', async () => {
    const g = await setup([{ content: 'ok', usage: { prompt_tokens: 60, completion_tokens: 40 } }]);
    const c = g.registerCase({ caseId: 'wait', trial: 1, budgets: { calls: null, tokens: 5000, wallSeconds: null } });
    // no max_tokens: each reserves 8,192 output tokens, more than the whole budget, so they go one at a time
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post(g, c.token, '/v1/chat/completions', chat('go'))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(g.usage('wait', 1)).toEqual({ calls: 20, tokens: 2000 });
  });

  test('a caller that hangs up while its call waits for room is ledgered client_aborted; the call never goes upstream', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const g = await setup([
      { content: 'a b', usage: { prompt_tokens: 1, completion_tokens: 1 }, stream: { before: () => gate } },
    ]);
    const c = g.registerCase({ caseId: 'gone', trial: 1, budgets: { calls: null, tokens: 5000, wallSeconds: null } });
    const first = post(g, c.token, '/v1/chat/completions', chat('go', { stream: true }));
    await vi.waitUntil(() => stub!.requests.length === 1, UNTIL);
    const waiting = http.request({
      socketPath: g.socketPath,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${c.token}` },
    });
    waiting.on('error', () => {});
    waiting.end(JSON.stringify(chat('second')));
    await vi.waitUntil(() => g.pending('gone', 1).waiting === 1, UNTIL);
    waiting.destroy();
    await vi.waitUntil(() => g.ledgerFor('gone', 1).length === 1, UNTIL);
    expect(g.ledgerFor('gone', 1)[0]).toMatchObject({ status: 499, error: 'client_aborted', attempts: 0, usage: null });
    expect(g.pending('gone', 1)).toEqual({
      reserved: 8192 + Math.ceil(JSON.stringify(chat('go', { stream: true })).length / 4),
      waiting: 0,
    });
    release();
    expect((await first).status).toBe(200);
    expect(stub!.requests).toHaveLength(1);
    expect(g.usage('gone', 1)).toEqual({ calls: 1, tokens: 2 });
  });

  test('the call budget holds under 200 parallel calls: exactly 10 go upstream', async () => {
    let headers = 0;
    let allAnswered!: () => void;
    const gate = new Promise<void>((r) => {
      allAnswered = r;
    });
    const g = await setup([{ content: 'x y', stream: { before: () => gate } }]);
    const c = g.registerCase({ caseId: 'calls', trial: 1, budgets: { calls: 10, tokens: null, wallSeconds: null } });
    const results = await Promise.all(
      Array.from({ length: 200 }, () =>
        post(g, c.token, '/v1/chat/completions', chat('go', { stream: true }), () => {
          if (++headers === 200) allAnswered();
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(190);
    expect(stub!.requests).toHaveLength(10);
    expect(g.usage('calls', 1).calls).toBe(10);
  });
});

describe('a refused or failed call is charged nothing it did not use', () => {
  /** The stub's answer by the first message's content. */
  const byContent: StubScript = (req) => {
    const key = String(req.body?.messages?.[0]?.content ?? '').slice(0, 8);
    if (key === 'reconnec') return { content: 'half an answer here', truncate: true };
    if (key === 'down') return { status: 500 };
    if (key === 'mal') return { malformed: true };
    if (key === 'reset') return { content: 'a b c d', truncate: 'mid-event-reset' };
    return { content: 'fine', usage: { prompt_tokens: 11, completion_tokens: 4 } };
  };

  test('reconnects cut short, provider errors and malformed bodies settle to 0; the reservations are released', async () => {
    const g = await setup(byContent);
    const c = g.registerCase({ caseId: 'fair', trial: 1, budgets: { calls: null, tokens: 10_000, wallSeconds: null } });
    // A Codex-like client resending a 40 KB conversation after each cut stream: each was charged ~10k estimated
    // tokens, so the second reconnect was refused.
    const long = `reconnect ${'context '.repeat(5000)}`;
    for (let i = 0; i < 5; i++) {
      const r = await post(g, c.token, '/v1/chat/completions', chat(long, { stream: true }));
      expect(r.status).toBe(200);
      expect(r.body).toContain('stream_truncated');
    }
    expect((await post(g, c.token, '/v1/chat/completions', chat('down'))).status).toBe(500);
    expect((await post(g, c.token, '/v1/chat/completions', chat('mal'))).status).toBe(502);
    expect((await post(g, c.token, '/v1/chat/completions', chat('reset', { stream: true }))).status).toBe(200);
    expect((await post(g, c.token, '/v1/chat/completions', '{"messages": [')).status).toBe(400);
    expect(g.usage('fair', 1)).toEqual({ calls: 8, tokens: 0 });
    const ok = await post(g, c.token, '/v1/chat/completions', chat('ok'));
    expect(ok.status).toBe(200);
    expect(g.usage('fair', 1)).toEqual({ calls: 9, tokens: 15 });

    const ledger = g.ledgerFor('fair', 1);
    expect(ledger).toHaveLength(10);
    expect(ledger.slice(0, 9).map((l) => l.usage)).toEqual(Array(9).fill(null));
    expect(ledger.slice(0, 9).every((l) => l.classification !== 'success')).toBe(true);
    expect(ledger[9]).toMatchObject({ classification: 'success', usage: { totalTokens: 15 } });
    expect(ledger[9]!.usage!.estimated).toBeUndefined();
  });

  test('a call refused for its budget is charged nothing, and the call that crossed the line what it used', async () => {
    const g = await setup(byContent);
    const c = g.registerCase({ caseId: 'tiny', trial: 1, budgets: { calls: null, tokens: 10, wallSeconds: null } });
    expect((await post(g, c.token, '/v1/chat/completions', chat('ok'))).status).toBe(200);
    const over = await post(g, c.token, '/v1/chat/completions', chat('ok'));
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body).error.message).toContain('token budget of 10 tokens is used up (15 used)');
    expect(g.usage('tiny', 1)).toEqual({ calls: 1, tokens: 15 });
    expect(g.ledgerFor('tiny', 1).map((l) => [l.status, l.usage?.totalTokens ?? null])).toEqual([
      [200, 15],
      [429, null],
    ]);
  });
});

describe('embeddings have their own model', () => {
  const emb = { model: 'text-embedding-3-small', input: ['a', 'b'] };

  test('an embeddings call goes with the embedding model, a chat call with the chat model; /v1/models lists both', async () => {
    const g = await setup([{ content: 'hi' }]);
    const c = g.registerCase({ caseId: 'emb', trial: 1, budgets: { calls: null, tokens: null, wallSeconds: null } });
    expect((await post(g, c.token, '/v1/embeddings', emb)).status).toBe(200);
    expect((await post(g, c.token, '/v1/chat/completions', chat())).status).toBe(200);
    expect(stub!.requests.map((b) => b.model)).toEqual(['emb-model', 'chat-model']);
    expect(g.ledgerFor('emb', 1).map((l) => [l.endpoint, l.model, l.requestedModel])).toEqual([
      ['embeddings', 'emb-model', 'text-embedding-3-small'],
      ['chat.completions', 'chat-model', 'whatever-the-agent-wants'],
    ]);
    const auth = { authorization: `Bearer ${c.token}` };
    const list = await request({ socketPath: g.socketPath }, 'GET', '/v1/models', undefined, auth);
    expect(list.json.data.map((m: any) => m.id)).toEqual(['chat-model', 'emb-model']);
    const one = await request({ socketPath: g.socketPath }, 'GET', '/v1/models/emb-model', undefined, auth);
    expect(one.json.id).toBe('emb-model');
  });

  test('from the environment: HELDOUT_<ROLE>_EMBEDDING_MODEL, else HELDOUT_EMBEDDING_MODEL', async () => {
    stub = await startStubServer({ script: [{ embedding: [1] }] });
    gw = await startGateway({
      tcp: true,
      ledgerDir: join(dir, 'ledger-env'),
      env: {
        OPENAI_BASE_URL: stub.baseURL,
        OPENAI_MODEL: 'chat-from-env',
        HELDOUT_EMBEDDING_MODEL: 'emb-from-env',
        HELDOUT_JUDGE_EMBEDDING_MODEL: 'judge-emb',
      },
    });
    expect(gw.roles.runtime.embeddingModel).toBe('emb-from-env');
    expect(gw.roles.judge.embeddingModel).toBe('judge-emb');
    const r = await request({ url: gw.tcpUrl! }, 'POST', '/role/judge/v1/embeddings', emb);
    expect(r.status).toBe(200);
    expect(stub.requests.map((b) => b.model)).toEqual(['judge-emb']);
  });

  test('with no embedding model configured an embeddings call is a 503 naming the setting, never the chat model', async () => {
    const g = await setup([{ content: 'hi' }], {
      roles: { runtime: { baseURL: 'http://127.0.0.1:9/v1', apiKey: REAL_KEY, model: 'chat-model' } },
    });
    const c = g.registerCase({ caseId: 'noemb', trial: 1, budgets: { calls: null, tokens: null, wallSeconds: null } });
    const r = await post(g, c.token, '/v1/embeddings', emb);
    expect(r.status).toBe(503);
    const err = JSON.parse(r.body).error;
    expect(err.code).toBe('no_model_configured');
    expect(err.message).toContain('HELDOUT_RUNTIME_EMBEDDING_MODEL');
    expect(g.ledgerFor('noemb', 1)).toMatchObject([
      { endpoint: 'embeddings', status: 503, classification: 'provider_failure', attempts: 0, model: null },
    ]);
    expect(g.usage('noemb', 1).calls).toBe(0);
  });
});
