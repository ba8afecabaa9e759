/**
 * Server-sent events, split as they arrive so the gateway can pass each event on the moment it is complete while
 * watching for the end marker, usage and finish reasons.
 */
import { type StreamFault, streamFaultOf } from './stream-faults.js';
import type { Endpoint, LedgerUsage } from './types.js';

export interface SseEvent {
  /** The event's raw text without its terminating blank line. */
  raw: string;
  event: string | null;
  /** The `data:` lines joined by `\n`; null when the event had none. */
  data: string | null;
}

/** Incremental splitter: `push(text)` returns the events completed by this piece. */
export class SseSplitter {
  private buf = '';

  push(text: string): SseEvent[] {
    this.buf += text;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n\r\n|\n\n|\r\r/.exec(this.buf);
      if (!m) break;
      const raw = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      if (raw.trim() === '') continue;
      out.push(parseEvent(raw));
    }
    return out;
  }

  /** What is left when the stream ends (an event missing its blank line), or null. */
  rest(): SseEvent | null {
    const raw = this.buf;
    this.buf = '';
    return raw.trim() === '' ? null : parseEvent(raw.replace(/[\r\n]+$/, ''));
  }
}

/**
 * Whether an event is whole enough to pass on: its data is `[DONE]` or parses as JSON. The tail of a stream that
 * stopped before its blank line is passed on only then (a half `data:` line would make a client's JSON.parse throw).
 */
export function isWholeEvent(ev: SseEvent): boolean {
  if (ev.data === null) return false;
  if (ev.data.trim() === '[DONE]') return true;
  try {
    JSON.parse(ev.data);
    return true;
  } catch {
    return false;
  }
}

