/**
 * An SSE answer passed on event by event as it arrives (backpressure respected, keys redacted), watched for its end
 * marker and usage. The caller only ever gets whole events: a stream that ends without its end marker, stops
 * halfway through an event or carries an event that is not JSON is never handed on as it is, but ends with an
 * OpenAI-shaped error event and a cut connection.
 */
import type http from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { anthropicStreamError, type MessagesStream } from './anthropic-reply.js';
import { type Call, sinceMs } from './call-recorder.js';
import { answered, cutShort, type Verdict } from './classify.js';
import type { CallContext } from './context.js';
import type { Redactor } from './redact.js';
import { streamErrorEvent } from './replies.js';
import type { Silence } from './silence.js';
import { estimateUsage, isWholeEvent, SseSplitter, StreamWatcher } from './sse.js';
import { STREAM_ERROR, type StreamFault, streamFaultVerdict } from './stream-faults.js';
import type { Endpoint } from './types.js';
import type { Abort, UpstreamOutcome } from './upstream.js';

type StreamedAnswer = Extract<UpstreamOutcome, { kind: 'stream' }>;

type End = 'end' | 'error' | 'timeout' | 'client' | 'malformed';

const STREAM_MALFORMED: Verdict = { classification: 'provider_failure', error: 'stream_malformed' };
/** The ledger's `error` for a stream that stopped before its end marker, by how it stopped. */
const TRUNCATED = { end: 'stream_truncated', timeout: 'upstream_timeout', error: 'upstream_truncated' } as const;
/** What the caller's error event says, by how the stream stopped. */
const WHY = {
  end: 'the upstream stream ended before its end marker ([DONE] / finish_reason / response.completed)',
  error: 'the upstream connection broke mid-stream',
  malformed: 'the upstream sent an event that is not JSON',
} as const;

/**
 * Runs once the upstream has sent event-stream headers; resolves when the stream has ended one way or another and its
 * ledger line is written (before the caller sees the end).
 */
