/** Types of the model gateway (DESIGN §8). */
import type { PricingTable } from './pricing.js';

/** Who is calling: the delivery under test (`runtime`) or one of the evaluator's own model roles. */
export type Role = 'runtime' | 'judge' | 'user' | 'generator';
export const ROLES: readonly Role[] = ['runtime', 'judge', 'user', 'generator'];

/**
 * How a call ended.
 * - `success`: upstream answered 2xx with a complete, well-formed body (a stream that reached its end marker).
 * - `candidate_request_error`: the caller's fault — a malformed request, an endpoint the gateway does not serve,
 *   an unknown case token, a budget exhausted, an upstream 4xx about the request (400, 404, 409, 413, 415, 422),
 *   or the caller hanging up mid-call.
 * - `provider_failure`: the model provider's fault — 5xx/408/425/429 still failing after the retries, 401/403
 *   (the evaluator's key), a 2xx body that is not JSON, a stream that ended without its end marker, an error
 *   the provider sent inside a 200 stream (unless it names the request as the cause), or no upstream configured.
 * - `transport_failure`: the provider could not be reached or stopped answering — connection refused/reset,
 *   idle timeout, a connection cut mid-body — after the retries; a caller hanging up on an upstream that had sent
 *   nothing for half the idle timeout (`upstream_silent`); also a call cut short by `gateway.close()`
 *   (`error: 'gateway_closed'`).
 */
export type CallClass = 'success' | 'candidate_request_error' | 'provider_failure' | 'transport_failure';

/** `messages` and `messages.count_tokens` are Anthropic's Messages API (`/v1/messages`, `/v1/messages/count_tokens`). */
export type Endpoint = 'chat.completions' | 'responses' | 'embeddings' | 'messages' | 'messages.count_tokens';

/** The protocol a role's upstream speaks: OpenAI's (every endpoint; `/messages` is translated to chat) or Anthropic's. */
export type UpstreamProtocol = 'openai' | 'anthropic';

/** The fixed upstream of one role. */
export interface RoleConfig {
  /** OpenAI-compatible base URL including `/v1`, e.g. `https://api.openai.com/v1`. */
  baseURL?: string;
  /** The real key; never leaves the gateway. */
  apiKey?: string;
  /** Every chat/responses request of this role is sent with this model, whatever the caller asked for. */
  model?: string;
  /** Every embeddings request of this role is sent with this model (none: embeddings get 503). */
  embeddingModel?: string;
  /**
   * What the upstream speaks; default `openai` (`anthropic` when the base URL is api.anthropic.com). An Anthropic
   * upstream serves only `/messages` (and count_tokens); an OpenAI one serves `/messages` translated to chat.
   */
  protocol?: UpstreamProtocol;
}

export interface Budgets {
  /** Model calls forwarded upstream; further calls get 429. Omitted/null: unlimited. */
  calls?: number | null;
  /**
   * Tokens (`usage.total_tokens`, summed). Each call reserves its likely tokens before it goes upstream and settles
   * to its reported usage when it ends; a call starts only while used + reserved is under the budget (else 429).
   */
  tokens?: number | null;
  /** Seconds from registration after which calls get 429. */
  wallSeconds?: number | null;
  /**
   * US dollars (`costUsd`, summed; needs `GatewayOptions.pricing`). Reserved and settled as `tokens` are: each call
   * reserves the price of its token reservation, and starts only while spent + reserved is under the budget.
   */
  usd?: number | null;
}

export interface CaseRegistration {
  caseId: string;
  trial: number;
  /** Default `runtime`. An evaluator role registered per case (e.g. the judge) gets its own token and budgets. */
  role?: Role;
  budgets: Budgets;
  /**
   * The run this registration's dollars also count to: every registration naming the same `id` shares one usd
   * budget (`usd`, set by the first; null: unlimited), reserved and settled as a case's is.
   */
  run?: { id: string; usd?: number | null };
}

export interface RegisteredCase {
  caseId: string;
  trial: number;
  role: Role;
  /** The per-case placeholder key, `heldout-<random>`; what the delivery gets as OPENAI_API_KEY. */
  token: string;
  /**
   * Environment for the delivery: `OPENAI_API_KEY` (the placeholder), `OPENAI_MODEL` when the role's model is set,
   * and — only when the gateway listens on TCP — `OPENAI_BASE_URL` pointing at it (for a process sandbox on the
   * host). `attachmentFor` replaces OPENAI_BASE_URL with the in-sandbox relay address.
   */
  env: Record<string, string>;
}

export interface RetryOptions {
  /** Further attempts after the first; default 3. */
  retries?: number;
  /** First backoff; doubles each attempt (with jitter); default 500 ms. */
  baseDelayMs?: number;
  /** Cap on one backoff (and on a honoured Retry-After); default 8000 ms. */
  maxDelayMs?: number;
}

