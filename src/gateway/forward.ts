/**
 * One request, start to end: attribute → read body → check upstream configured (503) → check budgets (429) →
 * overwrite `model` (and, for a chat stream, ask upstream for usage, dropping that chunk if the caller had not asked)
 * → forward with retries → pass the answer back (buffered or streamed). Every attributed call is recorded exactly
 * once, except one whose caller hangs up while still sending its body (there is no call to speak of).
 */
import type http from 'node:http';
import { passBuffered } from './buffered.js';
import type { Call } from './call-recorder.js';
import { cutShort } from './classify.js';
import { noModelMessage } from './config.js';
import type { CallContext } from './context.js';
import { errorBody, sendError, sendJson } from './replies.js';
import { attribute, ENDPOINTS, isModelsRequest, modelsBody } from './routes.js';
import { Silence } from './silence.js';
import { passStream } from './streamed.js';
import type { CallClass } from './types.js';
import { Abort, callUpstream } from './upstream.js';

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
  const responseText = errorBody(code, message, type);
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
    return sendJson(res, modelsBody(path, cfg.model));
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
      `heldout gateway: ${req.method} ${path} is not served (POST /v1/chat/completions, /v1/responses, /v1/embeddings; GET /v1/models)`,
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
  call.requestedModel = typeof body.model === 'string' ? body.model : null;
  call.stream = body.stream === true;
  call.request = body;

  if (!cfg.baseURL || !cfg.model) {
    const message = noModelMessage(role, cfg);
    return refuse(ctx, res, call, 503, 'no_model_configured', message, 'provider_failure', 'server_error');
  }
  const overBudget = budget?.admit() ?? null;
  if (overBudget) {
    return refuse(ctx, res, call, 429, 'budget_exceeded', overBudget, 'candidate_request_error', 'budget_exceeded');
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
  ctx.inflight.add(ac);
  const onClose = () => {
    if (!res.writableFinished) ac.abort();
  };
  res.on('close', onClose);
  try {
    const { retries, baseDelayMs, maxDelayMs, timeoutMs } = ctx.settings;
    const silence = new Silence(timeoutMs, budget?.wallSeconds);
    const out = await callUpstream({
      target: ctx.upstreams.target(cfg.baseURL),
      path: path + query,
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
    if (out.kind === 'buffered') return await passBuffered(ctx, call, res, out, raw.length, endpoint);
    return await passStream(ctx, call, res, out, ac, raw.length, endpoint, dropUsageChunk, silence);
  } finally {
    ctx.inflight.delete(ac);
    res.off('close', onClose);
  }
}
