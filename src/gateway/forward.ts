/**
 * One request, start to end: attribute → read body (413 too large, 400 not JSON, nested too deep or not an object)
 * → check upstream configured (503) → check budgets and reserve tokens (429; a call whose tokens' room is held by
 * calls in flight waits for one to settle) → overwrite `model` (embeddings: the role's embedding model; for a chat
 * stream, ask upstream for usage, dropping that chunk if the caller had not asked) → forward with retries → pass the answer back (buffered or streamed). Every attributed call is recorded exactly
 * once, except one whose caller hangs up while still sending its body (there is no call to speak of).
 */
import type http from 'node:http';
import { MessagesStream } from './anthropic-reply.js';
import { jsonDepth, MAX_JSON_DEPTH } from './bounds.js';
import { type CaseBudget, reservedParts } from './budget.js';
import { passBuffered } from './buffered.js';
import { type Call, release } from './call-recorder.js';
import { cutShort } from './classify.js';
import { modelFor, noModelMessage, protocolOf } from './config.js';
import type { CallContext } from './context.js';
import { reservationCost } from './pricing.js';
import { errorBodyFor, sendError, sendJson } from './replies.js';
import { attribute, ENDPOINTS, isModelsRequest, modelsBody } from './routes.js';
import { Silence } from './silence.js';
import { passStream } from './streamed.js';
import type { CallClass, Endpoint } from './types.js';
import { Abort, callUpstream } from './upstream.js';
import { planUpstream } from './upstream-plan.js';

/** Ledgers a call the gateway answers itself with an error (it never went upstream), then answers. */
async function refuse(
  ctx: CallContext,
  res: http.ServerResponse,
  call: Call,
  status: number,
  code: string,
  message: string,
  classification: CallClass,
  type = 'invalid_request_error',
): Promise<void> {
  const responseText = errorBodyFor(call, status, code, message, type);
  await ctx.recorder.record(call, { status, verdict: { classification, error: code }, responseText });
  sendError(res, call, status, code, message, type);
}