export async function passStream(
  ctx: CallContext,
  call: Call,
  res: http.ServerResponse,
  out: StreamedAnswer,
  ac: Abort,
  requestBytes: number,
  endpoint: Endpoint,
  dropUsageChunk: boolean,
  silence: Silence,
  translator: MessagesStream | null = null,
): Promise<void> {
  // `endpoint` is the upstream's (what the watcher reads); the caller's own decides how the gateway's errors look.
  const anthropic = call.endpoint === 'messages';
  const { redactor } = ctx;
  const { keepTrace } = ctx.settings;
  const timeoutMs = silence.idleMs;
  const up = out.stream;
  const headers: Record<string, string> = {
    'content-type': translator ? 'text/event-stream' : String(out.headers['content-type'] ?? 'text/event-stream'),
    'cache-control': 'no-cache',
    'x-heldout-call-id': call.callId,
  };
  const rid = out.headers['x-request-id'];
  if (typeof rid === 'string') headers['x-request-id'] = rid;
  res.writeHead(out.status, headers);
  res.flushHeaders();
  call.firstByteMs = sinceMs(call.t0);

  const splitter = new SseSplitter();
  const watcher = new StreamWatcher(endpoint, dropUsageChunk, keepTrace);
  const decoder = new StringDecoder('utf8');
  // Set once an event is not JSON: nothing after it is passed on (the stream ends there with an error event).
  let broken = false;
  const forward = (events: ReturnType<SseSplitter['push']>) => {
    let s = '';
    for (const ev of events) {
      if (broken) break;
      const pass = watcher.see(ev);
      if (watcher.malformed) {
        broken = true;
        finish('malformed');
      } else if (translator) s += translator.push(ev.data === null ? null : parsedData(ev.data));
      else if (pass) s += ev.raw + '\n\n';
    }
    if (s === '' || res.destroyed) return;
    if (redactor.active) s = redactor.scrub(s);
    if (!res.write(s)) {
      up.pause();
      idle.pause();
      res.once('drain', () => {
        idle.resume();
        up.resume();
      });
    }
  };
  // The idle timeout does not run while the caller is slow to read (the upstream is paused for it).
  let paused = false;
  const idleTimer = setTimeout(() => finish('timeout'), timeoutMs);
  const idle = {
    pause() {
      paused = true;
      silence.paused = true;
    },
    resume() {
      paused = false;
      silence.paused = false;
      silence.heard();
      idleTimer.refresh();
    },
  };
  let finish!: (why: End) => void;
  const ended = new Promise<End>((resolve) => {
    let done = false;
    finish = (why) => {
      if (done) return;
      if (why === 'timeout' && paused) {
        idleTimer.refresh();
        return;
      }
      done = true;
      clearTimeout(idleTimer);
      resolve(why);
    };
  });
  up.on('data', (chunk: Buffer) => {
    if (broken) return;
    idleTimer.refresh();
    silence.heard();
    forward(splitter.push(decoder.write(chunk)));
  });
  up.on('end', () => finish(up.complete ? 'end' : 'error'));
  up.on('aborted', () => finish('error'));
  up.on('error', () => finish('error'));
  up.on('close', () => finish(up.complete ? 'end' : 'error'));
  const offAbort = ac.on(() => finish('client'));
  let why = await ended;
  // Read at once: a caller hanging up on an upstream that had gone silent is the provider's failure.
  const silent = why === 'client' && silence.long;
  offAbort();
  // An event the upstream left without its blank line: passed on only when whole, else kept for the trace.
  let partial: string | null = null;
  if (why !== 'client' && why !== 'malformed') {
    forward(splitter.push(decoder.end()));
    const rest = splitter.rest();
    if (rest && !broken && isWholeEvent(rest)) forward([rest]);
    else if (rest && !broken) partial = rest.raw;
    if (broken) why = 'malformed';
  }
  if (why !== 'end') up.destroy();

  const usage = watcher.usage ?? (why === 'client' ? null : estimateUsage(requestBytes, watcher.text));
  const complete = why === 'end' && watcher.complete;
  let verdict: Verdict;
  // The provider's error event decides, even when the caller then hung up: an SDK throws on it and drops the
  // connection, often before the provider has ended its stream.
  if (watcher.fault && why !== 'malformed') verdict = streamFaultVerdict(watcher.fault);
  else if (why === 'client') verdict = cutShort(ctx.closing, silent);
  else if (why === 'malformed') verdict = STREAM_MALFORMED;
  else if (complete) verdict = answered(out.status);
  // The provider ended the stream without its end marker (its fault), or the connection broke or went idle.
  else verdict = { classification: why === 'end' ? 'provider_failure' : 'transport_failure', error: TRUNCATED[why] };
  await ctx.recorder.record(call, {
    status: out.status,
    verdict,
    upstreamStatus: out.status,
    attempts: out.attempts,
    usage,
    truncated: why === 'client' ? ctx.closing : !complete,
    upstreamError: watcher.fault ? scrubbed(watcher.fault, redactor) : undefined,
    response: keepTrace
      ? { events: watcher.events, assembled: watcher.assembled(), ...(partial === null ? {} : { partial }) }
      : null,
  });
  if (why === 'client') return; // nothing more to send
  if (complete) {
    if (res.destroyed) return;
    // The provider's bare `error` event ended a responses stream: Responses clients act on `response.failed`.
    const f = watcher.fault;
    if (endpoint === 'responses' && f && !watcher.terminal) {
      const message = redactor.scrub(f.message ?? 'the upstream sent an error event');
      const failed = { snapshot: watcher.snapshot, callId: call.callId, responseCode: f.code ?? undefined };
      res.end(streamErrorEvent(true, f.code ?? STREAM_ERROR, message, watcher.lastSequence, failed));
    } else if (translator) res.end(redactor.scrub(translator.finish()));
    else res.end();
    return;
  }
  if (res.destroyed) return;
  const what = why === 'timeout' ? `the upstream stream went silent for ${timeoutMs} ms` : WHY[why];
  const code = why === 'malformed' ? STREAM_MALFORMED.error! : TRUNCATED[why];
  const message = `heldout gateway: ${what}; the reply is incomplete`;
  const ev = anthropic
    ? anthropicStreamError('api_error', message, code)
    : streamErrorEvent(endpoint === 'responses', code, message, watcher.lastSequence, {
        snapshot: watcher.snapshot,
        callId: call.callId,
      });
  res.write(ev, () => res.destroy());
}

/** A chunk's data as the translator takes it (`[DONE]` as such; a chunk that is not JSON never reaches it). */
function parsedData(data: string): unknown {
  if (data.trim() === '[DONE]') return '[DONE]';
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

/** The provider's error as the ledger keeps it, with the keys redacted (a provider may echo one back). */
function scrubbed(f: StreamFault, redactor: Redactor): StreamFault {
  return redactor.active && f.message ? { ...f, message: redactor.scrub(f.message) } : f;
}
