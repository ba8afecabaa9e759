/** The gateway's own answers: OpenAI-shaped error bodies, and JSON it answers itself. */
import type http from 'node:http';
import { anthropicErrorBody, anthropicErrorType } from './anthropic-request.js';
import type { Call } from './call-recorder.js';

/** An OpenAI-shaped error body (`{"error":{message,type,param,code}}`), which the SDKs surface as an `APIError`. */
export function errorBody(code: string, message: string, type: string): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

/** The error body a call's caller expects: Anthropic's shape on `/v1/messages`, OpenAI's elsewhere. */
export function errorBodyFor(call: Call | null, status: number, code: string, message: string, type: string): string {
  const anthropic = call?.endpoint === 'messages' || call?.endpoint === 'messages.count_tokens';
  return anthropic ? anthropicErrorBody(anthropicErrorType(status), message, code) : errorBody(code, message, type);
}

/**
 * The event that ends a stream the gateway could not pass on whole, shaped as OpenAI's API signals an error in a
 * stream: `data: {"error":{…}}` for chat (the SDKs throw it as an `APIError`). For the responses API it is
 * `response.failed` (the next `sequence_number`, the response as `response.created` gave it with `status: failed`
 * and `error: {code, message}`), the event Responses clients act on (Codex CLI reads `response.error`; a bare
 * `error` event it ignores and reconnects); its top-level `error` is what makes the SDKs throw.
 */
export function streamErrorEvent(
  responses: boolean,
  code: string,
  message: string,
  lastSequence: number | null,
  failed: { snapshot: unknown; callId: string; responseCode?: string } = { snapshot: null, callId: '' },
): string {
  const error = { message, type: 'server_error', param: null, code };
  if (!responses) return `event: error\ndata: ${JSON.stringify({ error })}\n\n`;
  const base =
    failed.snapshot && typeof failed.snapshot === 'object'
      ? failed.snapshot
      : { id: `resp_${failed.callId}`, object: 'response', created_at: Math.floor(Date.now() / 1000), output: [] };
  const response = {
    ...base,
    status: 'failed',
    error: { code: failed.responseCode ?? 'server_error', message },
    incomplete_details: null,
  };
  const data = { type: 'response.failed', sequence_number: (lastSequence ?? -1) + 1, response, error };
  return `event: response.failed\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Answers with an error unless the answer has begun. `x-should-retry: false` because the gateway has already
 * retried (or the caller cannot fix it by retrying); a recorded call's id goes in `x-heldout-call-id`.
 */
export function sendError(
  res: http.ServerResponse,
  call: Call | null,
  status: number,
  code: string,
  message: string,
  type = 'invalid_request_error',
): void {
  if (res.headersSent || res.destroyed) return;
  const body = errorBodyFor(call, status, code, message, type);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-should-retry': 'false',
  };
  if (call) headers['x-heldout-call-id'] = call.callId;
  res.writeHead(status, headers);
  res.end(body);
}

/** A 200 JSON answer the gateway makes itself (not a model call). */
export function sendJson(res: http.ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