function readBody(req: http.IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > maxBytes) {
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

/** Runs for every request on either way in (`viaTcp`: the loopback listener, where `/role/` paths are allowed). */
export async function handleRequest(
  ctx: CallContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  viaTcp: boolean,
): Promise<void> {
  const t0 = performance.now();
  const who = attribute(req, viaTcp, ctx.cases);
  if (!who.ok) return sendError(res, null, who.refused.status, who.refused.code, who.refused.message);
  const { role, caseId, trial, budget, path, query } = who.to;
  const cfg = ctx.roles[role];
  const { maxBodyBytes } = ctx.settings;

  if (isModelsRequest(req.method, path)) {
    if (!cfg.baseURL || !cfg.model) {
      return sendError(res, null, 503, 'no_model_configured', noModelMessage(role, cfg), 'server_error');
    }
    return sendJson(res, modelsBody(path, cfg.model, cfg.embeddingModel));
  }

  const endpoint = ENDPOINTS[path];
  const call = ctx.recorder.begin(t0, role, caseId, trial, budget, endpoint);
  if (req.method !== 'POST' || !endpoint) {
    req.resume();
    call.request = { method: req.method, path };
    return refuse(
      ctx,
      res,
      call,
      404,
      'unsupported_endpoint',
      `heldout gateway: ${req.method} ${path} is not served (POST /v1/chat/completions, /v1/responses, /v1/embeddings, /v1/messages, /v1/messages/count_tokens; GET /v1/models)`,
      'candidate_request_error',
    );
  }
  const raw = await readBody(req, maxBodyBytes);
  if (raw === 'aborted') return;
  if (raw === 'too_large') {
    res.setHeader('connection', 'close');
    const message = `heldout gateway: request body over ${maxBodyBytes} bytes`;
    return refuse(ctx, res, call, 413, 'request_too_large', message, 'candidate_request_error');
  }
  // JSON.parse takes any depth, but JSON.stringify (for the upstream and the trace) overflows the stack on it.
  if (jsonDepth(raw, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    call.request = raw.toString('utf8', 0, 10_000);
    const message = `heldout gateway: the request body nests arrays/objects deeper than ${MAX_JSON_DEPTH} levels`;
    return refuse(ctx, res, call, 400, 'invalid_request', message, 'candidate_request_error');
  }
  let body: any;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    call.request = raw.toString('utf8').slice(0, 10_000);
    const message = 'heldout gateway: the request body is not JSON';
    return refuse(ctx, res, call, 400, 'invalid_json', message, 'candidate_request_error');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    call.request = body;
    const message = 'heldout gateway: the request body must be a JSON object';
    return refuse(ctx, res, call, 400, 'invalid_request', message, 'candidate_request_error');
  }
  // A chat upstream has no token counter: the gateway estimates, as it does for usage a provider leaves out.
  if (endpoint === 'messages.count_tokens' && protocolOf(cfg) === 'openai') {
    return sendJson(res, { input_tokens: Math.ceil(raw.length / 4) });
  }
  call.requestedModel = typeof body.model === 'string' ? body.model : null;
  call.stream = body.stream === true;
  call.request = body;

  const embeddings = endpoint === 'embeddings';
  const model = modelFor(cfg, embeddings);
  if (!cfg.baseURL || !model) {
    const message = noModelMessage(role, cfg, embeddings);
    return refuse(ctx, res, call, 503, 'no_model_configured', message, 'provider_failure', 'server_error');
  }
  const parts = reservedParts(endpoint, body, raw.length, ctx.settings.reserveOutputTokens);
  const reservation = budget ? parts.prompt + parts.output : 0;
  let reservationUsd = 0;
  if (budget?.usdLimited) {
    // A usd budget cannot be kept on a model with no price: the evaluator's table is at fault, not the delivery.
    const price = ctx.recorder.priceOf(model);
    if (!price) {
      const where = ctx.recorder.pricingSource ?? 'none given (--pricing)';
      const message = `heldout gateway: the case has a usd budget but model ${model} has no price (pricing table: ${where})`;
      return refuse(ctx, res, call, 503, 'model_unpriced', message, 'provider_failure', 'server_error');
    }
    reservationUsd = reservationCost(price, parts.prompt, parts.output);
  }
  // From here the call can be waiting or in flight: a caller hanging up, or close(), aborts it.
  const ac = new Abort();
  ctx.inflight.add(ac);
  const onClose = () => {
    if (!res.writableFinished) ac.abort();
  };
  res.on('close', onClose);
  try {
    const admitted = budget ? await admission(budget, reservation, reservationUsd, ac) : null;
    if (admitted === 'aborted') {
      await ctx.recorder.record(call, { status: 499, verdict: cutShort(ctx.closing), attempts: 0 });
      return;
    }
    if (admitted) {
      return refuse(ctx, res, call, 429, 'budget_exceeded', admitted, 'candidate_request_error', 'budget_exceeded');
    }
    call.reserved = reservation;
    call.reservedUsd = reservationUsd;
    return await sendUpstream(ctx, req, res, call, body, raw.length, path + query, cfg.baseURL, model, ac);
  } finally {
    ctx.inflight.delete(ac);
    res.off('close', onClose);
    release(call); // settled already unless the call ended in a throw
  }
}

/**
 * Admits a call against its budget, waiting while the token budget's room is held by calls in flight: null once it
 * is counted and its tokens reserved, why it is refused, or `aborted` when its caller (or close()) gave up waiting.
 */
async function admission(
  budget: CaseBudget,
  reservation: number,
  reservationUsd: number,
  ac: Abort,
): Promise<string | 'aborted' | null> {
  for (;;) {
    if (ac.aborted) return 'aborted';
    const a = budget.admit(reservation, reservationUsd);
    if ('go' in a) return null;
    if ('refused' in a) return a.refused;
    let off = () => {};
    budget.waiting++;
    await Promise.race([a.wait, new Promise<void>((resolve) => (off = ac.on(resolve)))]);
    budget.waiting--;
    off();
  }
}

/** Runs once a call is admitted: overwrites its model, forwards it with retries and passes the answer back. */
async function sendUpstream(
  ctx: CallContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  call: Call,
  body: any,
  requestBytes: number,
  pathAndQuery: string,
  baseURL: string,
  model: string,
  ac: Abort,
): Promise<void> {
  const endpoint = call.endpoint as Endpoint;
  const cfg = ctx.roles[call.role];
  body.model = model;
  call.model = model;
  const plan = planUpstream(endpoint, protocolOf(cfg), body, pathAndQuery, req.headers, cfg.apiKey, call.stream);
  if ('refused' in plan) {
    return refuse(ctx, res, call, 400, 'untranslatable_request', plan.refused, 'candidate_request_error');
  }
  call.requestText = JSON.stringify(plan.body);
  if (plan.translated) call.request = plan.body;
  const payload = Buffer.from(call.requestText);
  const headers = plan.headers;
  const { retries, baseDelayMs, maxDelayMs, timeoutMs } = ctx.settings;
  const silence = new Silence(timeoutMs, call.budget?.wallSeconds);
  const out = await callUpstream({
    target: ctx.upstreams.target(baseURL),
    path: plan.path,
    method: 'POST',
    headers,
    body: payload,
    timeoutMs: silence.idleMs,
    retries,
    baseDelayMs,
    maxDelayMs,
    signal: ac,
    agents: ctx.upstreams.agents,
    silence,
  });
  if (out.kind === 'aborted') {
    await ctx.recorder.record(call, {
      status: 499,
      verdict: cutShort(ctx.closing, silence.long),
      attempts: out.attempts,
    });
    return;
  }
  if (out.kind === 'error') {
    const status = out.error === 'upstream_timeout' ? 504 : 502;
    const message = `heldout gateway: upstream ${out.error.replace('upstream_', '')} after ${out.attempts} attempt(s): ${out.message}`;
    await ctx.recorder.record(call, {
      status,
      verdict: { classification: 'transport_failure', error: out.error },
      upstreamStatus: out.lastStatus,
      attempts: out.attempts,
      truncated: out.error === 'upstream_truncated',
    });
    sendError(res, call, status, out.error, message, 'server_error');
    return;
  }
  if (out.kind === 'buffered') return await passBuffered(ctx, call, res, out, requestBytes, plan.translated);
  const translator = plan.translated ? new MessagesStream(model, `msg_${call.callId}`) : null;
  return await passStream(ctx, call, res, out, ac, requestBytes, plan.watch, plan.dropUsageChunk, silence, translator);
}
