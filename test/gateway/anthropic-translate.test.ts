// The translation between Anthropic's Messages API and OpenAI chat, as pure functions: a chat stream cut into any
// chunks becomes a well-formed Anthropic event sequence that assembles to the same text and tool calls, and a
// request's tool turns survive the round of an agent loop.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MessagesStream, toAnthropicMessage } from '../../src/gateway/anthropic-reply.js';
import { TranslationError, toChatRequest } from '../../src/gateway/anthropic-request.js';

type Piece = { kind: 'text'; text: string } | { kind: 'tool'; name: string; args: string[] };

/** Chat chunks for pieces in order (text split as given; a tool call's id and name on its first chunk only). */
function chatChunks(pieces: Piece[]): unknown[] {
  const out: unknown[] = [];
  let tool = 0;
  for (const p of pieces) {
    if (p.kind === 'text') out.push({ choices: [{ delta: { content: p.text } }] });
    else {
      const index = tool++;
      p.args.forEach((a, i) => {
        const fn = i === 0 ? { name: p.name, arguments: a } : { arguments: a };
        out.push({
          choices: [{ delta: { tool_calls: [{ index, ...(i === 0 ? { id: `call_${index}` } : {}), function: fn }] } }],
        });
      });
    }
  }
  out.push({ choices: [{ delta: {}, finish_reason: tool ? 'tool_calls' : 'stop' }] });
  out.push({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } });
  out.push('[DONE]');
  return out;
}

function parseEvents(sse: string): any[] {
  return sse
    .split('\n\n')
    .filter((e) => e.trim())
    .map((e) => {
      const [ev, data] = e.split('\n');
      const obj = JSON.parse(data!.slice('data: '.length));
      expect(ev).toBe(`event: ${obj.type}`);
      return obj;
    });
}

const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({
    kind: fc.constant('tool' as const),
    name: fc.constantFrom('lookup', 'edit'),
    args: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }),
  }),
);

describe('chat stream → Anthropic events', () => {
  test('any chunking assembles to the same blocks, in a well-formed sequence ending in message_stop', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const t = new MessagesStream('m', 'msg_1');
        const events = parseEvents(
          chatChunks(pieces)
            .map((c) => t.push(c))
            .join('') + t.finish(),
        );
        expect(events[0].type).toBe('message_start');
        expect(events.at(-1).type).toBe('message_stop');
        const delta = events.at(-2);
        expect(delta).toMatchObject({ type: 'message_delta', usage: { input_tokens: 11, output_tokens: 7 } });
        const hasTool = pieces.some((p) => p.kind === 'tool');
        expect(delta.delta.stop_reason).toBe(hasTool ? 'tool_use' : 'end_turn');
        const blocks: any[] = [];
        let open: number | null = null;
        for (const e of events.slice(1, -2)) {
          if (e.type === 'content_block_start') {
            expect(open).toBeNull();
            expect(e.index).toBe(blocks.length);
            open = e.index;
            blocks.push(e.content_block.type === 'text' ? { text: '' } : { name: e.content_block.name, args: '' });
          } else if (e.type === 'content_block_delta') {
            expect(e.index).toBe(open);
            if (e.delta.type === 'text_delta') blocks[e.index].text += e.delta.text;
            else blocks[e.index].args += e.delta.partial_json;
          } else {
            expect(e).toEqual({ type: 'content_block_stop', index: open });
            open = null;
          }
        }
        expect(open).toBeNull();
        // adjacent text pieces are one text block, as Anthropic streams them
        const want: any[] = [];
        for (const p of pieces) {
          if (p.kind === 'tool') want.push({ name: p.name, args: p.args.join('') });
          else if (want.length && 'text' in want.at(-1)) want.at(-1).text += p.text;
          else want.push({ text: p.text });
        }
        expect(blocks).toEqual(want);
      }),
    );
  });

  test("the provider's error chunk is an Anthropic error event and nothing follows it", () => {
    const t = new MessagesStream('m', 'msg_1');
    const first = parseEvents(t.push({ choices: [{ delta: { content: 'hi' } }] }));
    const err = parseEvents(t.push({ error: { message: 'boom', type: 'server_error', code: 'server_error' } }));
    expect(first.map((e) => e.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(err).toEqual([{ type: 'error', error: { type: 'api_error', message: 'boom', code: 'server_error' } }]);
    expect(t.push('[DONE]') + t.finish()).toBe('');
  });
});

describe('Anthropic request → chat request', () => {
  test('system, tool_use and tool_result turns, tools and tool_choice', () => {
    const chat = toChatRequest({
      model: 'fixed',
      max_tokens: 9,
      system: [{ type: 'text', text: 'Be brief.' }],
      stop_sequences: ['END'],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Calling.' },
            { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'nope' }], is_error: true },
            { type: 'text', text: 'try again' },
          ],
        },
      ],
    });
    expect(chat).toEqual({
      model: 'fixed',
      max_tokens: 9,
      stop: ['END'],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'Calling.',
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: 'Error: nope' },
        { role: 'user', content: 'try again' },
      ],
    });
  });

  test('a system turn inside messages (Claude Code sends one) is a chat system message where it stands', () => {
    const chat = toChatRequest({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'Mind the date.' }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Mind the date.' },
    ]);
  });

  test('a field chat cannot carry is refused naming it', () => {
    expect(() => toChatRequest({ messages: [{ role: 'user', content: [{ type: 'document' }] }] })).toThrow(
      new TranslationError('messages[0].content[0].type "document" has no OpenAI chat equivalent'),
    );
    expect(() => toChatRequest({ messages: 'hi' })).toThrow(/messages must be an array/);
  });

  test('a completion with broken tool arguments keeps them whole', () => {
    const m = toAnthropicMessage(
      {
        id: 'x',
        choices: [
          {
            finish_reason: 'tool_calls',
            message: { tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{"a":' } }] },
          },
        ],
      },
      'm',
    );
    expect(m.content).toEqual([{ type: 'tool_use', id: 'c', name: 'f', input: { arguments: '{"a":' } }]);
    expect(m.stop_reason).toBe('tool_use');
  });
});
