/** Whose fault a call's end is (`CallClass`, DESIGN §8): the one place the rules live. */
import type { CallClass } from './types.js';
import { isRetryableStatus } from './upstream.js';

/** A ledger line's verdict: the class and the machine-readable reason (null on success). */
export interface Verdict {
  classification: CallClass;
  error: string | null;
}

const SUCCESS: Verdict = { classification: 'success', error: null };

export function classOfStatus(status: number): CallClass {
  if (status >= 200 && status < 300) return 'success';
  if (status === 401 || status === 403 || isRetryableStatus(status)) return 'provider_failure';
  if (status >= 400 && status < 500) return 'candidate_request_error';
  return 'provider_failure';
}

/** An upstream answer passed on whole, judged by its status (after the retries). */
export function answered(status: number): Verdict {
  const classification = classOfStatus(status);
  return classification === 'success' ? SUCCESS : { classification, error: `upstream_${status}` };
}

/**
 * A call that stopped before its end: the caller hung up (its doing, unless the upstream had gone `silent` on it:
 * then the provider's, as the idle timeout would have said), or `close()` cut it short (the gateway's, and so a
 * transport failure).
 */
export function cutShort(closing: boolean, silent = false): Verdict {
  if (closing) return { classification: 'transport_failure', error: 'gateway_closed' };
  return silent
    ? { classification: 'transport_failure', error: 'upstream_silent' }
    : { classification: 'candidate_request_error', error: 'client_aborted' };
}
