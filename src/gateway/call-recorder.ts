/**
 * The one writer of ledger and trace lines. Every way a call ends comes here as an `Outcome`; the line's fields and
 * their order are spelled once, below. The files are the only record: the gateway answers `ledgerFor` from them.
 */
import { randomBytes } from 'node:crypto';
import type { CaseBudget } from './budget.js';
import type { Verdict } from './classify.js';
import { LineWriter, ledgerPath, readLedger, tracePath } from './ledger.js';
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
}

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

  constructor(
    readonly ledgerDir: string,
    private readonly keepTrace: boolean,
    private readonly redactor: Redactor,
  ) {
    this.writer = new LineWriter(ledgerDir);
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
    };
  }

  /**
   * Runs once per call, when it has ended and before its caller sees the end: charges its tokens to the case, queues
   * the trace line and resolves once the ledger line is written.
   */
  async record(call: Call, o: Outcome): Promise<void> {
    const usage = o.usage ?? null;
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
    if (call.budget && usage) call.budget.tokens += usage.totalTokens;
    if (this.keepTrace) {
      const head = JSON.stringify({
        callId: call.callId,
        time: call.time,
        role: call.role,
        endpoint: call.endpoint,
        status: o.status,
      });
      const req = oneLine(call.requestText) ?? JSON.stringify(call.request ?? null);
      const resp = oneLine(o.responseText) ?? JSON.stringify(o.response ?? null);
      const line = `${head.slice(0, -1)},"request":${req},"response":${resp}}`;
      void this.writer.append(tracePath(this.ledgerDir, call.caseId, call.trial), this.redactor.scrub(line));
    }
    await this.writer.append(ledgerPath(this.ledgerDir, call.caseId, call.trial), JSON.stringify(entry));
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
