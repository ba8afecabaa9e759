/**
 * The one writer of ledger and trace lines. Every way a call ends comes here as an `Outcome`; the line's fields and
 * their order are spelled once, below. The files are the only record: the gateway answers `ledgerFor` from them.
 */
import { randomBytes } from 'node:crypto';
import { MIN_TRACE_LINE_BYTES, traceLine } from './bounds.js';
import type { CaseBudget } from './budget.js';
import type { Verdict } from './classify.js';
import { LineWriter, ledgerPath, readLedger, tracePath } from './ledger.js';
import { costOf, type ModelPrice, type PricingTable } from './pricing.js';
import type { Redactor } from './redact.js';
import type { Endpoint, LedgerEntry, LedgerUsage, Role } from './types.js';

/** One model call as it goes through the gateway; filled in as the request is read. */
export interface Call {
  callId: string;
  time: string;
  /** `performance.now()` when the request arrived. */
  t0: number;
  role: Role;
  caseId: string;
  trial: number;
  /** The registration it is charged to; null for an evaluator-role call without a case. */
  budget: CaseBudget | null;
  endpoint: Endpoint | 'unknown';
  requestedModel: string | null;
  model: string | null;
  stream: boolean;
  request: unknown;
  /** `request` as JSON text when at hand. */
  requestText?: string;
  firstByteMs: number | null;
  /** Tokens reserved against the case's budget while the call is in flight; 0 once settled (or never admitted). */
  reserved: number;
  /** USD reserved against the case's usd budget while the call is in flight, as `reserved`. */
  reservedUsd: number;
}

/** Releases a call's reservation without charging it: for a call that ended without a ledger line (a throw). */
export function release(call: Call): void {
  if (call.reserved === 0 && call.reservedUsd === 0) return;
  call.budget?.settle(call.reserved, 0, call.reservedUsd, 0);
  call.reserved = 0;
  call.reservedUsd = 0;
}

/** Where the trace stops: the bounds of one line and of one (case, trial)'s lines. */
export interface TraceBounds {
  lineBytes: number;
  caseBytes: number;
}

/** Room kept under a case's trace bound for the one line that says the bound was reached. */
const LAST_LINE_BYTES = 1024;

/**
 * How a call ended: what the ledger line says beyond the call itself. Left out: the call never went upstream.
 * (Built as a plain literal at each end: spreading a verdict into it costs measurably per call.)
 */
export interface Outcome {
  /** HTTP status given to the caller. */
  status: number;
  verdict: Verdict;
  upstreamStatus?: number | null;
  attempts?: number;
  usage?: LedgerUsage | null;
  truncated?: boolean;
  /** The provider's error event inside a 200 stream, kept in the ledger line as evidence. */
  upstreamError?: LedgerEntry['upstreamError'];
  /** For the trace. */
  response?: unknown;
  /** The response as JSON text, when at hand (spliced into the trace instead of re-serialising). */
  responseText?: string;
}

/** Milliseconds since `t0`, to the microsecond. */
export function sinceMs(t0: number): number {
  return Math.round((performance.now() - t0) * 1000) / 1000;
}

/** JSON text usable as-is inside a JSONL line (no raw line breaks), else undefined. */
function oneLine(text: string | undefined): string | undefined {
  return text !== undefined && !text.includes('\n') && !text.includes('\r') ? text : undefined;
}

export class CallRecorder {
  private readonly writer: LineWriter;
  /** Call ids are unique across gateways sharing a ledger dir. */
  private readonly idPrefix = randomBytes(3).toString('hex');
  private seq = 0;

  /** Bytes written to each trace file by this gateway; past the case bound, -1 (nothing more is written). */
  private readonly traceBytes = new Map<string, number>();

  /** Models already said to be missing from the pricing table (each is said once per gateway). */
  private readonly unpriced = new Set<string>();

  constructor(
    readonly ledgerDir: string,
    private readonly keepTrace: boolean,
    private readonly redactor: Redactor,
    private readonly bounds: TraceBounds = { lineBytes: Number.POSITIVE_INFINITY, caseBytes: Number.POSITIVE_INFINITY },
    private readonly pricing: PricingTable | null = null,
    private readonly notice: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.writer = new LineWriter(ledgerDir);
  }

  /** The rates of `model`, or null when there is no table or the model is not in it (said once per model). */
  priceOf(model: string | null): ModelPrice | null {
    if (!this.pricing || model === null) return null;
    const price = this.pricing.models[model];
    if (price) return price;
    if (!this.unpriced.has(model)) {
      this.unpriced.add(model);
      this.notice(
        `heldout gateway: model ${model} is not in the pricing table ${this.pricing.source}: its calls are ledgered with costUsd null, never as 0`,
      );
    }
    return null;
  }

