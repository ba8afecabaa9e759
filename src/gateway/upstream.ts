/** One upstream call with retries on 408/425/429/5xx and on transport errors, exponential backoff and a cap. */
import http from 'node:http';
import https from 'node:https';

export type TransportError = 'upstream_unreachable' | 'upstream_timeout' | 'upstream_truncated';

/** A cheap abort signal (an AbortController per call is measurable on the hot path). */
export class Abort {
  aborted = false;
  private fns: (() => void)[] = [];
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    for (const f of this.fns.splice(0)) f();
  }
  /** Calls fn on abort (at once if already aborted); returns the unsubscribe. */
  on(fn: () => void): () => void {
    if (this.aborted) {
      fn();
      return () => {};
    }
    this.fns.push(fn);
    return () => {
      const i = this.fns.indexOf(fn);
      if (i >= 0) this.fns.splice(i, 1);
    };
  }
}

/** Where one role's upstream is, parsed once. */
export interface UpstreamTarget {
  https: boolean;
  hostname: string;
  port: number;
  /** Path prefix of the base URL, e.g. `/v1` (no trailing slash). */
  basePath: string;
}

export function parseTarget(baseURL: string): UpstreamTarget {
  const u = new URL(baseURL);
  const https = u.protocol === 'https:';
  return {
    https,
    hostname: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : https ? 443 : 80,
    basePath: u.pathname.replace(/\/+$/, ''),
  };
}

