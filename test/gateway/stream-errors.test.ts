// A provider's error inside a 200 stream, and a provider gone silent, through the real gateway over HTTP with the
// real openai SDK as the client (issue 31): the ledger says whose fault it was — the provider's unless the error
// names the request — and a Responses stream the gateway must end on a provider fault ends with `response.failed`,
// the event Responses clients (Codex CLI among them) act on.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { type StubReply, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import type { Budgets, Gateway } from '../../src/gateway/index.js';
import { startGateway } from '../../src/gateway/index.js';
import { UNTIL, WAIT_MS } from '../helpers/deadlines.js';
import { chat, request } from './helpers.js';

let stub: StubServer;
let gw: Gateway;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-streamerr-'));
});
afterEach(async () => {
  await gw?.close();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A gateway whose own idle timeout never fires here: only a case's wall budget can shorten it. */
async function setup(reply: StubReply, budgets: Budgets = { calls: 10, tokens: null, wallSeconds: null }, retries = 0) {
  stub = await startStubServer({ script: [reply] });
  gw = await startGateway({
    env: {},
    tcp: true,
    ledgerDir: join(dir, 'ledger'),
    roles: { runtime: { baseURL: stub.baseURL, apiKey: 'sk-streamerr-0123456789', model: 'm' } },
    retry: { retries, baseDelayMs: 1, maxDelayMs: 2 },
    timeoutMs: WAIT_MS * 10,
  });
  const c = gw.registerCase({ caseId: 'se', trial: 1, budgets });
  const client = new OpenAI({ baseURL: c.env.OPENAI_BASE_URL, apiKey: c.env.OPENAI_API_KEY, maxRetries: 0 });
  return { c, client };
}

async function drain(stream: AsyncIterable<any>): Promise<{ text: string; error: any }> {
  let text = '';
  try {
    for await (const ev of stream) text += ev.choices?.[0]?.delta?.content ?? ev.delta ?? '';
    return { text, error: null };
  } catch (error) {
    return { text, error };
  }
}

/** The `data:` payloads of a raw SSE body with their event names. */
function events(body: string): { event: string | null; data: any }[] {
  return body
    .split('\n\n')
    .filter((raw) => raw.trim() !== '')
    .map((raw) => {
      const lines = raw.split('\n');
      const data = lines.find((l) => l.startsWith('data: '))!.slice(6);
      return { event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null, data: JSON.parse(data) };
    });
}

const ask = { model: 'x', messages: [{ role: 'user' as const, content: 'q' }], stream: true as const };

describe("a provider's error inside a 200 stream", () => {
  test('chat {"error": …} chunk: the SDK throws it; the ledger says provider_failure with the event', async () => {
    const { client } = await setup({ content: 'one two three four', streamError: { message: 'overloaded' } });
    const { text, error } = await drain(await client.chat.completions.create(ask));
    expect(text).toBe('one two ');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.message).toContain('overloaded');
    await ledgered();
    expect(gw.ledgerFor('se', 1)).toEqual([
      expect.objectContaining({
        status: 200,
        stream: true,
        classification: 'provider_failure',
        error: 'upstream_stream_error',
        truncated: false,
        upstreamError: { event: 'error', code: 'server_error', type: 'server_error', message: 'overloaded' },
      }),
    ]);
  });

  test('the SDK drops the connection on the error chunk before the provider ends its stream: still the provider’s', async () => {
    const { client } = await setup({
      content: 'one two three four',
      streamError: { message: 'overloaded', hold: true },
    });
    const { error } = await drain(await client.chat.completions.create(ask));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    await ledgered();
    expect(gw.ledgerFor('se', 1)[0]).toMatchObject({
      classification: 'provider_failure',
      error: 'upstream_stream_error',
      upstreamError: { message: 'overloaded' },
    });
  });

  test('an error chunk that names the request (vLLM: code 400) stays the caller’s: candidate_request_error', async () => {
    const { client } = await setup({
      content: 'one two',
      streamError: { code: 400, type: 'BadRequestError', message: 'prompt too long' },
    });
    const { error } = await drain(await client.chat.completions.create(ask));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    await ledgered();
    expect(gw.ledgerFor('se', 1)[0]).toMatchObject({
      classification: 'candidate_request_error',
      error: 'upstream_stream_error',
      upstreamError: { code: '400' },
    });
  });

  test("responses: the provider's response.failed is passed on as it is; the SDK's final response is failed", async () => {
    const { client } = await setup({
      content: 'alpha beta gamma',
      streamError: { event: 'response.failed', code: 'server_error', message: 'model crashed' },
    });
    const final = await client.responses.stream({ model: 'x', input: 'q' }).finalResponse();
    expect(final).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'model crashed' } });
    await ledgered();
    expect(gw.ledgerFor('se', 1)[0]).toMatchObject({
      status: 200,
      classification: 'provider_failure',
      error: 'upstream_stream_error',
      upstreamError: { event: 'response.failed', code: 'server_error', message: 'model crashed' },
    });
  });

  test('responses: a bare error event is followed by the response.failed Responses clients act on', async () => {
    const { c, client } = await setup({ content: 'alpha beta gamma', streamError: { code: 'rate_limit_exceeded' } });
    const r = await request(
      { url: gw.tcpUrl! },
      'POST',
      '/v1/responses',
      { model: 'x', input: 'q', stream: true },
      {
        authorization: `Bearer ${c.token}`,
      },
    );
    const evs = events(r.body);
    const [err, failed] = evs.slice(-2);
    expect(err).toMatchObject({ event: 'error', data: { type: 'error', code: 'rate_limit_exceeded' } });
    expect(failed).toEqual({
      event: 'response.failed',
      data: expect.objectContaining({
        type: 'response.failed',
        sequence_number: err!.data.sequence_number + 1,
        response: expect.objectContaining({
          id: evs[0]!.data.response.id,
          status: 'failed',
          error: { code: 'rate_limit_exceeded', message: err!.data.message },
        }),
      }),
    });
    expect(r.complete).toBe(true); // the provider ended the stream; the gateway added its event and ended it too
    expect(gw.ledgerFor('se', 1)[0]).toMatchObject({
      classification: 'provider_failure',
      error: 'upstream_stream_error',
    });
    // the real SDK, on the same stream, rejects rather than handing over a half answer as final
    await expect(client.responses.stream({ model: 'x', input: 'q' }).finalResponse()).rejects.toMatchObject({
      code: 'rate_limit_exceeded',
    });
  });
});

