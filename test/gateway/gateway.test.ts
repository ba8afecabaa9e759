import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { type StubScript, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import {
  type Gateway,
  type GatewayOptions,
  readLedger,
  readTrace,
  roleConfigFromEnv,
  startGateway,
} from '../../src/gateway/index.js';
import { UNTIL, WAIT_MS } from '../helpers/deadlines.js';
import { chat, request } from './helpers.js';

const REAL_KEY = 'sk-real-test-key-0123456789abcdef';
const budgets = { calls: 100, tokens: 1_000_000, wallSeconds: 600 };

let stub: StubServer;
let gw: Gateway;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
});
afterEach(async () => {
  await gw?.close();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setup(script: StubScript, options: Partial<GatewayOptions> = {}) {
  stub = await startStubServer({ script });
  gw = await startGateway({
    env: {},
    ledgerDir: join(dir, 'ledger'),
    roles: {
      runtime: {
        baseURL: stub.baseURL,
        apiKey: REAL_KEY,
        model: 'fixed-runtime-model',
        embeddingModel: 'fixed-embedding-model',
      },
    },
    retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 },
    // An upstream idle timeout only the tests of timeouts set short: a busy machine must not make the stub "silent".
    timeoutMs: WAIT_MS,
    ...options,
  });
  return gw;
}

const sock = () => ({ socketPath: gw.socketPath });

describe('gateway over its Unix socket', () => {
  test('overwrites the model, swaps the placeholder key for the real one, ledgers usage and trace', async () => {
    await setup([{ content: 'hello', usage: { prompt_tokens: 7, completion_tokens: 3 } }]);
    const c = gw.registerCase({ caseId: 'case-1', trial: 1, budgets });
    expect(c.token).toMatch(/^heldout-/);
    expect(c.env.OPENAI_API_KEY).toBe(c.token);
    expect(JSON.stringify(c.env)).not.toContain(REAL_KEY);

    const r = await request(sock(), 'POST', '/v1/chat/completions', chat(), { authorization: `Bearer ${c.token}` });
    expect(r.status).toBe(200);
    expect(r.json.choices[0].message.content).toBe('hello');
    expect(r.json.model).toBe('fixed-runtime-model');
    expect(stub.requests[0].model).toBe('fixed-runtime-model');
    expect(stub.calls[0]!.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
    expect(r.headers['x-heldout-call-id']).toMatch(/^call_/);

    // attribution by path works too
    const r2 = await request(sock(), 'POST', `/case/${c.token}/v1/chat/completions`, chat('again'));
    expect(r2.status).toBe(200);

    const ledger = readLedger(gw.ledgerDir, 'case-1', 1);
    expect(ledger).toHaveLength(2);
    expect(ledger[0]).toMatchObject({
      role: 'runtime',
      case: 'case-1',
      trial: 1,
      endpoint: 'chat.completions',
      model: 'fixed-runtime-model',
      requestedModel: 'whatever-the-agent-wants',
      status: 200,
      classification: 'success',
      attempts: 1,
      truncated: false,
      usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 },
    });
    expect(typeof ledger[0]!.latencyMs).toBe('number');
    expect(typeof ledger[0]!.time).toBe('string');
    expect(gw.ledgerFor('case-1', 1)).toEqual(ledger);
    expect(gw.usage('case-1', 1)).toEqual({ calls: 2, tokens: 20 });

    await gw.flush();
    const trace = readTrace(gw.ledgerDir, 'case-1', 1);
    expect(trace).toHaveLength(2);
    expect((trace[0]!.request as any).messages[0].content).toBe('hi');
    expect((trace[0]!.response as any).choices[0].message.content).toBe('hello');
    const files = readFileSync(join(gw.ledgerDir, 'case-1.1.trace.jsonl'), 'utf8');
    expect(files).not.toContain(REAL_KEY);
  });

  test('refuses calls without a case, with an unknown token, and /role/ paths', async () => {
    await setup([{ content: 'x' }], { tcp: true });
    expect((await request(sock(), 'POST', '/v1/chat/completions', chat())).status).toBe(401);
    const bad = await request(sock(), 'POST', '/v1/chat/completions', chat(), {
      authorization: 'Bearer heldout-nope12345',
    });
    expect(bad.status).toBe(401);
    expect(bad.json.error.code).toBe('unknown_case_token');
    const role = await request(sock(), 'POST', '/role/judge/v1/chat/completions', chat());
    expect(role.status).toBe(403);
    expect(stub.requests).toHaveLength(0);
  });

  test('budget: calls over budget get 429 budget_exceeded, and tokens too', async () => {
    await setup([{ content: 'x', usage: { prompt_tokens: 40, completion_tokens: 10 } }]);
    const a = gw.registerCase({ caseId: 'calls', trial: 1, budgets: { calls: 2, tokens: null, wallSeconds: null } });
    const auth = { authorization: `Bearer ${a.token}` };
    expect((await request(sock(), 'POST', '/v1/chat/completions', chat(), auth)).status).toBe(200);
    expect((await request(sock(), 'POST', '/v1/chat/completions', chat(), auth)).status).toBe(200);
    const over = await request(sock(), 'POST', '/v1/chat/completions', chat(), auth);
    expect(over.status).toBe(429);
    expect(over.json.error.code).toBe('budget_exceeded');
    expect(over.json.error.message).toMatch(/call budget of 2/);
    expect(over.headers['x-should-retry']).toBe('false');
    expect(stub.requests).toHaveLength(2);
    const l = gw.ledgerFor('calls', 1);
    expect(l.map((e) => [e.status, e.classification, e.error])).toEqual([
      [200, 'success', null],
      [200, 'success', null],
      [429, 'candidate_request_error', 'budget_exceeded'],
    ]);

    const b = gw.registerCase({ caseId: 'tokens', trial: 2, budgets: { calls: 100, tokens: 120, wallSeconds: 600 } });
    const authB = { authorization: `Bearer ${b.token}` };
    for (let i = 0; i < 3; i++)
      expect((await request(sock(), 'POST', '/v1/chat/completions', chat(), authB)).status).toBe(200);
    expect(gw.usage('tokens', 2)).toEqual({ calls: 3, tokens: 150 });
    const overT = await request(sock(), 'POST', '/v1/chat/completions', chat(), authB);
    expect(overT.status).toBe(429);
    expect(overT.json.error.message).toMatch(/token budget of 120/);

    // The wall budget counts from the first call: waiting in the queue before it costs nothing.
    const w = gw.registerCase({ caseId: 'wall', trial: 1, budgets: { calls: 100, tokens: null, wallSeconds: 0.05 } });
    await new Promise((r) => setTimeout(r, 80));
    const wAuth = { authorization: `Bearer ${w.token}` };
    expect((await request(sock(), 'POST', '/v1/chat/completions', chat(), wAuth)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 80));
    const overW = await request(sock(), 'POST', '/v1/chat/completions', chat(), wAuth);
    expect(overW.status).toBe(429);
    expect(overW.json.error.message).toMatch(/wall-time/);
  });

  test('upstream 500s are retried, then classified provider_failure; a 500 then 200 is a success', async () => {
    await setup((_req, i) => (i < 3 ? { status: 500 } : i === 3 ? { status: 503 } : { content: 'recovered' }));
    const c = gw.registerCase({ caseId: 'flaky', trial: 1, budgets });
    const auth = { authorization: `Bearer ${c.token}` };
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat(), auth);
    expect(r.status).toBe(500);
    expect(r.headers['x-should-retry']).toBe('false');
    expect(stub.requests).toHaveLength(3); // 1 + 2 retries
    const r2 = await request(sock(), 'POST', '/v1/chat/completions', chat(), auth);
    expect(r2.status).toBe(200);
    expect(r2.json.choices[0].message.content).toBe('recovered');
    const l = readLedger(gw.ledgerDir, 'flaky', 1);
    expect(l[0]).toMatchObject({ status: 500, upstreamStatus: 500, classification: 'provider_failure', attempts: 3 });
    expect(l[1]).toMatchObject({ status: 200, classification: 'success', attempts: 2 });
    expect(gw.usage('flaky', 1).calls).toBe(2); // budgets count the case's calls, not the gateway's retries
  });

  test('4xx from upstream is the candidate request error and is not retried', async () => {
    await setup([{ status: 400, body: { error: { message: 'bad messages', type: 'invalid_request_error' } } }]);
    const c = gw.registerCase({ caseId: 'bad', trial: 1, budgets });
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat(), { authorization: `Bearer ${c.token}` });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe('bad messages');
    expect(stub.requests).toHaveLength(1);
    expect(gw.ledgerFor('bad', 1)[0]).toMatchObject({ classification: 'candidate_request_error', attempts: 1 });
    const nj = await request(sock(), 'POST', '/v1/chat/completions', '{not json', {
      authorization: `Bearer ${c.token}`,
    });
    expect(nj.status).toBe(400);
    expect(nj.json.error.code).toBe('invalid_json');
    const ep = await request(sock(), 'POST', '/v1/files', {}, { authorization: `Bearer ${c.token}` });
    expect(ep.status).toBe(404);
    expect(gw.ledgerFor('bad', 1).map((e) => e.classification)).toEqual([
      'candidate_request_error',
      'candidate_request_error',
      'candidate_request_error',
    ]);
  });

  test('a hanging upstream is a transport_failure after the timeout (retried first)', async () => {
    await setup([{ hang: true }], { timeoutMs: 150, retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 10 } });
    const c = gw.registerCase({ caseId: 'hang', trial: 1, budgets });
    const t0 = performance.now();
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat(), { authorization: `Bearer ${c.token}` });
    const took = performance.now() - t0;
    expect(r.status).toBe(504);
    expect(r.json.error.code).toBe('upstream_timeout');
    // Both attempts waited out the idle timeout (how much longer it took is the machine's business, not the test's).
    expect(took).toBeGreaterThanOrEqual(300);
    expect(stub.requests).toHaveLength(2);
    expect(gw.ledgerFor('hang', 1)[0]).toMatchObject({
      classification: 'transport_failure',
      error: 'upstream_timeout',
      attempts: 2,
      status: 504,
    });
  });

  test('unreachable upstream is a transport_failure', async () => {
    await setup([{ content: 'x' }]);
    await stub.close();
    await gw.close();
    gw = await startGateway({
      env: {},
      ledgerDir: join(dir, 'l2'),
      roles: { runtime: { baseURL: stub.baseURL, model: 'm' } },
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const c = gw.registerCase({ caseId: 'down', trial: 1, budgets });
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat(), { authorization: `Bearer ${c.token}` });
    expect(r.status).toBe(502);
    expect(gw.ledgerFor('down', 1)[0]).toMatchObject({
      classification: 'transport_failure',
      error: 'upstream_unreachable',
      attempts: 2,
    });
  });

  test('malformed JSON and a cut body from upstream', async () => {
    await setup((_r, i) => (i === 0 ? { malformed: true } : { truncate: true, content: 'a b c d e f' }), {
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const c = gw.registerCase({ caseId: 'mal', trial: 1, budgets });
    const auth = { authorization: `Bearer ${c.token}` };
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat(), auth);
    expect(r.status).toBe(502);
    expect(r.json.error.code).toBe('upstream_malformed');
    const r2 = await request(sock(), 'POST', '/v1/chat/completions', chat(), auth);
    expect(r2.status).toBe(502);
    expect(r2.json.error.code).toBe('upstream_truncated');
    const l = gw.ledgerFor('mal', 1);
    expect(l[0]).toMatchObject({ classification: 'provider_failure', error: 'upstream_malformed' });
    expect(l[1]).toMatchObject({ classification: 'transport_failure', truncated: true, attempts: 2 });
  });

  test('streams pass through event by event, as they arrive', async () => {
    // Lockstep, not timing: the stub sends content chunk i only once the caller has seen chunk i-1 through the
    // gateway, so a gateway that held chunks back would never finish.
    let seen = 0;
    await setup([
      {
        content: 'alpha beta gamma delta',
        stream: { before: (i) => vi.waitUntil(() => seen >= i, UNTIL).then(() => {}) },
      },
    ]);
    const c = gw.registerCase({ caseId: 'stream', trial: 1, budgets });
    const r = await new Promise<{ status: number; type: string; body: string; complete: boolean }>(
      (resolve, reject) => {
        const req = http.request(
          {
            socketPath: gw.socketPath,
            method: 'POST',
            path: '/v1/chat/completions',
            headers: { authorization: `Bearer ${c.token}` },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (t: string) => {
              body += t;
              seen = (body.match(/"content":"[^"]/g) ?? []).length;
            });
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                type: String(res.headers['content-type']),
                body,
                complete: res.complete,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(chat('s', { stream: true })));
      },
    );
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/event-stream');
    expect(r.complete).toBe(true);
    expect(seen).toBe(4);
    expect(r.body.trim().endsWith('data: [DONE]')).toBe(true);
    // the gateway asked upstream for usage, but the caller did not: the usage-only chunk is not passed on
    expect(stub.requests[0].stream_options).toEqual({ include_usage: true });
    expect(r.body).not.toContain('"usage"');
    const e = gw.ledgerFor('stream', 1)[0]!;
    expect(e).toMatchObject({ stream: true, classification: 'success', truncated: false });
    expect(e.usage!.estimated).toBeUndefined();
    expect(e.usage!.totalTokens).toBeGreaterThan(0);
    expect(e.firstByteMs!).toBeLessThan(e.latencyMs);
    await gw.flush();
    const t = readTrace(gw.ledgerDir, 'stream', 1)[0]!;
    expect((t.response as any).assembled.content).toBe('alpha beta gamma delta');
  });

  test('a truncated stream is flagged in the ledger and the client gets an error, not a clean end', async () => {
    await setup([{ content: 'one two three four five six', truncate: true }]);
    const c = gw.registerCase({ caseId: 'trunc', trial: 1, budgets });
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat('s', { stream: true }), {
      authorization: `Bearer ${c.token}`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toContain('event: error');
    expect(r.body).toContain('stream_truncated');
    expect(r.body).not.toContain('data: [DONE]');
    expect(r.complete).toBe(false);
    expect(gw.ledgerFor('trunc', 1)[0]).toMatchObject({
      truncated: true,
      classification: 'provider_failure',
      error: 'stream_truncated',
    });
  });

  test('an upstream that goes silent mid-stream: transport_failure, truncated, error event to the client', async () => {
    await setup([{ content: 'slow words here', stream: { delayMs: 400 } }], { timeoutMs: 150 });
    const c = gw.registerCase({ caseId: 'silent', trial: 1, budgets });
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat('s', { stream: true }), {
      authorization: `Bearer ${c.token}`,
    });
    expect(r.body).toContain('upstream_timeout');
    expect(r.complete).toBe(false);
    expect(gw.ledgerFor('silent', 1)[0]).toMatchObject({
      classification: 'transport_failure',
      error: 'upstream_timeout',
      truncated: true,
    });
  });

  test('a truncated responses-API stream (no response.completed) is flagged too', async () => {
    await setup([{ content: 'one two three four', truncate: true }]);
    const c = gw.registerCase({ caseId: 'rtrunc', trial: 1, budgets });
    const r = await request(
      sock(),
      'POST',
      '/v1/responses',
      { model: 'x', input: 'q', stream: true },
      {
        authorization: `Bearer ${c.token}`,
      },
    );
    expect(r.body).toContain('response.output_text.delta');
    expect(r.body).toContain('stream_truncated');
    expect(gw.ledgerFor('rtrunc', 1)[0]).toMatchObject({
      endpoint: 'responses',
      truncated: true,
      classification: 'provider_failure',
    });
  });

  test('a caller hanging up mid-stream aborts the upstream call and is ledgered client_aborted', async () => {
    await setup([{ content: 'a b c d e f g h', stream: { delayMs: 100 } }]);
    const c = gw.registerCase({ caseId: 'hangup', trial: 1, budgets });
    await new Promise<void>((resolve) => {
      const req = http.request(
        {
          socketPath: gw.socketPath,
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${c.token}` },
        },
        (r) => {
          r.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', () => {});
      req.end(JSON.stringify(chat('s', { stream: true })));
    });
    await vi.waitUntil(() => gw.ledgerFor('hangup', 1).length > 0, UNTIL);
    expect(gw.ledgerFor('hangup', 1)[0]).toMatchObject({
      classification: 'candidate_request_error',
      error: 'client_aborted',
    });
  });

  test('concurrent calls never exceed the call budget', async () => {
    await setup([{ content: 'x', delayMs: 20 }]);
    const c = gw.registerCase({ caseId: 'burst', trial: 1, budgets: { calls: 5, tokens: null, wallSeconds: null } });
    const all = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(sock(), 'POST', '/v1/chat/completions', chat(), { authorization: `Bearer ${c.token}` }),
      ),
    );
    expect(all.filter((r) => r.status === 200)).toHaveLength(5);
    expect(all.filter((r) => r.status === 429)).toHaveLength(15);
    expect(stub.requests).toHaveLength(5);
    expect(readLedger(gw.ledgerDir, 'burst', 1)).toHaveLength(20);
  });

  test('case ids that are not file-name safe still get their own ledger; close() does not wait on a hanging call', async () => {
    await setup([{ hang: true }]);
    const c = gw.registerCase({ caseId: '../weird/id', trial: 2, budgets });
    const pending = request(sock(), 'POST', '/v1/chat/completions', chat(), {
      authorization: `Bearer ${c.token}`,
    }).catch((e) => e);
    await vi.waitUntil(() => stub.requests.length === 1, UNTIL);
    // close() cuts the hanging call (gateway_closed below) instead of waiting for its upstream timeout.
    await gw.close();
    await pending;
    const l = readLedger(gw.ledgerDir, '../weird/id', 2);
    expect(l).toHaveLength(1);
    expect(l[0]!.case).toBe('../weird/id');
    expect(readFileSync(join(gw.ledgerDir, '.._weird_id.2.jsonl'), 'utf8')).toContain('gateway_closed');
  });

  test('no upstream configured: 503 no_model_configured naming the variable', async () => {
    gw = await startGateway({ env: {}, ledgerDir: join(dir, 'ledger') });
    stub = await startStubServer({});
    const c = gw.registerCase({ caseId: 'none', trial: 1, budgets });
    const r = await request(sock(), 'POST', '/v1/chat/completions', chat(), { authorization: `Bearer ${c.token}` });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe('no_model_configured');
    expect(r.json.error.message).toContain('HELDOUT_RUNTIME_BASE_URL');
    expect(r.json.error.message).toContain('OPENAI_BASE_URL');
    expect(gw.ledgerFor('none', 1)[0]).toMatchObject({ status: 503, error: 'no_model_configured' });
    const m = await request(sock(), 'GET', '/v1/models', undefined, { authorization: `Bearer ${c.token}` });
    expect(m.status).toBe(503);
  });
});

describe('gateway over TCP with the official openai client', () => {
  test('chat, streaming with usage, tool calls, responses, embeddings, models', async () => {
    await setup(
      [
        { content: 'plain' },
        { content: 'streamed reply here', usage: { prompt_tokens: 5, completion_tokens: 4 } },
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { content: 'from responses' },
        { content: 'streamed responses' },
        { embedding: [0.5, 0.25] },
      ],
      { tcp: true },
    );
    const c = gw.registerCase({ caseId: 'sdk', trial: 3, budgets });
    expect(c.env.OPENAI_BASE_URL).toBe(`${gw.tcpUrl}/v1`);
    const client = new OpenAI({ baseURL: c.env.OPENAI_BASE_URL, apiKey: c.env.OPENAI_API_KEY, maxRetries: 0 });
    const r1 = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'q' }] });
    expect(r1.choices[0]!.message.content).toBe('plain');
    const s = await client.chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'q' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: any = null;
    for await (const ch of s) {
      text += ch.choices[0]?.delta?.content ?? '';
      if (ch.usage) usage = ch.usage;
    }
    expect(text).toBe('streamed reply here');
    expect(usage).toEqual({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 }); // asked for: passed on
    const r3 = await client.chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    expect((r3.choices[0]!.message.tool_calls![0] as any).function.name).toBe('get_weather');
    const r4 = await client.responses.create({ model: 'gpt-x', input: 'q' });
    expect(r4.output_text).toBe('from responses');
    const rs = await client.responses.create({ model: 'gpt-x', input: 'q', stream: true });
    let rtext = '';
    for await (const ev of rs) if (ev.type === 'response.output_text.delta') rtext += ev.delta;
    expect(rtext).toBe('streamed responses');
    const e = await client.embeddings.create({ model: 'emb', input: 'x' });
    expect(e.data[0]!.embedding).toEqual([0.5, 0.25]);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fixed-runtime-model', 'fixed-embedding-model']);

    const l = gw.ledgerFor('sdk', 3);
    expect(l.map((x) => x.endpoint)).toEqual([
      'chat.completions',
      'chat.completions',
      'chat.completions',
      'responses',
      'responses',
      'embeddings',
    ]);
    // embeddings go with the role's embedding model: a provider refuses a chat model there
    const models5 = [...Array(5).fill('fixed-runtime-model'), 'fixed-embedding-model'];
    expect(l.every((x) => x.classification === 'success')).toBe(true);
    expect(l.map((x) => x.model)).toEqual(models5);
    expect(stub.requests.map((b) => b.model)).toEqual(models5);
    expect(l[4]!.usage!.estimated).toBeUndefined(); // from response.completed
  });

  test('the openai client sees a truncated stream as an error, and a budget refusal as a 429 it does not retry', async () => {
    await setup([{ content: 'a b c d', truncate: true }, { content: 'fine' }], { tcp: true });
    const c = gw.registerCase({ caseId: 'sdk2', trial: 1, budgets: { calls: 2, tokens: null, wallSeconds: null } });
    const client = new OpenAI({ baseURL: c.env.OPENAI_BASE_URL, apiKey: c.env.OPENAI_API_KEY, maxRetries: 2 });
    const s = await client.chat.completions.create({ model: 'x', messages: [], stream: true });
    const consume = async () => {
      for await (const _ of s) {
        // drain
      }
    };
    await expect(consume()).rejects.toThrow(/stream_truncated|incomplete|ended before/);
    await client.chat.completions.create({ model: 'x', messages: [] });
    const err = await client.chat.completions.create({ model: 'x', messages: [] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(429);
    expect(err.code).toBe('budget_exceeded');
    expect(gw.ledgerFor('sdk2', 1)).toHaveLength(3); // not retried by the SDK (x-should-retry: false)
  });

  test('evaluator roles on /role/<role>/v1 with their own upstream, ledgered under _<role>', async () => {
    stub = await startStubServer({ script: [{ content: 'verdict: pass' }] });
    gw = await startGateway({
      env: {
        HELDOUT_JUDGE_BASE_URL: stub.baseURL,
        HELDOUT_JUDGE_MODEL: 'judge-model',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      },
      ledgerDir: join(dir, 'ledger'),
      tcp: true,
    });
    const client = new OpenAI({ baseURL: gw.roleBaseURL('judge'), apiKey: 'unused', maxRetries: 0 });
    const r = await client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'grade' }] });
    expect(r.choices[0]!.message.content).toBe('verdict: pass');
    expect(stub.requests[0].model).toBe('judge-model');
    expect(gw.ledgerFor('_judge', 0)[0]).toMatchObject({ role: 'judge', case: '_judge', classification: 'success' });
    // a judge registered per case gets its own token, budgets and the judge's upstream
    const j = gw.registerCase({ caseId: 'c9', trial: 1, role: 'judge', budgets });
    const jc = new OpenAI({ baseURL: `${gw.tcpUrl}/v1`, apiKey: j.token, maxRetries: 0 });
    await jc.chat.completions.create({ model: 'x', messages: [] });
    expect(gw.ledgerFor('c9', 1)[0]).toMatchObject({ role: 'judge', model: 'judge-model' });
  });
});

describe('roleConfigFromEnv', () => {
  test('role variables first, OPENAI_* as fallback, OpenAI base URL when only a key is set', () => {
    const cfg = roleConfigFromEnv({
      OPENAI_BASE_URL: 'http://up/v1/',
      OPENAI_API_KEY: 'k0',
      OPENAI_MODEL: 'm0',
      HELDOUT_JUDGE_MODEL: 'm-judge',
      HELDOUT_USER_BASE_URL: 'http://user/v1',
      HELDOUT_USER_API_KEY: 'k-user',
    });
    expect(cfg.runtime).toEqual({ baseURL: 'http://up/v1', apiKey: 'k0', model: 'm0' });
    expect(cfg.judge).toEqual({ baseURL: 'http://up/v1', apiKey: 'k0', model: 'm-judge' });
    expect(cfg.user).toEqual({ baseURL: 'http://user/v1', apiKey: 'k-user', model: 'm0' });
    expect(roleConfigFromEnv({ OPENAI_API_KEY: 'k' }).generator.baseURL).toBe('https://api.openai.com/v1');
    expect(roleConfigFromEnv({}).runtime).toEqual({});
  });
});
