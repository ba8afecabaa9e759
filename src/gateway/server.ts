/**
 * The model gateway (DESIGN §8): an OpenAI-compatible proxy owned by the evaluator. Only node:http.
 *
 * Ways in:
 * - Unix socket (`socketPath`): the sandbox's only way out (through the relay). Calls must carry a case:
 *   `/case/<token>/v1/...` or `Authorization: Bearer <token>` (the placeholder key the delivery got).
 * - TCP on 127.0.0.1 (`tcp` option): the same, plus `/role/<role>/v1/...` for the evaluator's own roles
 *   (judge, user simulator, generator) without a case. `/role/` is refused on the socket.
 *
 * Each call: attribute → read body → check upstream configured (503) → check budgets (429) → overwrite `model`
 * (and, for a chat stream, ask upstream for usage, dropping that chunk if the caller had not asked) → forward with
 * retries → pass the answer back (SSE event by event) → ledger line (written before the caller sees the end) and
 * trace line.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { resolveRoles } from './config.js';
import { LineWriter, ledgerPath, tracePath } from './ledger.js';
import { SseSplitter, StreamWatcher, usageOfBody } from './sse.js';
import type {
  Budgets,
  CallClass,
  CaseRegistration,
  Endpoint,
  Gateway,
  GatewayOptions,
  LedgerEntry,
  LedgerUsage,
  RegisteredCase,
  Role,
  RoleConfig,
} from './types.js';
import { ROLES } from './types.js';
import { Abort, callUpstream, isRetryableStatus, parseTarget, type UpstreamTarget } from './upstream.js';

interface Registration {
  caseId: string;
  trial: number;
  role: Role;
  token: string;
  budgets: Budgets;
  /** When the case's first model call arrived: its wall budget counts from there, not from a queued registration. */
  firstCallAt: number | null;
  calls: number;
  tokens: number;
}

interface Call {
  callId: string;
  time: string;
  t0: number;
  role: Role;
  caseId: string;
  trial: number;
  reg: Registration | null;
  endpoint: Endpoint | 'unknown';
  requestedModel: string | null;
  model: string | null;
  stream: boolean;
  request: unknown;
  /** `request` as JSON text when at hand. */
  requestText?: string;
  firstByteMs: number | null;
}

const ENDPOINTS: Record<string, Endpoint> = {
  '/chat/completions': 'chat.completions',
  '/responses': 'responses',
  '/embeddings': 'embeddings',
};

const TOKEN_RE = /^heldout-[A-Za-z0-9_-]{8,}$/;

