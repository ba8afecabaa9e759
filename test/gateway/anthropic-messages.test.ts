// The Anthropic Messages API through the real gateway, driven by the real `@anthropic-ai/sdk` (pinned in
// test/clients.json, installed outside the repository): against an Anthropic-protocol upstream (passed through, the
// model overwritten) and an OpenAI-compatible one (translated both ways). Upstreams are the stub servers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startAnthropicStub } from '../../fixtures/stub-openai/anthropic.js';
import { type StubScript, type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, type RegisteredCase, readTrace, startGateway } from '../../src/gateway/index.js';
import { importClient } from '../helpers/clients.js';

const sdk = await importClient<any>('anthropic-sdk');
const skip = 'skip' in sdk ? sdk.skip : false;
const Anthropic = 'skip' in sdk ? null : sdk.module.default;

const REAL_KEY = 'sk-ant-real-test-key-0123456789';
const TOOLS = [
  {
    name: 'lookup',
    description: 'Look a word up',
    input_schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  },
];

let stub: StubServer;
let gw: Gateway;
let dir: string;
let reg: RegisteredCase;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gw-anthropic-'));
});
afterEach(async () => {
  await gw?.close();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setup(protocol: 'anthropic' | 'openai', script: StubScript, calls = 100) {
  stub = protocol === 'anthropic' ? await startAnthropicStub({ script }) : await startStubServer({ script });
  gw = await startGateway({
    env: {},
    tcp: true,
    ledgerDir: join(dir, 'ledger'),
    roles: { runtime: { baseURL: stub.baseURL, apiKey: REAL_KEY, model: 'fixed-model', protocol } },
    retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 5 },
  });
  reg = gw.registerCase({ caseId: 'c1', trial: 1, budgets: { calls, tokens: 1_000_000, wallSeconds: 600 } });
  // The client reads exactly what a sandbox gets: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY.
  return new Anthropic({ baseURL: reg.env.ANTHROPIC_BASE_URL, apiKey: reg.env.ANTHROPIC_API_KEY, maxRetries: 0 });
}

const ledger = async () => {
  await gw.flush();
  return gw.ledgerFor('c1', 1);
};

/** A tool call, then the final answer once the tool's result is sent back: the loop every agent runs. */
async function toolLoop(client: any, stream: boolean) {
  const first = {
    model: 'claude-client-choice',
    max_tokens: 256,
    system: 'You look words up.',
    tools: TOOLS,
    messages: [{ role: 'user', content: 'What is a gnu?' }],
  };
  const ask = (p: any) => (stream ? client.messages.stream(p).finalMessage() : client.messages.create(p));
  const a = await ask(first);
  const use = a.content.find((b: any) => b.type === 'tool_use');
  const second = {
    ...first,
    messages: [
      ...first.messages,
      { role: 'assistant', content: a.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id, content: 'an antelope' }] },
    ],
  };
  const b = await ask(second);
  return { a, b, first, second };
}

const script: StubScript = [
  { toolCalls: [{ name: 'lookup', arguments: { word: 'gnu' } }], usage: { input_tokens: 30, output_tokens: 5 } },
  { content: 'A gnu is an antelope.', usage: { input_tokens: 40, output_tokens: 6 } },
];