function parseEvent(raw: string): SseEvent {
  let event: string | null = null;
  const data: string[] = [];
  for (const line of raw.split(/\r\n|\n|\r/)) {
    if (line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i === -1 ? line : line.slice(0, i);
    let value = i === -1 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { raw, event, data: data.length ? data.join('\n') : null };
}

function usageFrom(u: any): LedgerUsage | null {
  if (!u || typeof u !== 'object') return null;
  // Anthropic's input_tokens leaves out the cached prompt (its own two fields); OpenAI's prompt count includes it.
  const cacheRead = num(u.cache_read_input_tokens);
  const cacheWrite = num(u.cache_creation_input_tokens);
  const cachedWithin = num(u.prompt_tokens_details?.cached_tokens ?? u.input_tokens_details?.cached_tokens);
  const input = num(u.prompt_tokens ?? u.input_tokens);
  const prompt = input === null ? null : input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const completion = num(u.completion_tokens ?? u.output_tokens);
  const total = num(u.total_tokens) ?? (prompt ?? 0) + (completion ?? 0);
  if (prompt === null && completion === null && num(u.total_tokens) === null) return null;
  const out: LedgerUsage = { promptTokens: prompt ?? 0, completionTokens: completion ?? 0, totalTokens: total };
  // Anthropic states its cache beside input_tokens (0 included); OpenAI's details count within the prompt, where only
  // a positive count says anything.
  const details = u.prompt_tokens_details ?? u.input_tokens_details;
  const writtenWithin = num(details?.cache_write_tokens);
  if (cacheRead !== null) out.cacheReadTokens = cacheRead;
  else if (cachedWithin !== null && cachedWithin > 0) out.cacheReadTokens = cachedWithin;
  if (cacheWrite !== null) out.cacheWriteTokens = cacheWrite;
  else if (writtenWithin !== null && writtenWithin > 0) out.cacheWriteTokens = writtenWithin;
  return out;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Usage of a complete (non-stream) response body of any endpoint (Anthropic's cache fields included). */
export function usageOfBody(body: any): LedgerUsage | null {
  return usageFrom(body?.usage);
}

/** Usage guessed at characters / 4 when the provider reported none, so a token budget still counts the call. */
export function estimateUsage(requestBytes: number, completionText: string): LedgerUsage {
  const p = Math.ceil(requestBytes / 4);
  const c = completionText.length === 0 ? 0 : Math.ceil(completionText.length / 4);
  return { promptTokens: p, completionTokens: c, totalTokens: p + c, estimated: true };
}

/**
 * Watches one stream: decides per event whether to pass it on (the usage-only chunk the gateway asked for on the
 * caller's behalf is dropped), and records completion, usage, malformed events and an assembled reply for the trace.
 */
export class StreamWatcher {
  complete = false;
  malformed = false;
  usage: LedgerUsage | null = null;
  events: unknown[] = [];
  /** The responses API's last `sequence_number`, so an error event the gateway adds can follow it. */
  lastSequence: number | null = null;
  /** The provider's first error event in the stream (a chat error chunk, `error`, `response.failed`), or null. */
  fault: StreamFault | null = null;
  /** The responses API's stream reached `response.completed`, `.failed` or `.incomplete`. */
  terminal = false;
  /** The response as `response.created` / `.in_progress` last gave it (for a `response.failed` the gateway adds). */
  snapshot: unknown = null;
  private content = '';
  private toolCalls: { id?: string; name: string; arguments: string }[] = [];
  private finishReason: string | null = null;
  private finalResponse: unknown = null;
  private anthropicUsage: Record<string, unknown> = {};

  constructor(
    private endpoint: Endpoint,
    /** Drop the `choices: []` usage chunk (the caller did not ask for usage; the gateway did). */
    private dropUsageChunk: boolean,
    private keepEvents: boolean,
  ) {}

  /** Returns whether to forward the event to the caller. */
  see(ev: SseEvent): boolean {
    if (ev.data === null) return true;
    if (ev.data.trim() === '[DONE]') {
      this.complete = true;
      if (this.keepEvents) this.events.push('[DONE]');
      return true;
    }
    let obj: any;
    try {
      obj = JSON.parse(ev.data);
    } catch {
      this.malformed = true;
      if (this.keepEvents) this.events.push(ev.data);
      return true;
    }
    if (this.keepEvents) this.events.push(obj);
    if (obj && typeof obj === 'object' && obj.error) {
      // the provider ended the stream with an error event: an end, not a truncation, and the provider's failure
      this.complete = true;
      this.fault ??= streamFaultOf(obj, ev.event);
      if (this.endpoint !== 'responses') return true;
    }
    if (this.endpoint === 'messages') return this.seeMessages(obj, ev.event);
    if (this.endpoint === 'responses') {
      if (typeof obj?.sequence_number === 'number') this.lastSequence = obj.sequence_number;
      const type = obj?.type ?? ev.event;
      if (type === 'response.completed' || type === 'response.failed' || type === 'response.incomplete') {
        this.complete = true;
        this.terminal = true;
        if (type === 'response.failed') this.fault ??= streamFaultOf(obj, ev.event);
        this.finalResponse = obj.response ?? null;
        const u = usageFrom(obj.response?.usage);
        if (u) this.usage = u;
      } else if (type === 'error') {
        this.complete = true;
        this.fault ??= streamFaultOf(obj, ev.event);
      } else if (type === 'response.created' || type === 'response.in_progress') {
        if (obj.response && typeof obj.response === 'object') this.snapshot = obj.response;
      } else if (type === 'response.output_text.delta' && typeof obj.delta === 'string') {
        this.content += obj.delta;
      }
      return true;
    }
    // chat.completions
    const u = usageFrom(obj?.usage);
    if (u) this.usage = u;
    const choices = Array.isArray(obj?.choices) ? obj.choices : [];
    for (const ch of choices) {
      const d = ch?.delta ?? {};
      if (typeof d.content === 'string') this.content += d.content;
      if (Array.isArray(d.tool_calls)) {
        for (const tc of d.tool_calls) {
          const i = typeof tc.index === 'number' ? tc.index : this.toolCalls.length;
          this.toolCalls[i] ??= { name: '', arguments: '' };
          const slot = this.toolCalls[i]!;
          if (tc.id) slot.id = tc.id;
          if (tc.function?.name) slot.name += tc.function.name;
          if (typeof tc.function?.arguments === 'string') slot.arguments += tc.function.arguments;
        }
      }
      if (ch?.finish_reason) {
        this.finishReason = ch.finish_reason;
        this.complete = true;
      }
    }
    if (this.dropUsageChunk && u && choices.length === 0) return false;
    return true;
  }

  /** Anthropic's stream: usage from `message_start` updated by `message_delta`, the end at `message_stop`. */
  private seeMessages(obj: any, sseEvent: string | null): boolean {
    const type = obj?.type ?? sseEvent;
    if (type === 'message_start') {
      this.anthropicUsage = { ...(obj.message?.usage ?? {}) };
      this.usage = usageFrom(this.anthropicUsage);
    } else if (type === 'message_delta') {
      for (const [k, v] of Object.entries(obj.usage ?? {})) if (v !== null) this.anthropicUsage[k] = v;
      this.usage = usageFrom(this.anthropicUsage);
      if (obj.delta?.stop_reason) this.finishReason = obj.delta.stop_reason;
    } else if (type === 'message_stop') this.complete = true;
    else if (type === 'error') {
      this.complete = true;
      this.fault ??= streamFaultOf(obj, sseEvent);
    } else if (type === 'content_block_start' && obj.content_block?.type === 'tool_use') {
      this.toolCalls[obj.index] = {
        id: obj.content_block.id,
        name: String(obj.content_block.name ?? ''),
        arguments: '',
      };
    } else if (type === 'content_block_delta') {
      if (typeof obj.delta?.text === 'string') this.content += obj.delta.text;
      const slot = this.toolCalls[obj.index];
      if (slot && typeof obj.delta?.partial_json === 'string') slot.arguments += obj.delta.partial_json;
    }
    return true;
  }

  /** Text seen in deltas (for estimating usage when the provider reported none). */
  get text(): string {
    return this.content + this.toolCalls.map((t) => t.name + t.arguments).join('');
  }

  assembled(): unknown {
    if (this.endpoint === 'responses') return this.finalResponse ?? { output_text: this.content };
    return {
      role: 'assistant',
      content: this.content,
      ...(this.toolCalls.length ? { tool_calls: this.toolCalls.filter(Boolean) } : {}),
      finish_reason: this.finishReason,
    };
  }
}
