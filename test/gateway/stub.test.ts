import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { WAIT_MS } from '../helpers/deadlines.js';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

function client(s: StubServer) {
  return new OpenAI({ baseURL: s.baseURL, apiKey: 'test', maxRetries: 0, timeout: WAIT_MS });
}

describe('stub OpenAI server', () => {
  test('plain, json and tool-call replies in order, last one repeating; requests recorded', async () => {
    stub = await startStubServer({
      script: [
        { content: 'hello there', usage: { prompt_tokens: 3, completion_tokens: 2 } },
        { json: { a: 1 } },
        { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] },
      ],
    });
    const c = client(stub);
    const r1 = await c.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] });
    expect(r1.choices[0]!.message.content).toBe('hello there');
    expect(r1.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    expect(r1.model).toBe('m1');
    const r2 = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(JSON.parse(r2.choices[0]!.message.content!)).toEqual({ a: 1 });
    const r3 = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const tc = r3.choices[0]!.message.tool_calls![0]! as any;
    expect(tc.function).toEqual({ name: 'lookup', arguments: '{"q":"x"}' });
    expect(r3.choices[0]!.finish_reason).toBe('tool_calls');
    const r4 = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'again' }] });
    expect(r4.choices[0]!.message.tool_calls).toHaveLength(1);
    expect(stub.requests).toHaveLength(4);
    expect(stub.requests[0].model).toBe('m1');
    expect(stub.calls[0]!.headers.authorization).toBe('Bearer test');
  });

  test('streaming chat, chunk by chunk, with usage when asked and [DONE]', async () => {
    stub = await startStubServer({ script: [{ content: 'one two three', stream: { delayMs: 5 } }] });
    const c = client(stub);
    const s = await c.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let usage: unknown = null;
    let finish: string | null = null;
    for await (const chunk of s) {
      if (chunk.usage) usage = chunk.usage;
      const ch = chunk.choices[0];
      if (ch?.delta?.content) pieces.push(ch.delta.content);
      if (ch?.finish_reason) finish = ch.finish_reason;
    }
    expect(pieces).toEqual(['one ', 'two ', 'three']);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
    const raw = await fetch(`${stub.baseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [], stream: true }),
    }).then((r) => r.text());
    expect(raw.trim().endsWith('data: [DONE]')).toBe(true);
  });

  test('responses API plain and streaming, embeddings (float and base64), models', async () => {
    stub = await startStubServer({ script: [{ content: 'resp text' }], models: ['a', 'b'] });
    const c = client(stub);
    const r = await c.responses.create({ model: 'm', input: 'hi' });
    expect(r.output_text).toBe('resp text');
    const s = await c.responses.create({ model: 'm', input: 'hi', stream: true });
    let text = '';
    let completed = false;
    for await (const ev of s) {
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') completed = true;
    }
    expect(text).toBe('resp text');
    expect(completed).toBe(true);
    const e = await c.embeddings.create({ model: 'e', input: ['x', 'y'] });
    expect(e.data).toHaveLength(2);
    expect(e.data[0]!.embedding).toHaveLength(8);
    const ef = await c.embeddings.create({ model: 'e', input: 'x', encoding_format: 'float' });
    expect(ef.data[0]!.embedding[0]).toBeCloseTo(e.data[0]!.embedding[0]!, 5);
    const models = await c.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['a', 'b']);
  });

  test('faults: status, malformed, truncate, hang', async () => {
    stub = await startStubServer({
      script: (_req, i) => {
        if (i === 0) return { status: 500 };
        if (i === 1) return { malformed: true };
        if (i === 2) return { truncate: true, content: 'a b c d' };
        return { hang: true };
      },
    });
    const post = (body: unknown, signal?: AbortSignal) =>
      fetch(`${stub!.baseURL}/chat/completions`, { method: 'POST', body: JSON.stringify(body), signal });
    const r0 = await post({ messages: [] });
    expect(r0.status).toBe(500);
    expect(((await r0.json()) as any).error.message).toMatch(/500/);
    const r1 = await post({ messages: [] });
    expect(r1.status).toBe(200);
    await expect(r1.clone().json()).rejects.toThrow();
    const r2 = await post({ messages: [], stream: true });
    const t2 = await r2.text();
    expect(t2).toContain('"a "');
    expect(t2).not.toContain('[DONE]');
    expect(t2).not.toContain('"finish_reason":"stop"');
    await expect(post({ messages: [] }, AbortSignal.timeout(200))).rejects.toThrow();
  });
});