export interface GatewayOptions {
  /** Unix socket to listen on; default `<fresh temp dir>/gateway.sock` (a stale file there is replaced). */
  socketPath?: string;
  /**
   * Also listen on 127.0.0.1 (port 0 = any) for the evaluator's own roles (`/role/<role>/v1`) and host-process
   * deliveries. Default false. `/role/…` paths are refused on the Unix socket (the sandbox's way in).
   */
  tcp?: boolean | { port?: number };
  /** Where `<caseId>.<trial>.jsonl` ledgers and `<caseId>.<trial>.trace.jsonl` traces go; default a temp dir. */
  ledgerDir?: string;
  /** Keep request/response bodies in the trace files; default true. */
  trace?: boolean;
  /** Per-role upstream overrides, field by field over `roleConfigFromEnv(env)`. */
  roles?: Partial<Record<Role, RoleConfig>>;
  /** Environment the role configuration is read from; default `process.env`. */
  env?: Record<string, string | undefined>;
  retry?: RetryOptions;
  /**
   * Upstream idle timeout: no byte for this long (before or during the answer) → transport failure; default 300 s,
   * capped for a case's calls at half its wall budget (so the gateway sees a silent provider before the wall kills).
   */
  timeoutMs?: number;
  /** Largest request body accepted; default 32 MiB. */
  maxBodyBytes?: number;
  /** Output tokens a call reserves against a token budget when it names no `max_tokens`-like cap; default 8192. */
  reserveOutputTokens?: number;
  /**
   * Bounds of the trace: one line (default 1 MiB; a body that does not fit is cut to its beginning) and all the lines
   * of one (case, trial) (default 32 MiB; later calls are in the ledger only, after one line saying so).
   */
  traceLimits?: { lineBytes?: number; caseBytes?: number };
  /** The pricing table (`readPricing`): with it every ledger line has `costUsd` and `budgets.usd` can be set. */
  pricing?: PricingTable;
  /** Where the gateway's one-line notices go (a model missing from the pricing table, once); default stderr. */
  onNotice?: (line: string) => void;
}

export interface LedgerUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of `promptTokens`, those read from the provider's prompt cache (Anthropic `cache_read_input_tokens`). */
  cacheReadTokens?: number;
  /** Of `promptTokens`, those written to the prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  /** True when the upstream reported no usage and the gateway estimated it (characters / 4). */
  estimated?: boolean;
}

/** One model call, one JSON line of `<ledgerDir>/<caseId>.<trial>.jsonl`. */
export interface LedgerEntry {
  /** ISO-8601 time the call arrived. */
  time: string;
  /** Unique id of the call; also the `x-heldout-call-id` response header and the key into the trace. */
  callId: string;
  role: Role;
  /** The case id; `_<role>` for an evaluator-role call with no case (`/role/<role>/v1`). */
  case: string;
  trial: number;
  endpoint: Endpoint | 'unknown';
  /** The model actually used (the role's); null when the call never went upstream. */
  model: string | null;
  /** What the caller asked for (overwritten). */
  requestedModel: string | null;
  stream: boolean;
  /** HTTP status given to the caller (for a stream: the status its headers carried). */
  status: number;
  /** Status of the last upstream attempt; null when none answered. */
  upstreamStatus: number | null;
  classification: CallClass;
  /** Machine-readable reason for anything but success, e.g. `budget_exceeded`, `stream_truncated`. */
  error: string | null;
  /** Upstream attempts made (0 when refused before going upstream). */
  attempts: number;
  latencyMs: number;
  /** Milliseconds until the first byte went back to the caller. */
  firstByteMs: number | null;
  usage: LedgerUsage | null;
  /** A stream (or body) that ended before its end marker. */
  truncated: boolean;
  /**
   * Only with a pricing table: what the call cost in USD (0 when it used nothing); null when its model is not in the
   * table (never priced as 0).
   */
  costUsd?: number | null;
  /**
   * Only on a call whose 200 stream carried the provider's error (`error: 'upstream_stream_error'`): the event
   * (`error` or `response.failed`) with the error's code, type and message (redacted, at most 500 characters).
   */
  upstreamError?: { event: string; code: string | null; type: string | null; message: string | null };
}

/** One line of `<ledgerDir>/<caseId>.<trial>.trace.jsonl`. */
export interface TraceEntry {
  callId: string;
  time: string;
  role: Role;
  endpoint: Endpoint | 'unknown';
  status: number;
  /** The body as sent upstream (model overwritten), or as received when it never went upstream. */
  request: unknown;
  /**
   * Parsed response body; for a stream `{ events: [...data payloads], assembled }`; raw text if not JSON. Either body
   * may be `{ truncated: true, bytes, head }` when the line would pass `traceLimits.lineBytes`.
   */
  response: unknown;
  /** On the last line of a case whose trace reached `traceLimits.caseBytes` (its bodies are null). */
  traceBound?: string;
}

/** A running gateway (`startGateway`): the evaluator's handle; never handed to a sandbox (it holds the real keys). */
export interface Gateway {
  socketPath: string;
  /** `http://127.0.0.1:<port>` when `tcp` was asked for. */
  tcpUrl?: string;
  ledgerDir: string;
  /** The resolved upstream of each role (keys included: this object is the evaluator's, never the sandbox's). */
  roles: Record<Role, RoleConfig>;
  /** Runs before a case's sandbox starts: a fresh placeholder token with its own budgets; throws on a bad id. */
  registerCase(registration: CaseRegistration): RegisteredCase;
  /**
   * Every call of (caseId, trial) in its ledger file, in order: read from the file, the ledger's one record. A call's
   * line is there before its caller sees the end of the answer; after `flush()`, every call that has ended is.
   */
  ledgerFor(caseId: string, trial: number): LedgerEntry[];
  /** Calls forwarded upstream and tokens used by (caseId, trial) (latest registration). */
  usage(caseId: string, trial: number): { calls: number; tokens: number };
  /** USD spent by the registrations naming run `runId` (settled calls), and reserved by its calls in flight. */
  runSpend(runId: string): { usd: number; reservedUsd: number };
  /** Tokens reserved by (caseId, trial)'s calls in flight, and its calls waiting for them to settle. */
  pending(caseId: string, trial: number): { reserved: number; waiting: number };
  /** `<tcpUrl>/role/<role>/v1`, for the evaluator's own clients; throws without `tcp`. */
  roleBaseURL(role: Role): string;
  /** Resolves when every ledger and trace line written so far is on disk; rethrows a failed write. */
  flush(): Promise<void>;
  /** Aborts calls in flight (ledgered `gateway_closed`), stops listening, flushes; a second call does nothing. */
  close(): Promise<void>;
}