function errorBody(code: string, message: string, type: string) {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

/** JSON text usable as-is inside a JSONL line (no raw line breaks), else undefined. */
function oneLine(text: string | undefined): string | undefined {
  return text !== undefined && !text.includes('\n') && !text.includes('\r') ? text : undefined;
}

function now(): number {
  return performance.now();
}

function roughTokens(s: string): number {
  return s.length === 0 ? 0 : Math.ceil(s.length / 4);
}

function classOfStatus(status: number): CallClass {
  if (status >= 200 && status < 300) return 'success';
  if (status === 401 || status === 403 || isRetryableStatus(status)) return 'provider_failure';
  if (status >= 400 && status < 500) return 'candidate_request_error';
  return 'provider_failure';
}

function budgetRefusal(reg: Registration): string | null {
  const b = reg.budgets;
  const who = `case ${reg.caseId} trial ${reg.trial}`;
  reg.firstCallAt ??= Date.now();
  if (b.wallSeconds != null && Date.now() - reg.firstCallAt > b.wallSeconds * 1000) {
    return `${who}: wall-time budget of ${b.wallSeconds} s is used up`;
  }
  if (b.calls != null && reg.calls >= b.calls) return `${who}: model-call budget of ${b.calls} calls is used up`;
  if (b.tokens != null && reg.tokens >= b.tokens) {
    return `${who}: token budget of ${b.tokens} tokens is used up (${reg.tokens} used)`;
  }
  return null;
}

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const roles = resolveRoles(options.env ?? process.env, options.roles);
  const retries = options.retry?.retries ?? 3;
  const baseDelayMs = options.retry?.baseDelayMs ?? 500;
  const maxDelayMs = options.retry?.maxDelayMs ?? 8000;
  const timeoutMs = options.timeoutMs ?? 300_000;
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const keepTrace = options.trace ?? true;
  let closed = false;

  let ownDir: string | null = null;
  let socketPath = options.socketPath;
  if (!socketPath) {
    ownDir = mkdtempSync(join(tmpdir(), 'heldout-gw-'));
    chmodSync(ownDir, 0o755);
    socketPath = join(ownDir, 'gateway.sock');
  }
  const ledgerDir = options.ledgerDir ?? mkdtempSync(join(tmpdir(), 'heldout-ledger-'));
  const writer = new LineWriter(ledgerDir);

  const byToken = new Map<string, Registration>();
  const byCase = new Map<string, Registration>();
  const ledgers = new Map<string, LedgerEntry[]>();
  const inflight = new Set<Abort>();
  const targets = new Map<string, UpstreamTarget>();
  const targetOf = (baseURL: string) => {
    let t = targets.get(baseURL);
    if (!t) {
      t = parseTarget(baseURL);
      targets.set(baseURL, t);
    }
    return t;
  };
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
  };
  const secrets = ROLES.map((r) => roles[r].apiKey).filter((k): k is string => !!k && k.length >= 4);
  const idPrefix = randomBytes(3).toString('hex');
  let seq = 0;
  const caseKey = (caseId: string, trial: number) => `${caseId}\u0000${trial}`;

  function scrub(text: string): string {
    let out = text;
    for (const k of secrets) if (out.includes(k)) out = out.split(k).join('[redacted]');
    return out;
  }

  async function record(
    call: Call,
    fields: {
      status: number;
      upstreamStatus: number | null;
      classification: CallClass;
      error: string | null;
      attempts: number;
      usage: LedgerUsage | null;
      truncated: boolean;
      response: unknown;
      /** The response as JSON text, when at hand (spliced into the trace instead of re-serialising). */
      responseText?: string;
    },
  ): Promise<void> {
    const entry: LedgerEntry = {
      time: call.time,
      callId: call.callId,
      role: call.role,
      case: call.caseId,
      trial: call.trial,
      endpoint: call.endpoint,
      model: call.model,
      requestedModel: call.requestedModel,
      stream: call.stream,
      status: fields.status,
      upstreamStatus: fields.upstreamStatus,
      classification: fields.classification,
      error: fields.error,
      attempts: fields.attempts,
      latencyMs: Math.round((now() - call.t0) * 1000) / 1000,
      firstByteMs: call.firstByteMs,
      usage: fields.usage,
      truncated: fields.truncated,
    };
    if (call.reg && fields.usage) call.reg.tokens += fields.usage.totalTokens;
    const key = caseKey(call.caseId, call.trial);
    let list = ledgers.get(key);
    if (!list) {
      list = [];
      ledgers.set(key, list);
    }
    list.push(entry);
    if (keepTrace) {
      const head = JSON.stringify({
        callId: call.callId,
        time: call.time,
        role: call.role,
        endpoint: call.endpoint,
        status: fields.status,
      });
      const req = oneLine(call.requestText) ?? JSON.stringify(call.request ?? null);
      const resp = oneLine(fields.responseText) ?? JSON.stringify(fields.response ?? null);
      const line = `${head.slice(0, -1)},"request":${req},"response":${resp}}`;
      void writer.append(tracePath(ledgerDir, call.caseId, call.trial), scrub(line));
    }
    await writer.append(ledgerPath(ledgerDir, call.caseId, call.trial), JSON.stringify(entry));
  }

  function sendError(
    res: http.ServerResponse,
    call: Call | null,
    status: number,
    code: string,
    message: string,
    type = 'invalid_request_error',
  ) {
    if (res.headersSent || res.destroyed) return;
    const body = errorBody(code, message, type);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-should-retry': 'false',
    };
    if (call) headers['x-heldout-call-id'] = call.callId;
    res.writeHead(status, headers);
    res.end(body);
  }

  function readBody(req: http.IncomingMessage): Promise<Buffer | 'too_large' | 'aborted'> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      req.on('data', (c: Buffer) => {
        if (done) return;
        size += c.length;
        if (size > maxBodyBytes) {
          done = true;
          resolve('too_large');
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (!done) resolve(Buffer.concat(chunks));
        done = true;
      });
      req.on('aborted', () => {
        if (!done) resolve('aborted');
        done = true;
      });
      req.on('error', () => {
        if (!done) resolve('aborted');
        done = true;
      });
    });
  }

  function tokenFromHeaders(req: http.IncomingMessage): string | null {
    const auth = req.headers.authorization;
    if (typeof auth === 'string') {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      if (m) return m[1]!;
    }
    const k = req.headers['api-key'] ?? req.headers['x-api-key'];
    return typeof k === 'string' ? k.trim() : null;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, viaTcp: boolean): Promise<void> {
    const t0 = now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? '' : url.slice(q);
    let reg: Registration | null = null;
    let role: Role;
    let caseId: string;
    let trial: number;

    const mCase = /^\/case\/([^/]+)(\/.*)?$/.exec(path);
    const mRole = /^\/role\/([^/]+)(\/.*)?$/.exec(path);
    if (mCase) {
      reg = byToken.get(decodeURIComponent(mCase[1]!)) ?? null;
      path = mCase[2] ?? '/';
      if (!reg)
        return sendError(
          res,
          null,
          401,
          'unknown_case_token',
          'heldout gateway: no case is registered under this token',
        );
    } else if (mRole) {
      if (!viaTcp) {
        return sendError(
          res,
          null,
          403,
          'role_path_forbidden',
          'heldout gateway: /role/ paths are for the evaluator, not for a sandbox',
        );
      }
      if (!(ROLES as readonly string[]).includes(mRole[1]!)) {
        return sendError(
          res,
          null,
          404,
          'unknown_role',
          `heldout gateway: unknown role ${mRole[1]} (one of ${ROLES.join(', ')})`,
        );
      }
      path = mRole[2] ?? '/';
    } else {
      const token = tokenFromHeaders(req);
      reg = token ? (byToken.get(token) ?? null) : null;
      if (!reg) {
        const msg =
          token && TOKEN_RE.test(token)
            ? 'heldout gateway: no case is registered under this token (has the case ended?)'
            : 'heldout gateway: calls must carry the case placeholder key (OPENAI_API_KEY) as "Authorization: Bearer <key>" or use /case/<key>/v1';
        return sendError(res, null, 401, 'unknown_case_token', msg);
      }
    }
    if (reg) {
      role = reg.role;
      caseId = reg.caseId;
      trial = reg.trial;
    } else {
      role = mRole![1] as Role;
      caseId = `_${role}`;
      trial = 0;
    }
    if (path.startsWith('/v1/') || path === '/v1') path = path.slice(3) || '/';
    const cfg: RoleConfig = roles[role];

    // GET /models (and /models/<id>): answered by the gateway with the role's one model; not a model call.
    if (req.method === 'GET' && (path === '/models' || path.startsWith('/models/'))) {
      if (!cfg.baseURL || !cfg.model) return noModel(res, null, role, cfg);
      const model = { id: cfg.model, object: 'model', created: 0, owned_by: 'heldout-gateway' };
      const body = JSON.stringify(path === '/models' ? { object: 'list', data: [model] } : model);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }

    const endpoint = ENDPOINTS[path];
    const call: Call = {
      callId: `call_${idPrefix}${(++seq).toString(36)}`,
      time: new Date().toISOString(),
      t0,
      role,
      caseId,
      trial,
      reg,
      endpoint: endpoint ?? 'unknown',
      requestedModel: null,
      model: null,
      stream: false,
      request: null,
      firstByteMs: null,
    };
    const refuse = async (status: number, code: string, message: string, cls: CallClass, type?: string) => {
      await record(call, {
        status,
        upstreamStatus: null,
        classification: cls,
        error: code,
        attempts: 0,
        usage: null,
        truncated: false,
        response: JSON.parse(errorBody(code, message, type ?? 'invalid_request_error')),
      });
      sendError(res, call, status, code, message, type);
    };

    if (req.method !== 'POST' || !endpoint) {
      req.resume();
      call.request = { method: req.method, path };
      return refuse(
        404,
        'unsupported_endpoint',
        `heldout gateway: ${req.method} ${path} is not served (POST /v1/chat/completions, /v1/responses, /v1/embeddings; GET /v1/models)`,
        'candidate_request_error',
      );
    }
    const raw = await readBody(req);
    if (raw === 'aborted') return;
    if (raw === 'too_large') {
      res.setHeader('connection', 'close');
      return refuse(
        413,
        'request_too_large',
        `heldout gateway: request body over ${maxBodyBytes} bytes`,
        'candidate_request_error',
      );
    }
    let body: any;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      call.request = raw.toString('utf8').slice(0, 10_000);
      return refuse(400, 'invalid_json', 'heldout gateway: the request body is not JSON', 'candidate_request_error');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      call.request = body;
      return refuse(
        400,
        'invalid_request',
        'heldout gateway: the request body must be a JSON object',
        'candidate_request_error',
      );
    }
    call.requestedModel = typeof body.model === 'string' ? body.model : null;
    call.stream = body.stream === true;
    call.request = body;

    if (!cfg.baseURL || !cfg.model) return noModel(res, call, role, cfg);
    if (reg) {
      const why = budgetRefusal(reg);
      if (why) return refuse(429, 'budget_exceeded', why, 'candidate_request_error', 'budget_exceeded');
      reg.calls++;
    }

    body.model = cfg.model;
    call.model = cfg.model;
    let dropUsageChunk = false;
    if (endpoint === 'chat.completions' && call.stream && body.stream_options?.include_usage !== true) {
      body.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
      dropUsageChunk = true;
    }
    call.requestText = JSON.stringify(body);
    const payload = Buffer.from(call.requestText);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: call.stream ? 'text/event-stream' : 'application/json',
    };
    if (cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
    for (const h of ['openai-beta', 'idempotency-key']) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }

    const ac = new Abort();
    inflight.add(ac);
    const onClose = () => {
      if (!res.writableFinished) ac.abort();
    };
    res.on('close', onClose);
    try {
      const out = await callUpstream({
        target: targetOf(cfg.baseURL),
        path: path + query,
        method: 'POST',
        headers,
        body: payload,
        timeoutMs,
        retries,
        baseDelayMs,
        maxDelayMs,
        signal: ac,
        agents,
      });
      if (out.kind === 'aborted') {
        await record(call, {
          status: 499,
          upstreamStatus: null,
          classification: closed ? 'transport_failure' : 'candidate_request_error',
          error: closed ? 'gateway_closed' : 'client_aborted',
          attempts: out.attempts,
          usage: null,
          truncated: false,
          response: null,
        });
        return;
      }
      if (out.kind === 'error') {
        const status = out.error === 'upstream_timeout' ? 504 : 502;
        const message = `heldout gateway: upstream ${out.error.replace('upstream_', '')} after ${out.attempts} attempt(s): ${out.message}`;
        await record(call, {
          status,
          upstreamStatus: out.lastStatus,
          classification: 'transport_failure',
          error: out.error,
          attempts: out.attempts,
          usage: null,
          truncated: out.error === 'upstream_truncated',
          response: null,
        });
        sendError(res, call, status, out.error, message, 'server_error');
        return;
      }
      if (out.kind === 'buffered') return await finishBuffered(call, res, out, raw.length, endpoint);
      return await finishStream(call, res, out, ac, raw.length, endpoint, dropUsageChunk);
    } finally {
      inflight.delete(ac);
      res.off('close', onClose);
    }
  }

  async function noModel(res: http.ServerResponse, call: Call | null, role: Role, cfg: RoleConfig) {
    const R = role.toUpperCase();
    const missing = !cfg.baseURL
      ? `set HELDOUT_${R}_BASE_URL (and HELDOUT_${R}_API_KEY, HELDOUT_${R}_MODEL) or OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL`
      : `set HELDOUT_${R}_MODEL or OPENAI_MODEL`;
    const message = `heldout gateway: no model configured for role ${role}: ${missing}`;
    if (call) {
      await record(call, {
        status: 503,
        upstreamStatus: null,
        classification: 'provider_failure',
        error: 'no_model_configured',
        attempts: 0,
        usage: null,
        truncated: false,
        response: JSON.parse(errorBody('no_model_configured', message, 'server_error')),
      });
    }
    sendError(res, call, 503, 'no_model_configured', message, 'server_error');
  }

  async function finishBuffered(
    call: Call,
    res: http.ServerResponse,
    out: { status: number; headers: http.IncomingHttpHeaders; body: Buffer; attempts: number },
    requestBytes: number,
    endpoint: Endpoint,
  ) {
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
      await record(call, {
        status: 502,
        upstreamStatus: out.status,
        classification: 'provider_failure',
        error: 'upstream_malformed',
        attempts: out.attempts,
        usage: null,
        truncated: false,
        response: parsed,
      });
      sendError(res, call, 502, 'upstream_malformed', message, 'server_error');
      return;
    }
    let usage: LedgerUsage | null = null;
    if (ok) {
      usage = usageOfBody(parsed);
      if (!usage) {
        const p = Math.ceil(requestBytes / 4);
        const c = endpoint === 'embeddings' ? 0 : roughTokens(text);
        usage = { promptTokens: p, completionTokens: c, totalTokens: p + c, estimated: true };
      }
    }
    const cls = classOfStatus(out.status);
    call.firstByteMs = Math.round((now() - call.t0) * 1000) / 1000;
    await record(call, {
      status: out.status,
      upstreamStatus: out.status,
      classification: cls,
      error: cls === 'success' ? null : `upstream_${out.status}`,
      attempts: out.attempts,
      usage,
      truncated: false,
      response: parsed,
      responseText: isJson ? text : undefined,
    });
    if (res.destroyed) return;
    const payload = secrets.length && secrets.some((k) => text.includes(k)) ? Buffer.from(scrub(text)) : out.body;
    const headers: Record<string, string | number> = {
      'content-type': String(out.headers['content-type'] ?? 'application/json'),
      'content-length': payload.length,
      'x-heldout-call-id': call.callId,
    };
    const rid = out.headers['x-request-id'];
    if (typeof rid === 'string') headers['x-request-id'] = rid;
    if (!ok) headers['x-should-retry'] = 'false';
    res.writeHead(out.status, headers);
    res.end(payload);
  }

  async function finishStream(
    call: Call,
    res: http.ServerResponse,
    out: { status: number; headers: http.IncomingHttpHeaders; stream: http.IncomingMessage; attempts: number },
    ac: Abort,
    requestBytes: number,
    endpoint: Endpoint,
    dropUsageChunk: boolean,
  ) {
    const up = out.stream;
    const headers: Record<string, string> = {
      'content-type': String(out.headers['content-type'] ?? 'text/event-stream'),
      'cache-control': 'no-cache',
      'x-heldout-call-id': call.callId,
    };
    const rid = out.headers['x-request-id'];
    if (typeof rid === 'string') headers['x-request-id'] = rid;
    res.writeHead(out.status, headers);
    res.flushHeaders();
    call.firstByteMs = Math.round((now() - call.t0) * 1000) / 1000;

    const splitter = new SseSplitter();
    const watcher = new StreamWatcher(endpoint, dropUsageChunk, keepTrace);
    const decoder = new StringDecoder('utf8');
    const forward = (events: ReturnType<SseSplitter['push']>) => {
      let s = '';
      for (const ev of events) if (watcher.see(ev)) s += ev.raw + '\n\n';
      if (s === '' || res.destroyed) return;
      if (secrets.length) s = scrub(s);
      if (!res.write(s)) {
        up.pause();
        idle.pause();
        res.once('drain', () => {
          idle.resume();
          up.resume();
        });
      }
    };
    let paused = false;
    const idleTimer = setTimeout(() => finish('timeout'), timeoutMs);
    const idle = {
      pause() {
        paused = true;
      },
      resume() {
        paused = false;
        idleTimer.refresh();
      },
    };
    let finish!: (why: 'end' | 'error' | 'timeout' | 'client') => void;
    const ended = new Promise<'end' | 'error' | 'timeout' | 'client'>((resolve) => {
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
      idleTimer.refresh();
      forward(splitter.push(decoder.write(chunk)));
    });
    up.on('end', () => finish(up.complete ? 'end' : 'error'));
    up.on('aborted', () => finish('error'));
    up.on('error', () => finish('error'));
    up.on('close', () => finish(up.complete ? 'end' : 'error'));
    const offAbort = ac.on(() => finish('client'));
    const why = await ended;
    offAbort();
    if (why !== 'client') {
      const tail = decoder.end();
      const last = splitter.push(tail);
      const rest = splitter.rest();
      if (rest) last.push(rest);
      forward(last);
    }
    if (why !== 'end') up.destroy();

    let usage = watcher.usage;
    if (!usage && why !== 'client') {
      const p = Math.ceil(requestBytes / 4);
      const c = roughTokens(watcher.text);
      usage = { promptTokens: p, completionTokens: c, totalTokens: p + c, estimated: true };
    }
    const response = keepTrace ? { events: watcher.events, assembled: watcher.assembled() } : null;
    if (why === 'client') {
      await record(call, {
        status: out.status,
        upstreamStatus: out.status,
        classification: closed ? 'transport_failure' : 'candidate_request_error',
        error: closed ? 'gateway_closed' : 'client_aborted',
        attempts: out.attempts,
        usage,
        truncated: closed,
        response,
      });
      return;
    }
    if (why === 'end' && watcher.complete) {
      const cls = watcher.malformed ? 'provider_failure' : classOfStatus(out.status);
      await record(call, {
        status: out.status,
        upstreamStatus: out.status,
        classification: cls,
        error: watcher.malformed ? 'stream_malformed' : cls === 'success' ? null : `upstream_${out.status}`,
        attempts: out.attempts,
        usage,
        truncated: false,
        response,
      });
      if (!res.destroyed) res.end();
      return;
    }
    // Truncated: the provider ended the stream without its end marker, or the connection broke or went idle.
    const code = why === 'end' ? 'stream_truncated' : why === 'timeout' ? 'upstream_timeout' : 'upstream_truncated';
    const message =
      why === 'end'
        ? 'heldout gateway: the upstream stream ended before its end marker ([DONE] / finish_reason / response.completed); the reply is incomplete'
        : why === 'timeout'
          ? `heldout gateway: the upstream stream went silent for ${timeoutMs} ms; the reply is incomplete`
          : 'heldout gateway: the upstream connection broke mid-stream; the reply is incomplete';
    await record(call, {
      status: out.status,
      upstreamStatus: out.status,
      classification: why === 'end' ? 'provider_failure' : 'transport_failure',
      error: code,
      attempts: out.attempts,
      usage,
      truncated: true,
      response,
    });
    if (res.destroyed) return;
    const ev = `event: error\ndata: ${errorBody(code, message, 'server_error')}\n\n`;
    res.write(ev, () => res.destroy());
  }

  const onRequest = (viaTcp: boolean) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res, viaTcp).catch((err) => {
      if (!res.headersSent)
        sendError(res, null, 500, 'gateway_error', `heldout gateway: ${String(err)}`, 'server_error');
      else res.destroy();
    });
  };

  const socketServer = http.createServer(onRequest(false));
  socketServer.keepAliveTimeout = 30_000;
  if (existsSync(socketPath)) {
    if (statSync(socketPath).isSocket()) unlinkSync(socketPath);
    else throw new Error(`heldout gateway: ${socketPath} exists and is not a socket`);
  }
  await new Promise<void>((resolve, reject) => {
    socketServer.once('error', reject);
    socketServer.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o666); // the sandbox's non-root user must be able to connect

  let tcpServer: http.Server | null = null;
  let tcpUrl: string | undefined;
  if (options.tcp) {
    const port = typeof options.tcp === 'object' ? (options.tcp.port ?? 0) : 0;
    tcpServer = http.createServer(onRequest(true));
    tcpServer.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      tcpServer!.once('error', reject);
      tcpServer!.listen(port, '127.0.0.1', () => resolve());
    });
    tcpUrl = `http://127.0.0.1:${(tcpServer.address() as AddressInfo).port}`;
  }

  const gateway: Gateway = {
    socketPath,
    tcpUrl,
    ledgerDir,
    roles,
    registerCase(r: CaseRegistration): RegisteredCase {
      if (typeof r.caseId !== 'string' || r.caseId === '')
        throw new Error('registerCase: caseId must be a non-empty string');
      if (!Number.isInteger(r.trial) || r.trial < 0)
        throw new Error('registerCase: trial must be a non-negative integer');
      const role = r.role ?? 'runtime';
      if (!ROLES.includes(role)) throw new Error(`registerCase: unknown role ${role}`);
      const token = `heldout-${randomBytes(18).toString('base64url')}`;
      const reg: Registration = {
        caseId: r.caseId,
        trial: r.trial,
        role,
        token,
        budgets: { ...r.budgets },
        firstCallAt: null,
        calls: 0,
        tokens: 0,
      };
      byToken.set(token, reg);
      byCase.set(caseKey(r.caseId, r.trial), reg);
      const env: Record<string, string> = { OPENAI_API_KEY: token };
      if (tcpUrl) env.OPENAI_BASE_URL = `${tcpUrl}/v1`;
      if (roles[role].model) env.OPENAI_MODEL = roles[role].model!;
      return { caseId: r.caseId, trial: r.trial, role, token, env };
    },
    ledgerFor(caseId, trial) {
      return [...(ledgers.get(caseKey(caseId, trial)) ?? [])];
    },
    usage(caseId, trial) {
      const reg = byCase.get(caseKey(caseId, trial));
      return { calls: reg?.calls ?? 0, tokens: reg?.tokens ?? 0 };
    },
    roleBaseURL(role) {
      if (!tcpUrl) throw new Error('roleBaseURL: start the gateway with { tcp: true }');
      return `${tcpUrl}/role/${role}/v1`;
    },
    flush() {
      return writer.flush();
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const ac of inflight) ac.abort();
      for (let i = 0; i < 100 && inflight.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
      const servers = [socketServer, tcpServer].filter((s): s is http.Server => s !== null);
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
      agents.http.destroy();
      agents.https.destroy();
      await writer.close().catch(() => {});
      try {
        unlinkSync(socketPath!);
      } catch {}
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
  return gateway;
}
