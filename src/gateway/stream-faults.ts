/**
 * A provider's error sent inside a 200 stream (a chat `{"error": …}` chunk, a responses-API `error` event or
 * `response.failed`): whose fault it is, by what the error says. Pure, so the rule has property tests of its own.
 */
import { classOfStatus, type Verdict } from './classify.js';

/** The error event as the ledger keeps it (`LedgerEntry.upstreamError`). */
export interface StreamFault {
  /** `error` (a chat error chunk or the responses API's error event) or `response.failed`. */
  event: string;
  code: string | null;
  type: string | null;
  message: string | null;
}

/** The ledger's `error` for a call whose stream carried the provider's error event. */
export const STREAM_ERROR = 'upstream_stream_error';

/** The longest provider message a ledger line keeps. */
const MESSAGE_MAX = 500;

/** Codes that say the provider (or the evaluator's key, quota or model) failed, whatever the error's type. */
const PROVIDER_CODES = new Set([
  'server_error',
  'rate_limit_exceeded',
  'insufficient_quota',
  'invalid_api_key',
  'model_not_found',
  'vector_store_timeout',
  'data_residency_mismatch',
  'usage_not_included',
]);

/**
 * Codes that say the request itself was refused (the responses API's `ResponseError` codes about the input, and
 * the chat API's request errors): the delivery's doing, as an upstream 400 is.
 */
const CANDIDATE_CODE =
  /^(invalid_|image_|unsupported_|empty_image_file$|failed_to_download_image$|bio_policy$|context_length_exceeded$)/;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/**
 * The provider's error in one parsed stream event, or null when the event is no error. Runs on every event of a
 * stream, so it looks only at `error`, `type` and `response.error`.
 */
export function streamFaultOf(obj: any, sseEvent: string | null): StreamFault | null {
  if (!obj || typeof obj !== 'object') return null;
  const type = obj.type ?? sseEvent;
  let e: any = null;
  let event = 'error';
  if (type === 'response.failed') {
    event = 'response.failed';
    e = obj.response?.error ?? obj.error ?? {};
  } else if (obj.error) e = typeof obj.error === 'object' ? obj.error : { message: obj.error };
  else if (type === 'error') e = obj;
  if (e === null) return null;
  const message = str(e.message);
  return {
    event,
    code: str(e.code),
    type: type === 'error' && e === obj ? null : str(e.type),
    message: message && message.length > MESSAGE_MAX ? `${message.slice(0, MESSAGE_MAX)}…` : message,
  };
}

/**
 * Whose fault the error is: the provider's unless it names the request as the cause — an HTTP status in its code
 * (vLLM and OpenRouter send one) judged as that status would be, a code about the input, or an
 * `invalid_request_error` with no provider code. Never success.
 */
export function streamFaultVerdict(f: StreamFault): Verdict {
  const provider: Verdict = { classification: 'provider_failure', error: STREAM_ERROR };
  const code = f.code ?? '';
  if (PROVIDER_CODES.has(code)) return provider;
  if (/^[1-5]\d\d$/.test(code)) {
    const c = classOfStatus(Number(code));
    return c === 'success' ? provider : { classification: c, error: STREAM_ERROR };
  }
  if (CANDIDATE_CODE.test(code) || (f.type === 'invalid_request_error' && code === '')) {
    return { classification: 'candidate_request_error', error: STREAM_ERROR };
  }
  return provider;
}