/** What every call of one gateway shares upstream: keep-alive agents and each base URL parsed once. */
export class UpstreamPool {
  readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
  };
  private readonly targets = new Map<string, UpstreamTarget>();

  target(baseURL: string): UpstreamTarget {
    let t = this.targets.get(baseURL);
    if (!t) {
      t = parseTarget(baseURL);
      this.targets.set(baseURL, t);
    }
    return t;
  }

  /** Runs at close: drops the kept-alive connections. */
  destroy(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

export interface UpstreamRequest {
  target: UpstreamTarget;
  /** Path and query after the base path, e.g. `/chat/completions`. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
  /** Responses with an event-stream content type are handed over unread (for passthrough); others are buffered. */
  timeoutMs: number;
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  signal: Abort;
  agents: { http: http.Agent; https: https.Agent };
  /**
   * Told on every byte back; `left()` is how much more silence the call may hear in all (across attempts): an
   * attempt that timed out is retried only while a whole `timeoutMs` still fits.
   */
  silence?: { heard(): void; left(): number };
}

export type UpstreamOutcome =
  | {
      kind: 'buffered';
      status: number;
      headers: http.IncomingHttpHeaders;
      body: Buffer;
      attempts: number;
    }
  | {
      kind: 'stream';
      status: number;
      headers: http.IncomingHttpHeaders;
      stream: http.IncomingMessage;
      attempts: number;
    }
  | {
      kind: 'error';
      error: TransportError;
      message: string;
      /** Status of the last attempt that answered at all, if any. */
      lastStatus: number | null;
      attempts: number;
    }
  | { kind: 'aborted'; attempts: number };

class AttemptError extends Error {
  constructor(
    readonly code: TransportError,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

export function isEventStream(headers: http.IncomingHttpHeaders): boolean {
  return String(headers['content-type'] ?? '').includes('text/event-stream');
}

function attemptOnce(
  r: UpstreamRequest,
): Promise<
  | { stream: false; status: number; headers: http.IncomingHttpHeaders; body: Buffer }
  | { stream: true; status: number; headers: http.IncomingHttpHeaders; res: http.IncomingMessage }
> {
  return new Promise((resolve, reject) => {
    const mod = r.target.https ? https : http;
    const agent = r.target.https ? r.agents.https : r.agents.http;
    let settled = false;
    const fail = (err: AttemptError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      off();
      req.destroy();
      reject(err);
    };
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body) headers['content-length'] = r.body.length;
    const req = mod.request({
      protocol: r.target.https ? 'https:' : 'http:',
      hostname: r.target.hostname,
      port: r.target.port,
      path: r.target.basePath + r.path,
      method: r.method,
      headers,
      agent,
    });
    const timer = setTimeout(
      () => fail(new AttemptError('upstream_timeout', `no answer from upstream within ${r.timeoutMs} ms`)),
      r.timeoutMs,
    );
    let off = () => {};
    off = r.signal.on(() => fail(new AttemptError('upstream_unreachable', 'aborted')));
    req.on('error', (err) => fail(new AttemptError('upstream_unreachable', err.message)));
    req.on('response', (res) => {
      r.silence?.heard();
      const status = res.statusCode ?? 0;
      if (isEventStream(res.headers) && !isRetryableStatus(status)) {
        settled = true;
        clearTimeout(timer);
        off();
        resolve({ stream: true, status, headers: res.headers, res });
        return;
      }
      const chunks: Buffer[] = [];
      timer.refresh();
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        timer.refresh();
        r.silence?.heard();
      });
      res.on('aborted', () =>
        fail(new AttemptError('upstream_truncated', 'upstream cut the connection mid-body', status)),
      );
      res.on('error', (err) =>
        fail(new AttemptError('upstream_truncated', `upstream body failed: ${err.message}`, status)),
      );
      res.on('end', () => {
        if (settled) return;
        if (!res.complete) {
          fail(new AttemptError('upstream_truncated', 'upstream cut the connection mid-body', status));
          return;
        }
        settled = true;
        clearTimeout(timer);
        off();
        resolve({ stream: false, status, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.end(r.body ?? undefined);
  });
}

function retryAfterMs(headers: http.IncomingHttpHeaders): number | null {
  const ms = Number(headers['retry-after-ms']);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const h = headers['retry-after'];
  if (h === undefined) return null;
  const s = Number(h);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const date = Date.parse(String(h));
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}

function sleep(ms: number, signal: Abort): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const t = setTimeout(() => {
      off();
      resolve(true);
    }, ms);
    const off = signal.on(() => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

function backoff(r: UpstreamRequest, attempt: number, hint: number | null): number {
  const exp = r.baseDelayMs * 2 ** (attempt - 1);
  const jittered = exp * (0.75 + Math.random() * 0.5);
  return Math.min(r.maxDelayMs, Math.max(hint ?? 0, jittered));
}

export async function callUpstream(r: UpstreamRequest): Promise<UpstreamOutcome> {
  let lastStatus: number | null = null;
  for (let attempt = 1; ; attempt++) {
    if (r.signal.aborted) return { kind: 'aborted', attempts: attempt - 1 };
    let hint: number | null = null;
    try {
      const a = await attemptOnce(r);
      lastStatus = a.status;
      const retry = isRetryableStatus(a.status) && attempt <= r.retries;
      if (!retry) {
        return a.stream
          ? { kind: 'stream', status: a.status, headers: a.headers, stream: a.res, attempts: attempt }
          : { kind: 'buffered', status: a.status, headers: a.headers, body: a.body, attempts: attempt };
      }
      if (a.stream) a.res.resume();
      hint = retryAfterMs(a.headers);
    } catch (err) {
      if (r.signal.aborted) return { kind: 'aborted', attempts: attempt };
      const e = err as AttemptError;
      if (e.status !== null && e.status !== undefined) lastStatus = e.status;
      const fits = e.code !== 'upstream_timeout' || (r.silence?.left() ?? Number.POSITIVE_INFINITY) >= r.timeoutMs;
      if (attempt > r.retries || !fits) {
        return {
          kind: 'error',
          error: e.code ?? 'upstream_unreachable',
          message: e.message,
          lastStatus,
          attempts: attempt,
        };
      }
    }
    if (!(await sleep(backoff(r, attempt, hint), r.signal))) return { kind: 'aborted', attempts: attempt };
  }
}
