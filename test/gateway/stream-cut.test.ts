// An upstream stream cut halfway through an event (a provider or proxy dying mid-write), or carrying an event that
// is not JSON: the caller must never see the half event or the broken one — the openai SDK would throw a
// SyntaxError from JSON.parse — but an OpenAI-shaped error event it surfaces as an APIError, and the ledger says
// whose fault it was (issue 17, item 8).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type StubReply, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, readTrace, startGateway } from '../../src/gateway/index.js';
import { chat, request } from './helpers.js';

const budgets = { calls: 10, tokens: null, wallSeconds: null };
let stub: StubServer;
let gw: Gateway;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-cut-'));
});
afterEach(async () => {
  await gw?.close();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setup(reply: StubReply) {
  stub = await startStubServer({ script: [reply] });
  gw = await startGateway({
    env: {},
    tcp: true,
    ledgerDir: join(dir, 'ledger'),
    roles: { runtime: { baseURL: stub.baseURL, apiKey: 'sk-cut-0123456789', model: 'm' } },
    retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 2 },
  });
  const c = gw.registerCase({ caseId: 'cut', trial: 1, budgets });
  const client = new OpenAI({ baseURL: c.env.OPENAI_BASE_URL, apiKey: c.env.OPENAI_API_KEY, maxRetries: 0 });
  return { c, client };
}

/** What the openai SDK makes of a stream: the text it yielded and the error it threw. */
async function drain(stream: AsyncIterable<any>): Promise<{ text: string; error: unknown }> {
  let text = '';
  try {
    for await (const ev of stream) text += ev.choices?.[0]?.delta?.content ?? ev.delta ?? '';
    return { text, error: null };
  } catch (error) {
    return { text, error };
  }
}

/** Every SSE event of a raw body: each `data:` payload must be whole JSON (or [DONE]); returns them parsed. */
function wellFormedEvents(body: string): { event: string | null; data: any }[] {
  expect(body.endsWith('\n\n'), 'the body ends on an event boundary').toBe(true);
  return body
    .split('\n\n')
    .filter((raw) => raw.trim() !== '')
    .map((raw) => {
      const lines = raw.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null;
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (data === '[DONE]') return { event, data };
      return { event, data: JSON.parse(data) }; // throws on a half event
    });
}

describe('a chat stream cut mid-event', () => {
  for (const [cut, classification, code] of [
    ['mid-event', 'provider_failure', 'stream_truncated'],
    ['mid-event-reset', 'transport_failure', 'upstream_truncated'],
  ] as const) {
    test(`${cut}: the openai client gets an APIError (${code}), never a SyntaxError; the ledger says ${classification}`, async () => {
      const { client } = await setup({ content: 'one two three four five six', truncate: cut });
      const { text, error } = await drain(
        await client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'q' }], stream: true }),
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error).not.toBeInstanceOf(SyntaxError);
      expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe(code);
      expect(text).toBe('one two three '); // what came before the cut, and nothing of the half event
      expect(gw.ledgerFor('cut', 1)[0]).toMatchObject({ stream: true, classification, error: code, truncated: true });
      await gw.flush();
      // the half event is kept as evidence in the trace, not passed on
      expect((readTrace(gw.ledgerDir, 'cut', 1)[0]!.response as any).partial).toMatch(/^data: \{"id":"chatcmpl-stub/);
    });
  }

  test('on the wire: only whole events, the last one an OpenAI-shaped error; then no clean end', async () => {
    const { c } = await setup({ content: 'one two three four five six', truncate: 'mid-event' });
    const r = await request({ url: gw.tcpUrl! }, 'POST', '/v1/chat/completions', chat('q', { stream: true }), {
      authorization: `Bearer ${c.token}`,
    });
    const events = wellFormedEvents(r.body);
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: {
        error: {
          message: expect.stringContaining('incomplete'),
          type: 'server_error',
          param: null,
          code: 'stream_truncated',
        },
      },
    });
    expect(events.slice(0, -1).every((e) => e.data.object === 'chat.completion.chunk')).toBe(true);
    expect(r.complete).toBe(false);
  });

  test('a stream with an event that is not JSON ends at it with a stream_malformed error event', async () => {
    const { c, client } = await setup({ malformed: true });
    const r = await request({ url: gw.tcpUrl! }, 'POST', '/v1/chat/completions', chat('q', { stream: true }), {
      authorization: `Bearer ${c.token}`,
    });
    expect(wellFormedEvents(r.body).at(-1)?.data.error.code).toBe('stream_malformed');
    expect(r.body).not.toContain('broken');
    const { error } = await drain(await client.chat.completions.create({ model: 'x', messages: [], stream: true }));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('stream_malformed');
    expect(gw.ledgerFor('cut', 1)[0]).toMatchObject({ classification: 'provider_failure', error: 'stream_malformed' });
  });
});

describe('a responses-API stream cut mid-event', () => {
  test('the stream ends with response.failed (response.error, the next sequence_number) and the SDK throws', async () => {
    const { c, client } = await setup({ content: 'alpha beta gamma delta', truncate: 'mid-event' });
    const r = await request(
      { url: gw.tcpUrl! },
      'POST',
      '/v1/responses',
      { model: 'x', input: 'q', stream: true },
      {
        authorization: `Bearer ${c.token}`,
      },
    );
    const events = wellFormedEvents(r.body);
    const last = events.at(-1)!;
    const before = events.at(-2)!.data;
    const created = events[0]!.data.response;
    // Codex CLI reads `response.error` of a `response.failed`; the SDKs throw the top-level `error`.
    expect(last.event).toBe('response.failed');
    expect(last.data).toMatchObject({
      type: 'response.failed',
      sequence_number: before.sequence_number + 1,
      response: {
        id: created.id,
        object: 'response',
        status: 'failed',
        error: { code: 'server_error', message: expect.stringContaining('incomplete') },
      },
      error: { code: 'stream_truncated', type: 'server_error' },
    });
    const { text, error } = await drain(await client.responses.create({ model: 'x', input: 'q', stream: true }));
    expect(text).toBe('alpha beta ');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('stream_truncated');
  });
});