  /** The pricing table's file, when there is one (named by a refusal). */
  get pricingSource(): string | null {
    return this.pricing?.source ?? null;
  }

  /** USD of a call's usage: 0 when it used nothing, null when its model is unpriced, undefined without a table. */
  private costOf(call: Call, usage: LedgerUsage | null): number | null | undefined {
    if (!this.pricing) return undefined;
    if (!usage || usage.totalTokens === 0) return 0;
    const price = this.priceOf(call.model);
    return price ? costOf(price, usage) : null;
  }

  /** Runs once a call is attributed and its endpoint known: gives it its id and arrival time. */
  begin(t0: number, role: Role, caseId: string, trial: number, budget: CaseBudget | null, endpoint?: Endpoint): Call {
    return {
      callId: `call_${this.idPrefix}${(++this.seq).toString(36)}`,
      time: new Date().toISOString(),
      t0,
      role,
      caseId,
      trial,
      budget,
      endpoint: endpoint ?? 'unknown',
      requestedModel: null,
      model: null,
      stream: false,
      request: null,
      firstByteMs: null,
      reserved: 0,
      reservedUsd: 0,
    };
  }

  /**
   * Runs once per call, when it has ended and before its caller sees the end: settles its tokens (releasing its
   * reservation), queues the trace line and resolves once the ledger line is written. A call that failed is charged
   * only usage the upstream reported: the gateway's estimate stands in for a missing report on success only.
   */
  async record(call: Call, o: Outcome): Promise<void> {
    const usage = o.usage?.estimated && o.verdict.classification !== 'success' ? null : (o.usage ?? null);
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
      status: o.status,
      upstreamStatus: o.upstreamStatus ?? null,
      classification: o.verdict.classification,
      error: o.verdict.error,
      attempts: o.attempts ?? 0,
      latencyMs: sinceMs(call.t0),
      firstByteMs: call.firstByteMs,
      usage,
      truncated: o.truncated ?? false,
    };
    if (o.upstreamError) entry.upstreamError = o.upstreamError;
    const cost = this.costOf(call, usage);
    if (cost !== undefined) entry.costUsd = cost;
    call.budget?.settle(call.reserved, usage?.totalTokens ?? 0, call.reservedUsd, cost ?? 0);
    call.reserved = 0;
    call.reservedUsd = 0;
    if (this.keepTrace) this.trace(call, o);
    await this.writer.append(ledgerPath(this.ledgerDir, call.caseId, call.trial), JSON.stringify(entry));
  }

  /**
   * Queues the call's trace line, bounded by `bounds.lineBytes` and by what is left of `bounds.caseBytes`; the keys
   * are redacted before a body is cut, so a cut never leaves part of a key. Past the case bound one last line says
   * so, and later calls have no trace line.
   */
  private trace(call: Call, o: Outcome): void {
    const path = tracePath(this.ledgerDir, call.caseId, call.trial);
    const written = this.traceBytes.get(path) ?? 0;
    if (written < 0) return;
    const head = JSON.stringify({
      callId: call.callId,
      time: call.time,
      role: call.role,
      endpoint: call.endpoint,
      status: o.status,
    });
    const room = Math.min(this.bounds.lineBytes, this.bounds.caseBytes - LAST_LINE_BYTES - written);
    let line: string;
    if (room < MIN_TRACE_LINE_BYTES) {
      const why = `the trace of this case reached its bound of ${this.bounds.caseBytes} bytes: later calls are in the ledger only`;
      line = `${head.slice(0, -1)},"request":null,"response":null,"traceBound":${JSON.stringify(why)}}`;
      this.traceBytes.set(path, -1);
    } else {
      let req: string;
      let resp: string;
      try {
        req = oneLine(call.requestText) ?? JSON.stringify(call.request ?? null);
        resp = oneLine(o.responseText) ?? JSON.stringify(o.response ?? null);
      } catch (err) {
        // a body that cannot be written as JSON must not cost the call its ledger line
        req = JSON.stringify({ unserialisable: String(err) });
        resp = 'null';
      }
      const r = this.redactor;
      line = traceLine(head, r.active ? r.scrub(req) : req, r.active ? r.scrub(resp) : resp, room);
      this.traceBytes.set(path, written + Buffer.byteLength(line) + 1);
    }
    void this.writer.append(path, line);
  }

  /** The ledger of (caseId, trial) as written so far: a call's line is there before its caller sees the end. */
  ledgerFor(caseId: string, trial: number): LedgerEntry[] {
    return readLedger(this.ledgerDir, caseId, trial);
  }

  /** Resolves when every line recorded so far is on disk; rethrows a write failure. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Flushes and closes the files; a write failure is not rethrown (the gateway is going away). */
  close(): Promise<void> {
    return this.writer.close().catch(() => {});
  }
}
