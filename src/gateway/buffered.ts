/** A whole (non-stream) upstream answer: judged, ledgered, then passed on with the keys redacted. */
import type http from 'node:http';
import { toAnthropicMessage } from './anthropic-reply.js';
import { anthropicErrorFromChat } from './anthropic-request.js';
import { type Call, sinceMs } from './call-recorder.js';
import { answered } from './classify.js';
import type { CallContext } from './context.js';
import { sendError } from './replies.js';
import { estimateUsage, usageOfBody } from './sse.js';
import type { Endpoint, LedgerUsage } from './types.js';
import type { UpstreamOutcome } from './upstream.js';

type BufferedAnswer = Extract<UpstreamOutcome, { kind: 'buffered' }>;

/** Runs once the upstream's last attempt has answered in full; the ledger line is written before the answer goes. */
export async function passBuffered(
  ctx: CallContext,
  call: Call,
  res: http.ServerResponse,
  out: BufferedAnswer,
  requestBytes: number,
  translated: boolean,
): Promise<void> {
  const endpoint = call.endpoint as Endpoint;
  const text = out.body.toString('utf8');
  let parsed: unknown;
  let isJson = true;
  try {
    parsed = JSON.parse(text);
  } catch {
    isJson = false;
    parsed = text.slice(0, 100_000);
  }
  const ok = out.status >= 200 && out.status < 300;
  if (ok && !isJson) {
    const message = `heldout gateway: upstream answered ${out.status} with a body that is not JSON`;
    await ctx.recorder.record(call, {
      status: 502,
      verdict: { classification: 'provider_failure', error: 'upstream_malformed' },
      upstreamStatus: out.status,
      attempts: out.attempts,
      response: parsed,
    });
    sendError(res, call, 502, 'upstream_malformed', message, 'server_error');
    return;
  }
  let usage: LedgerUsage | null = null;
  if (ok) usage = usageOfBody(parsed) ?? estimateUsage(requestBytes, endpoint === 'embeddings' ? '' : text);
  // A token count generates nothing: its `input_tokens` is the answer, not tokens spent.
  if (ok && endpoint === 'messages.count_tokens') usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  // The trace keeps what the upstream said (as it keeps what was sent it); the caller gets it in its own protocol.
  let sent = text;
  if (translated) {
    sent = ok
      ? JSON.stringify(toAnthropicMessage(parsed as any, call.model ?? ''))
      : anthropicErrorFromChat(out.status, parsed);
  }
  call.firstByteMs = sinceMs(call.t0);
  await ctx.recorder.record(call, {
    status: out.status,
    verdict: answered(out.status),
    upstreamStatus: out.status,
    attempts: out.attempts,
    usage,
    response: parsed,
    responseText: isJson ? text : undefined,
  });
  if (res.destroyed) return;
  const scrub = ctx.redactor.active && ctx.redactor.finds(sent);
  const payload = scrub ? Buffer.from(ctx.redactor.scrub(sent)) : translated ? Buffer.from(sent) : out.body;
  const headers: Record<string, string | number> = {
    'content-type': translated ? 'application/json' : String(out.headers['content-type'] ?? 'application/json'),
    'content-length': payload.length,
    'x-heldout-call-id': call.callId,
  };
  const rid = out.headers['x-request-id'];
  if (typeof rid === 'string') headers['x-request-id'] = rid;
  if (!ok) headers['x-should-retry'] = 'false';
  res.writeHead(out.status, headers);
  res.end(payload);
}
