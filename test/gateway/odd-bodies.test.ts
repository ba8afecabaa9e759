// What refused or odd calls leave behind, through the real gateway over its Unix socket: every malformed body is a
// 4xx with a ledger line (a 100,000-deep body was a 500 with none), every trace line is bounded (a refused 30 MB call
// wrote a 31 MB line), and so are the traces of one case.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type StubScript, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, type GatewayOptions, readTrace, startGateway, tracePath } from '../../src/gateway/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { chat, request } from './helpers.js';

const REAL_KEY = 'sk-odd-bodies-real-key-0123456789abcdef';
const MiB = 1024 * 1024;
let dir: string;
let stub: StubServer | undefined;
let gw: Gateway | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-odd-'));
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
    roles: { runtime: { baseURL: stub.baseURL, apiKey: REAL_KEY, model: 'chat-model' } },
    retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 2 },
    timeoutMs: WAIT_MS,
    ...options,
  });
  return gw;
}

const unlimited = { calls: null, tokens: null, wallSeconds: null };

/** The raw trace file of (caseId, 1), one string per line. */
const traceLines = (g: Gateway, caseId: string) =>
  readFileSync(tracePath(g.ledgerDir, caseId, 1), 'utf8')
    .split('\n')
    .filter(Boolean);

describe('malformed bodies', () => {
  test('a 100,000-deep body (object or array) is a 400 with a ledger line; nothing goes upstream', async () => {
    const g = await setup([{ content: 'never' }]);
    const c = g.registerCase({ caseId: 'deep', trial: 1, budgets: unlimited });
    const sock = { socketPath: g.socketPath };
    const auth = { authorization: `Bearer ${c.token}` };
    const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const asObject = await request(sock, 'POST', '/v1/chat/completions', `{"messages":${nest(100_000)}}`, auth);
    const asArray = await request(sock, 'POST', '/v1/responses', nest(100_000), auth);
    for (const r of [asObject, asArray]) {
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error' });
      expect(r.json.error.message).toContain('deeper than 256 levels');
    }
    // a body nested as deep as a real tool schema passes
    const fine = { model: 'x', messages: [{ role: 'user', content: 'hi' }], tools: [JSON.parse(nest(200))] };
    expect((await request(sock, 'POST', '/v1/chat/completions', fine, auth)).status).toBe(200);
    await g.flush();
    expect(g.ledgerFor('deep', 1).map((l) => [l.status, l.classification, l.error, l.attempts])).toEqual([
      [400, 'candidate_request_error', 'invalid_request', 0],
      [400, 'candidate_request_error', 'invalid_request', 0],
      [200, 'success', null, 1],
    ]);
    expect(stub!.requests).toHaveLength(1);
    expect(traceLines(g, 'deep').every((l) => l.length < 20_000)).toBe(true);
  });
});

describe('trace bounds', () => {
  test('a 4 MB JSON array body and a refused 8 MB call each leave one trace line within the 1 MiB default', async () => {
    const g = await setup([{ content: 'never' }]);
    const c = g.registerCase({ caseId: 'big', trial: 1, budgets: { calls: 0, tokens: null, wallSeconds: null } });
    const sock = { socketPath: g.socketPath };
    const auth = { authorization: `Bearer ${c.token}` };
    const array = JSON.stringify(Array.from({ length: 400_000 }, (_, i) => `item-${i}`));
    expect(array.length).toBeGreaterThan(4_000_000);
    expect((await request(sock, 'POST', '/v1/chat/completions', array, auth)).status).toBe(400);
    const huge = chat('y'.repeat(8 * MiB));
    const over = await request(sock, 'POST', '/v1/chat/completions', huge, auth);
    expect(over.status).toBe(429);
    await g.flush();
    expect(g.ledgerFor('big', 1).map((l) => [l.status, l.error])).toEqual([
      [400, 'invalid_request'],
      [429, 'budget_exceeded'],
    ]);
    const lines = traceLines(g, 'big');
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(MiB);
    const [arr, refused] = readTrace(g.ledgerDir, 'big', 1) as any[];
    expect(arr.request).toMatchObject({ truncated: true, bytes: array.length });
    expect(array.startsWith(arr.request.head)).toBe(true);
    expect(refused.request).toMatchObject({ truncated: true, bytes: JSON.stringify(huge).length });
    expect(refused.request.head.startsWith('{"model":"whatever-the-agent-wants","messages":[')).toBe(true);
    expect(refused.response.error.code).toBe('budget_exceeded');
  });

  test("a case's traces stop at their bound with one line saying so; the ledger keeps every call", async () => {
    const g = await setup([{ content: 'ok' }], { traceLimits: { lineBytes: 64 * 1024, caseBytes: 256 * 1024 } });
    const c = g.registerCase({ caseId: 'many', trial: 1, budgets: unlimited });
    const auth = { authorization: `Bearer ${c.token}` };
    for (let i = 0; i < 12; i++) {
      const r = await request(
        { socketPath: g.socketPath },
        'POST',
        '/v1/chat/completions',
        chat('z'.repeat(60_000)),
        auth,
      );
      expect(r.status).toBe(200);
    }
    await g.flush();
    expect(g.ledgerFor('many', 1)).toHaveLength(12);
    expect(statSync(tracePath(g.ledgerDir, 'many', 1)).size).toBeLessThanOrEqual(256 * 1024);
    const trace = readTrace(g.ledgerDir, 'many', 1) as any[];
    expect(trace.length).toBeGreaterThan(1);
    expect(trace.length).toBeLessThan(12);
    expect(trace.slice(0, -1).every((t) => t.traceBound === undefined && t.response.choices)).toBe(true);
    expect(trace.at(-1)!.traceBound).toContain('262144 bytes');
    expect(trace.map((t) => t.callId)).toEqual(
      g
        .ledgerFor('many', 1)
        .slice(0, trace.length)
        .map((l) => l.callId),
    );
  });

  test('a body cut in the trace is cut after the keys are redacted: no part of a key is left', async () => {
    const leaky = `${'x'.repeat(29)}${REAL_KEY}`.repeat(4000);
    const g = await setup([{ content: leaky }], { traceLimits: { lineBytes: 64 * 1024 } });
    const c = g.registerCase({ caseId: 'leak', trial: 1, budgets: unlimited });
    const r = await request({ socketPath: g.socketPath }, 'POST', '/v1/chat/completions', chat(), {
      authorization: `Bearer ${c.token}`,
    });
    expect(r.status).toBe(200);
    expect(r.body).not.toContain(REAL_KEY.slice(0, 10));
    await g.flush();
    const [line] = traceLines(g, 'leak');
    expect(Buffer.byteLength(line!)).toBeLessThanOrEqual(64 * 1024);
    expect(JSON.parse(line!).response).toMatchObject({ truncated: true });
    expect(line).toContain('[redacted]');
    expect(line).not.toContain(REAL_KEY.slice(0, 10));
  });
});
