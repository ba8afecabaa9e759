/**
 * An OpenAI chat-completions answer as the Anthropic Messages API answer its caller asked for: a whole completion as
 * a `message`, and a chat stream as Anthropic's event sequence (`message_start`, per block `content_block_start` /
 * `_delta` / `_stop`, `message_delta` with the stop reason and usage, `message_stop`; the provider's error as an
 * `error` event). Pure; shapes as `@anthropic-ai/sdk`'s `Message` and `RawMessageStreamEvent` name them.
 */
import { anthropicErrorType } from './anthropic-request.js';

type Json = Record<string, any>;

/** Anthropic's stop reason for a chat finish reason. */
export function stopReasonOf(finish: unknown): string {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'tool_calls' || finish === 'function_call') return 'tool_use';
  if (finish === 'content_filter') return 'refusal';
  return 'end_turn';
}

/** Anthropic's usage for a chat usage block: its `input_tokens` leaves out what was read from the cache. */
export function anthropicUsage(u: unknown): Json {
  const o: Json = u && typeof u === 'object' ? (u as Json) : {};
  const prompt = typeof o.prompt_tokens === 'number' ? o.prompt_tokens : 0;
  const cached = typeof o.prompt_tokens_details?.cached_tokens === 'number' ? o.prompt_tokens_details.cached_tokens : 0;
  return {
    input_tokens: Math.max(0, prompt - cached),
    output_tokens: typeof o.completion_tokens === 'number' ? o.completion_tokens : 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

function toolInput(args: unknown): unknown {
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    const v = JSON.parse(args);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v };
  } catch {
    // Anthropic's input is an object: a model's broken JSON is kept whole rather than dropped
    return { arguments: args };
  }
}

/** The `message` for a whole chat completion (its first choice). */
export function toAnthropicMessage(chat: Json, model: string): Json {
  const choice = Array.isArray(chat?.choices) ? (chat.choices[0] ?? {}) : {};
  const msg = choice.message ?? {};
  const content: Json[] = [];
  if (typeof msg.content === 'string' && msg.content !== '') content.push({ type: 'text', text: msg.content });
  for (const tc of Array.isArray(msg.tool_calls) ? msg.tool_calls : []) {
    const name = String(tc?.function?.name ?? '');
    content.push({ type: 'tool_use', id: String(tc?.id ?? ''), name, input: toolInput(tc?.function?.arguments) });
  }
  return {
    id: `msg_${String(chat?.id ?? 'heldout')}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsage(chat?.usage),
  };
}

/** One event of an Anthropic stream, as SSE text (the SDKs dispatch on the `event:` name). */
export function anthropicEvent(data: Json): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The `error` event ending an Anthropic stream (`@anthropic-ai/sdk` throws it as an `APIError`). */
export function anthropicStreamError(type: string, message: string, code?: string | null): string {
  return anthropicEvent({ type: 'error', error: { type, message, ...(code ? { code } : {}) } });
}

/**
 * Turns one chat stream into Anthropic events as its chunks arrive: `push` each parsed chunk (or `[DONE]`), get the
 * events it completes; `finish` once the stream has ended whole gives what is still owed (nothing after an error).
 */
export class MessagesStream {
  private started = false;
  private stopped = false;
  private failed = false;
  private block: { index: number; kind: 'text' | 'tool'; tool?: number } | null = null;
  private nextIndex = 0;
  private stopReason = 'end_turn';
  private usage: Json = anthropicUsage(null);

  constructor(
    private readonly model: string,
    private readonly id: string,
  ) {}

  /** Runs on each upstream chunk (parsed JSON, `[DONE]`, or null for an event without data): its events. */
  push(chunk: unknown): string {
    if (this.failed || this.stopped) return '';
    if (chunk === '[DONE]') return this.finish();
    if (!chunk || typeof chunk !== 'object') return '';
    const c = chunk as Json;
    if (c.error) {
      this.failed = true;
      const e = typeof c.error === 'object' ? c.error : { message: String(c.error) };
      const code = typeof e.code === 'string' || typeof e.code === 'number' ? String(e.code) : null;
      const status = code && /^[45]\d\d$/.test(code) ? Number(code) : e.type === 'invalid_request_error' ? 400 : 500;
      return anthropicStreamError(anthropicErrorType(status), String(e.message ?? 'upstream stream error'), code);
    }
    let s = this.start();
    if (c.usage) this.usage = anthropicUsage(c.usage);
    for (const ch of Array.isArray(c.choices) ? c.choices : []) {
      const d = ch?.delta ?? {};
      if (typeof d.content === 'string' && d.content !== '') {
        if (this.block?.kind !== 'text') s += this.open({ type: 'text', text: '' }, 'text');
        s += this.delta({ type: 'text_delta', text: d.content });
      }
      for (const tc of Array.isArray(d.tool_calls) ? d.tool_calls : []) {
        const k = typeof tc?.index === 'number' ? tc.index : 0;
        if (this.block?.kind !== 'tool' || this.block.tool !== k) {
          const head = { type: 'tool_use', id: String(tc?.id ?? `toolu_${k}`), name: String(tc?.function?.name ?? '') };
          s += this.open({ ...head, input: {} }, 'tool', k);
        }
        const args = tc?.function?.arguments;
        if (typeof args === 'string' && args !== '') s += this.delta({ type: 'input_json_delta', partial_json: args });
      }
      if (ch?.finish_reason) this.stopReason = stopReasonOf(ch.finish_reason);
    }
    return s;
  }

  /** Runs once the stream ended whole: the open block's stop, `message_delta`, `message_stop` (not after an error). */
  finish(): string {
    if (this.failed || this.stopped) return '';
    this.stopped = true;
    const s = this.start() + this.close();
    const delta = { type: 'message_delta', delta: { stop_reason: this.stopReason, stop_sequence: null } };
    return s + anthropicEvent({ ...delta, usage: this.usage }) + anthropicEvent({ type: 'message_stop' });
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const message = {
      id: this.id,
      type: 'message',
      role: 'assistant',
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    return anthropicEvent({ type: 'message_start', message });
  }

  private open(contentBlock: Json, kind: 'text' | 'tool', tool?: number): string {
    const s = this.close();
    this.block = { index: this.nextIndex++, kind, tool };
    return s + anthropicEvent({ type: 'content_block_start', index: this.block.index, content_block: contentBlock });
  }

  private delta(delta: Json): string {
    return anthropicEvent({ type: 'content_block_delta', index: this.block!.index, delta });
  }

  private close(): string {
    if (!this.block) return '';
    const index = this.block.index;
    this.block = null;
    return anthropicEvent({ type: 'content_block_stop', index });
  }
}