describe('a silent provider and the case wall budget', () => {
  const wall = (wallSeconds: number): Budgets => ({ calls: 10, tokens: null, wallSeconds });

  test("no answer at all: the idle timeout is half the case's wall budget (504 upstream_timeout, not a hang)", async () => {
    // retries allowed, yet a timed-out attempt is not retried: a second silence as long would outlast the wall
    const { client } = await setup({ hang: true }, wall(1), 3);
    const error: any = await client.chat.completions.create({ ...ask, stream: false }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(504);
    expect(error.message).toContain('within 500 ms');
    expect(gw.ledgerFor('se', 1)[0]).toMatchObject({
      classification: 'transport_failure',
      error: 'upstream_timeout',
      attempts: 1,
    });
    expect(stub.requests).toHaveLength(1);
  });

  test('silent mid-stream: the stream ends at half the wall budget with upstream_timeout', async () => {
    const { client } = await setup({ content: 'alpha beta gamma delta', stall: true }, wall(1));
    const { text, error } = await drain(await client.responses.create({ model: 'x', input: 'q', stream: true }));
    expect(text).toBe('alpha beta ');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.code).toBe('upstream_timeout');
    expect(error.message).toContain('silent for 500 ms');
    expect(gw.ledgerFor('se', 1)[0]).toMatchObject({ classification: 'transport_failure', error: 'upstream_timeout' });
  });

  for (const stream of [false, true]) {
    test(`a caller killed while the upstream has been silent for a quarter of the wall: upstream_silent (stream: ${stream})`, async () => {
      // wall 6 s: idle timeout 3 s, silence counted from 1.5 s; the caller goes at 1.6 s, as a wall kill would.
      const { c } = await setup(stream ? { content: 'a b c d', stall: true } : { hang: true }, wall(6));
      const sent = await hangUpAfter(c.token, chat('q', { stream }), 1600);
      await ledgered();
      expect(sent.heard).toBe(stream);
      expect(gw.ledgerFor('se', 1)[0]).toMatchObject({ classification: 'transport_failure', error: 'upstream_silent' });
    });
  }

  test('a caller that hangs up at once, the upstream still working on it, is the caller: client_aborted', async () => {
    const { c } = await setup({ hang: true }, wall(600));
    await hangUpAfter(c.token, chat('q'), 0);
    await ledgered();
    expect(gw.ledgerFor('se', 1)[0]).toMatchObject({
      classification: 'candidate_request_error',
      error: 'client_aborted',
    });
  });
});

/** The SDK throws as soon as it reads the error event; the line follows once the provider has ended the stream. */
const ledgered = () => vi.waitUntil(() => gw.ledgerFor('se', 1).length === 1, UNTIL);

/**
 * Sends a call, waits until the stub has it and `ms` more have passed (the silence the test needs, not a deadline),
 * then hangs up; says whether any of the answer had arrived.
 */
async function hangUpAfter(token: string, body: unknown, ms: number): Promise<{ heard: boolean }> {
  let heard = false;
  const req = http.request(
    {
      socketPath: gw.socketPath,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${token}` },
    },
    (res) => res.on('data', () => (heard = true)),
  );
  req.on('error', () => {});
  req.end(JSON.stringify(body));
  await vi.waitUntil(() => stub.requests.length > 0, UNTIL);
  const t = performance.now();
  await vi.waitUntil(() => performance.now() - t >= ms, { timeout: ms + WAIT_MS, interval: 20 });
  req.destroy();
  return { heard };
}