describe.skipIf(skip)(`@anthropic-ai/sdk through /v1/messages ${skip ? `(${skip})` : ''}`, () => {
  describe('an Anthropic-protocol upstream', () => {
    test.each([false, true])(
      'a tool call then a final answer (stream: %s); the upstream sees the client request but the model',
      async (stream) => {
        const cached: StubScript = [
          { ...script[0]!, usage: { input_tokens: 30, output_tokens: 5, cache_read_input_tokens: 100 } as any },
          script[1]!,
        ];
        const client = await setup('anthropic', cached);
        const { a, b, first, second } = await toolLoop(client, stream);
        expect(a.stop_reason).toBe('tool_use');
        expect(a.content.find((x: any) => x.type === 'tool_use')).toMatchObject({
          name: 'lookup',
          input: { word: 'gnu' },
        });
        expect(b.content[0]).toMatchObject({ type: 'text', text: 'A gnu is an antelope.' });
        const strip = (x: any) => ({ ...x, model: 'fixed-model', ...(stream ? { stream: true } : {}) });
        expect(stub.requests[0]).toEqual(strip(first));
        expect(stub.requests[1]).toEqual(JSON.parse(JSON.stringify(strip(second))));
        const heard = stub.calls.filter((c) => c.path === '/v1/messages');
        expect(heard.map((c) => c.headers['x-api-key'])).toEqual([REAL_KEY, REAL_KEY]);
        expect(heard[0]!.headers.authorization).toBeUndefined();
        expect(heard[0]!.headers['anthropic-version']).toBe('2023-06-01');
        const lines = await ledger();
        expect(lines.map((l) => [l.endpoint, l.classification, l.model, l.requestedModel, l.stream])).toEqual([
          ['messages', 'success', 'fixed-model', 'claude-client-choice', stream],
          ['messages', 'success', 'fixed-model', 'claude-client-choice', stream],
        ]);
        expect(lines[0]!.usage).toEqual({
          promptTokens: 130,
          completionTokens: 5,
          totalTokens: 135,
          cacheReadTokens: 100,
          cacheWriteTokens: 0,
        });
        expect(gw.usage('c1', 1)).toEqual({ calls: 2, tokens: 135 + 46 });
      },
    );

    test('count_tokens is forwarded and charges no tokens', async () => {
      const client = await setup('anthropic', []);
      const n = await client.messages.countTokens({ model: 'x', messages: [{ role: 'user', content: 'hello there' }] });
      expect(n.input_tokens).toBeGreaterThan(0);
      const [line] = await ledger();
      expect(line).toMatchObject({
        endpoint: 'messages.count_tokens',
        classification: 'success',
        model: 'fixed-model',
      });
      expect(gw.usage('c1', 1).tokens).toBe(0);
    });

    test("an in-stream provider error and a provider 500 are the provider's failures; the client sees an error", async () => {
      const client = await setup('anthropic', [{ streamError: { type: 'overloaded_error' } }, { status: 500 }]);
      const params = { model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
      await expect(client.messages.stream(params).finalMessage()).rejects.toThrow(/Overloaded/);
      await expect(client.messages.create(params)).rejects.toMatchObject({ status: 500 });
      const lines = await ledger();
      expect(lines.map((l) => [l.classification, l.error])).toEqual([
        ['provider_failure', 'upstream_stream_error'],
        ['provider_failure', 'upstream_500'],
      ]);
      expect(lines[0]!.upstreamError).toMatchObject({ type: 'overloaded_error', message: 'Overloaded' });
      expect(lines[1]!.attempts).toBe(2);
    });

    test("a stream cut before message_stop ends with the gateway's Anthropic error event; a 400 stays the caller's", async () => {
      const bad = {
        status: 400,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: required' } },
      };
      const client = await setup('anthropic', [{ content: 'one two three four', truncate: true }, bad]);
      const params = { model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
      let text = '';
      const s = client.messages.stream(params).on('text', (t: string) => {
        text += t;
      });
      await expect(s.finalMessage()).rejects.toThrow(/the reply is incomplete/);
      expect(text).toBe('one two ');
      const err = await client.messages.create(params).catch((e: any) => e);
      expect(err.status).toBe(400);
      expect(err.error.error.message).toBe('max_tokens: required');
      expect((await ledger()).map((l) => [l.classification, l.error, l.truncated])).toEqual([
        ['provider_failure', 'stream_truncated', true],
        ['candidate_request_error', 'upstream_400', false],
      ]);
    });

    test('a call budget stops a looping client with a 429 it does not retry', async () => {
      const client = await setup('anthropic', [{ content: 'again' }], 2);
      const params = { model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'loop' }] };
      let answered = 0;
      const stopped = await (async () => {
        for (;;) {
          try {
            await client.messages.create(params);
            answered++;
          } catch (err) {
            return err as any;
          }
        }
      })();
      expect(answered).toBe(2);
      expect(stopped.status).toBe(429);
      expect(stopped.error).toMatchObject({
        type: 'error',
        error: { type: 'rate_limit_error', code: 'budget_exceeded' },
      });
      expect(stub.requests).toHaveLength(2);
      expect((await ledger()).map((l) => l.error)).toEqual([null, null, 'budget_exceeded']);
    });
  });

  describe('an OpenAI-compatible upstream (translated)', () => {
    test.each([false, true])('a tool call then a final answer (stream: %s)', async (stream) => {
      const chatScript: StubScript = [
        {
          toolCalls: [{ name: 'lookup', arguments: { word: 'gnu' }, id: 'call_1' }],
          usage: { prompt_tokens: 30, completion_tokens: 5 },
        },
        { content: 'A gnu is an antelope.', usage: { prompt_tokens: 40, completion_tokens: 6 } },
      ];
      const client = await setup('openai', chatScript);
      const { a, b } = await toolLoop(client, stream);
      expect(a).toMatchObject({ type: 'message', role: 'assistant', model: 'fixed-model', stop_reason: 'tool_use' });
      expect(a.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'lookup', input: { word: 'gnu' } }]);
      expect(a.usage).toMatchObject({ input_tokens: 30, output_tokens: 5 });
      expect(b).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'A gnu is an antelope.' }] });
      const [r0, r1] = stub.requests;
      expect(stub.calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
        '/v1/chat/completions',
        '/v1/chat/completions',
      ]);
      expect(stub.calls[0]!.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
      expect(r0).toMatchObject({
        model: 'fixed-model',
        max_tokens: 256,
        messages: [
          { role: 'system', content: 'You look words up.' },
          { role: 'user', content: 'What is a gnu?' },
        ],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: TOOLS[0]!.input_schema } }],
      });
      expect(r1.messages.slice(2)).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"word":"gnu"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'an antelope' },
      ]);
      const lines = await ledger();
      expect(lines.map((l) => [l.endpoint, l.classification, l.usage?.totalTokens])).toEqual([
        ['messages', 'success', 35],
        ['messages', 'success', 46],
      ]);
      // the trace keeps both sides as the upstream saw them
      const trace = readTrace(gw.ledgerDir, 'c1', 1);
      expect((trace[0]!.request as any).messages[0].role).toBe('system');
    });

    test('in-stream provider error and a 500: provider failures, Anthropic-shaped for the client', async () => {
      const client = await setup('openai', [{ content: 'one two three four', streamError: true }, { status: 500 }]);
      const params = { model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
      const s = client.messages.stream(params);
      let text = '';
      s.on('text', (t: string) => {
        text += t;
      });
      await expect(s.finalMessage()).rejects.toThrow(/server had an error/);
      expect(text).toBe('one two ');
      const err = await client.messages.create(params).catch((e: any) => e);
      expect(err.status).toBe(500);
      expect(err.error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect((await ledger()).map((l) => [l.classification, l.error])).toEqual([
        ['provider_failure', 'upstream_stream_error'],
        ['provider_failure', 'upstream_500'],
      ]);
    });

    test('a stream cut before its end is a provider failure, never a complete answer', async () => {
      const client = await setup('openai', [{ content: 'one two three four', truncate: true }]);
      const params = { model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
      await expect(client.messages.stream(params).finalMessage()).rejects.toThrow(/incomplete/);
      const [line] = await ledger();
      expect(line).toMatchObject({ classification: 'provider_failure', error: 'stream_truncated', truncated: true });
    });

    test("count_tokens is estimated by the gateway; a server tool is refused as the caller's error", async () => {
      const client = await setup('openai', []);
      const n = await client.messages.countTokens({ model: 'x', messages: [{ role: 'user', content: 'hello there' }] });
      expect(n.input_tokens).toBeGreaterThan(0);
      const bad = { type: 'web_search_20250305', name: 'web_search' };
      const err = await client.messages
        .create({ model: 'm', max_tokens: 5, tools: [bad], messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: any) => e);
      expect(err.status).toBe(400);
      expect(err.error.error.message).toMatch(/tools\[0\] is Anthropic's server tool "web_search_20250305"/);
      expect(stub.requests).toHaveLength(0);
      expect((await ledger()).map((l) => [l.classification, l.error])).toEqual([
        ['candidate_request_error', 'untranslatable_request'],
      ]);
    });
  });
});
