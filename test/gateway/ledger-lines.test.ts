// Pins the ledger and trace lines themselves — every field, in order — for one call through each way a call can end,
// so that reshaping the gateway's code cannot change a line's shape, order or content unnoticed. Only what differs run
// to run (time, call id, latencies) is masked.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { type StubReply, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, startGateway } from '../../src/gateway/index.js';
import { UNTIL, WAIT_MS } from '../helpers/deadlines.js';
import { chat, request } from './helpers.js';

const budgets = { calls: 100, tokens: null, wallSeconds: null };
let stub: StubServer;
let gw: Gateway;
/** The same gateway with a short upstream idle timeout, for the one line that needs it to fire (`hang` → 504). */
let gwShort: Gateway;
let dir: string;

/** What the stub answers, by the first message's content (or the responses-API input). */
const replies: Record<string, StubReply> = {
  ok: { content: 'fine', usage: { prompt_tokens: 7, completion_tokens: 3 } },
  bad: { status: 400, body: { error: { message: 'bad messages', type: 'invalid_request_error' } } },
  down: { status: 500 },
  mal: { malformed: true },
  cut: { truncate: true, content: 'a b c d e f' },
  stream: { content: 'alpha beta', usage: { prompt_tokens: 5, completion_tokens: 2 } },
  strunc: { content: 'one two three', truncate: true },
  scut: { content: 'one two three', truncate: 'mid-event' },
  smal: { malformed: true },
  rstream: { content: 'from responses', usage: { input_tokens: 4, output_tokens: 2 } },
  hang: { hang: true },
  cstream: { content: 'a b c d e f g h', stream: { delayMs: 100 } },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-lines-'));
  stub = await startStubServer({
    script: (req) => {
      const key = req.body?.messages?.[0]?.content ?? req.body?.input;
      return replies[key] ?? { embedding: [0.5] };
    },
  });
  const options = {
    env: {},
    tcp: true,
    ledgerDir: join(dir, 'ledger'),
    roles: {
      runtime: {
        baseURL: stub.baseURL,
        apiKey: 'sk-lines-0123456789',
        model: 'pinned-model',
        embeddingModel: 'pinned-embedding-model',
      },
    },
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    maxBodyBytes: 4096,
  };
  // Every other call must not time out, however busy the machine: a stalled event loop fires a short idle timer
  // before it reads the answer already waiting.
  gw = await startGateway({ ...options, timeoutMs: WAIT_MS });
  gwShort = await startGateway({ ...options, timeoutMs: 100 });
});
afterAll(async () => {
  await gwShort?.close();
  await gw?.close();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw ledger or trace file with the run-to-run fields masked, one string per line (key order kept). */
function masked(file: string, mask: Record<string, (v: any) => unknown>): string[] {
  return readFileSync(join(gw.ledgerDir, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const o = JSON.parse(l);
      for (const [k, f] of Object.entries(mask)) if (k in o) o[k] = f(o[k]);
      // the stub stamps its answers with the time (also inside a half event kept as text)
      return JSON.stringify(o)
        .replace(/"(created|created_at)":\d+/g, '"$1":0')
        .replace(/\\"(created|created_at)\\":\d+/g, '\\"$1\\":0');
    });
}
const ms = (v: unknown) => (typeof v === 'number' && v >= 0 ? 'ms' : v);
const ledgerMask = {
  time: (v: string) => (/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(v) ? 'T' : v),
  callId: (v: string) => (/^call_[0-9a-f]{6}[0-9a-z]+$/.test(v) ? 'C' : v),
  latencyMs: ms,
  firstByteMs: ms,
};
const traceMask = { time: ledgerMask.time, callId: ledgerMask.callId };

// Written by `UPDATE_LEDGER_LINES=1 npx vitest run test/gateway/ledger-lines.test.ts`; a change to it is a change to
// the ledger's format, which its readers (grading, reports) see.
const EXPECTED = new URL('./ledger-lines.expected.json', import.meta.url);
const UPDATE = process.env.UPDATE_LEDGER_LINES === '1';
const expected: Record<string, string[]> = UPDATE ? {} : JSON.parse(readFileSync(EXPECTED, 'utf8'));

/** The lines of `file` (masked) are the pinned ones under `name`. */
function pinned(name: string, file: string, mask: Record<string, (v: any) => unknown>) {
  const got = masked(file, mask);
  if (UPDATE) {
    expected[name] = got;
    writeFileSync(EXPECTED, `${JSON.stringify(expected, null, 1)}\n`);
  } else expect(got, name).toEqual(expected[name]);
}

/** Waits until the case's ledger has n lines (a hung-up caller's line is written after the caller has gone). */
async function lines(caseId: string, n: number) {
  await vi.waitUntil(() => gw.ledgerFor(caseId, 1).length >= n, UNTIL);
}

/** Waits until the stub has received one more request than `before` (the call is upstream, not on its way). */
const upstream = (before: number) => vi.waitUntil(() => stub.requests.length > before, UNTIL);

test('every way a call ends writes the same ledger line as before, and the trace line beside it', async () => {
  const c = gw.registerCase({ caseId: 'pin', trial: 1, budgets });
  const auth = { authorization: `Bearer ${c.token}` };
  const sock = { socketPath: gw.socketPath };
  const post = (body: unknown, path = '/v1/chat/completions') => request(sock, 'POST', path, body, auth);
  expect((await post({}, '/v1/files')).status).toBe(404);
  expect((await post('{not json')).status).toBe(400);
  expect((await post('[]')).status).toBe(400);
  expect((await post(`{"a":${'['.repeat(300)}${']'.repeat(300)}}`)).status).toBe(400);
  expect((await post(chat('x'.repeat(5000)))).status).toBe(413);
  expect((await post(chat('ok'))).status).toBe(200);
  expect((await post(chat('bad'))).status).toBe(400);
  expect((await post(chat('down'))).status).toBe(500);
  expect((await post(chat('mal'))).status).toBe(502);
  expect((await post(chat('cut'))).status).toBe(502);
  expect((await post(chat('stream', { stream: true }))).complete).toBe(true);
  expect((await post(chat('strunc', { stream: true }))).complete).toBe(false);
  expect((await post(chat('scut', { stream: true }))).complete).toBe(false);
  expect((await post(chat('smal', { stream: true }))).complete).toBe(false);
  expect((await post({ model: 'x', input: 'rstream', stream: true }, '/v1/responses')).complete).toBe(true);
  expect((await post({ model: 'x', input: 'emb' }, '/v1/embeddings')).status).toBe(200);
  // (the same case on the short-timeout gateway: its lines go to the same ledger file, in order)
  await gw.flush();
  const short = gwShort.registerCase({ caseId: 'pin', trial: 1, budgets });
  const shortAuth = { authorization: `Bearer ${short.token}` };
  expect(
    (await request({ socketPath: gwShort.socketPath }, 'POST', '/v1/chat/completions', chat('hang'), shortAuth)).status,
  ).toBe(504);
  await gwShort.flush();
  // the caller hangs up while the upstream has not answered yet
  const before = stub.requests.length;
  await new Promise<void>((resolve) => {
    const req = http.request({
      socketPath: gw.socketPath,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: auth,
    });
    req.on('error', () => resolve());
    req.end(JSON.stringify(chat('hang')));
    void upstream(before).then(() => {
      req.destroy();
      resolve();
    });
  });
  // the caller hangs up mid-stream
  await new Promise<void>((resolve) => {
    const req = http.request(
      { socketPath: gw.socketPath, method: 'POST', path: '/v1/chat/completions', headers: auth },
      (r) => {
        r.once('data', () => {
          req.destroy();
          resolve();
        });
      },
    );
    req.on('error', () => {});
    req.end(JSON.stringify(chat('cstream', { stream: true })));
  });
  // 19: every call above, the two hang-ups last (their lines are written once the caller has gone).
  await lines('pin', 19);

  const b = gw.registerCase({ caseId: 'pin-budget', trial: 1, budgets: { calls: 0, tokens: null, wallSeconds: null } });
  const over = await request(sock, 'POST', '/v1/chat/completions', chat('ok'), { authorization: `Bearer ${b.token}` });
  expect(over.status).toBe(429);
  const none = await request({ url: gw.tcpUrl! }, 'POST', '/role/generator/v1/chat/completions', chat('ok'));
  expect(none.status).toBe(503);
  await gw.flush();

  pinned('ledger', 'pin.1.jsonl', ledgerMask);
  pinned('budgetLedger', 'pin-budget.1.jsonl', ledgerMask);
  pinned('noModelLedger', '_generator.0.jsonl', ledgerMask);
  pinned('trace', 'pin.1.trace.jsonl', traceMask);
  pinned('budgetTrace', 'pin-budget.1.trace.jsonl', traceMask);
  pinned('noModelTrace', '_generator.0.trace.jsonl', traceMask);
});

test('a call cut short by close() is ledgered gateway_closed', async () => {
  const c = gw.registerCase({ caseId: 'pin-close', trial: 1, budgets });
  const before = stub.requests.length;
  const pending = request({ socketPath: gw.socketPath }, 'POST', '/v1/chat/completions', chat('hang'), {
    authorization: `Bearer ${c.token}`,
  }).catch((e) => e);
  await upstream(before);
  await gw.close();
  await pending;
  pinned('closeLedger', 'pin-close.1.jsonl', ledgerMask);
  pinned('closeTrace', 'pin-close.1.trace.jsonl', traceMask);
});

test("a provider's error inside a 200 stream, the gateway's response.failed and a silent upstream (issue 31)", async () => {
  const own = await startGateway({
    env: {},
    tcp: true,
    ledgerDir: join(dir, 'ledger'),
    roles: { runtime: { baseURL: stub.baseURL, apiKey: 'sk-lines-0123456789', model: 'pinned-model' } },
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    timeoutMs: WAIT_MS,
  });
  try {
    replies.serr = { content: 'one two three', streamError: { message: 'overloaded' } };
    replies.serr400 = { content: 'one two', streamError: { code: 400, type: 'BadRequestError', message: 'too long' } };
    replies.rfailed = { content: 'a b c', streamError: { event: 'response.failed', message: 'model crashed' } };
    replies.rerror = { content: 'a b c', streamError: { code: 'rate_limit_exceeded', message: 'slow down' } };
    replies.rcut = { content: 'a b c d', truncate: 'mid-event' };
    const c = own.registerCase({ caseId: 'pin-stream-error', trial: 1, budgets });
    const post = (body: unknown, path = '/v1/chat/completions') =>
      request({ socketPath: own.socketPath }, 'POST', path, body, { authorization: `Bearer ${c.token}` });
    expect((await post(chat('serr', { stream: true }))).complete).toBe(true);
    expect((await post(chat('serr400', { stream: true }))).complete).toBe(true);
    for (const input of ['rfailed', 'rerror', 'rcut']) await post({ model: 'x', input, stream: true }, '/v1/responses');
    // a caller gone after a quarter of its wall budget (6 s) of silence: the provider's, not the caller's
    const s = own.registerCase({ caseId: 'pin-silent', trial: 1, budgets: { ...budgets, wallSeconds: 6 } });
    const before = stub.requests.length;
    const req = http.request({
      socketPath: own.socketPath,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${s.token}` },
    });
    req.on('error', () => {});
    req.end(JSON.stringify(chat('hang')));
    await upstream(before);
    const t = performance.now();
    await vi.waitUntil(() => performance.now() - t >= 1600, { timeout: WAIT_MS, interval: 20 });
    req.destroy();
    await vi.waitUntil(() => own.ledgerFor('pin-silent', 1).length === 1, UNTIL);
    await own.flush();
  } finally {
    await own.close();
  }
  pinned('streamErrorLedger', 'pin-stream-error.1.jsonl', ledgerMask);
  pinned('streamErrorTrace', 'pin-stream-error.1.trace.jsonl', traceMask);
  pinned('silentLedger', 'pin-silent.1.jsonl', ledgerMask);
});
