// Budgets and bounds through the real gateway over HTTP (its Unix socket) against the stub upstream: tokens reserved
// before forwarding and settled after under 200 parallel streams, a failed or refused call charged only what the
// upstream reported, embeddings sent with their own model, and what odd bodies leave behind in ledger and trace.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { type StubScript, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, type GatewayOptions, readTrace, startGateway, tracePath } from '../../src/gateway/index.js';
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

/** A POST over the socket; `onHeaders` runs when its status arrives (before its body), the promise at its end. */
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
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
    let headers = 0;
    let allAnswered!: () => void;
    const gate = new Promise<void>((r) => {
      allAnswered = r;
    });
    // Every admitted stream is held after its headers until all 200 calls have their status: no call ends (and
    // settles) before the last one has been admitted or refused, whatever the machine's speed.
    const g = await setup([{ content: 'a b c', usage, stream: { before: () => gate } }]);
    const c = g.registerCase({ caseId: 'par', trial: 1, budgets: { calls: 10, tokens: 10_000, wallSeconds: null } });
    const body = chat('go', { stream: true, max_tokens: 4000 });
    const reservation = Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 4) + 4000;
    const calls = Array.from({ length: N }, () =>
      post(g, c.token, '/v1/chat/completions', body, () => {
        if (++headers === N) allAnswered();
      }),
    );
    const results = await Promise.all(calls);
    await g.flush();

    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok.length + refused.length).toBe(N);
    // 4,030 reserved each: the third call starts at 8,060 reserved (< 10,000), the fourth finds no room
    expect(ok).toHaveLength(3);
    expect(refused.every((r) => JSON.parse(r.body).error.code === 'budget_exceeded')).toBe(true);
    expect(ok.every((r) => r.body.includes('data: [DONE]'))).toBe(true);
    expect(stub!.requests).toHaveLength(3);

    const spent = g.usage('par', 1);
    expect(spent.calls).toBe(3);
    expect(spent.tokens).toBeLessThanOrEqual(10_000 + reservation);
    const ledger = g.ledgerFor('par', 1);
    expect(ledger).toHaveLength(N);
    const charged = ledger.filter((l) => l.usage);
    expect(charged.map((l) => l.usage)).toEqual(Array(3).fill({ promptTokens: 20, completionTokens: 3000, totalTokens: 3020 }));
    expect(spent.tokens).toBe(charged.reduce((s, l) => s + l.usage!.totalTokens, 0));
    expect(ledger.filter((l) => l.error === 'budget_exceeded' && l.usage === null && l.attempts === 0)).toHaveLength(197);

    // every reservation was released as its call ended: 9,060 used leaves room, and the next call goes through
    const next = await post(g, c.token, '/v1/chat/completions', chat('again', { max_tokens: 4000 }));
    expect(next.status).toBe(200);
    expect(g.usage('par', 1)).toEqual({ calls: 4, tokens: 4 * 3020 });
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
