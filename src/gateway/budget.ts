/** The registered cases and what each may still spend (DESIGN §8 budgets). */
import { randomBytes } from 'node:crypto';
import type { Budgets, CaseRegistration, Endpoint, Role } from './types.js';
import { ROLES } from './types.js';

/**
 * A case's tokens: settled (what ended calls used) and reserved (what calls in flight may still use). A call starts
 * only while settled + reserved is under the limit, so as long as each call uses at most its reservation, settled
 * never passes the limit by more than one call's reservation, however many calls run at once. A call that finds the
 * room taken by reservations waits for a call to settle; only settled tokens refuse it. Pure: no clock, no I/O.
 */
export class TokenMeter {
  settled = 0;
  reserved = 0;

  constructor(readonly limit: number | null) {}

  /** Whether another call may start now. */
  hasRoom(): boolean {
    return this.limit == null || this.settled + this.reserved < this.limit;
  }

  /** What a call that asks to start now is told: start, wait for a call in flight to settle, or refused. */
  admission(): 'start' | 'wait' | 'refuse' {
    if (this.limit != null && this.settled >= this.limit) return 'refuse';
    return this.hasRoom() ? 'start' : 'wait';
  }

  /** Runs as an admitted call goes upstream. */
  reserve(tokens: number): void {
    this.reserved += tokens;
  }

  /** Runs once per admitted call as it ends: its reservation is released and what it used is charged. */
  settle(reservation: number, used: number): void {
    this.reserved -= reservation;
    this.settled += used;
  }
}

/** Output tokens reserved for a call that names no `max_tokens`-like cap (`GatewayOptions.reserveOutputTokens`). */
export const DEFAULT_RESERVE_OUTPUT_TOKENS = 8192;

/**
 * Tokens to reserve for a call before it goes upstream: the prompt at bytes / 4 (as the gateway estimates usage)
 * plus the caller's own output cap (`max_completion_tokens`, `max_output_tokens`, `max_tokens`), else
 * `defaultOutput`; an embeddings call has no output.
 */
export function reservationFor(endpoint: Endpoint, body: any, requestBytes: number, defaultOutput: number): number {
  const { prompt, output } = reservedParts(endpoint, body, requestBytes, defaultOutput);
  return prompt + output;
}

/** `reservationFor` in its two parts, prompt and output (a call's price reservation prices them apart). */
export function reservedParts(
  endpoint: Endpoint,
  body: any,
  requestBytes: number,
  defaultOutput: number,
): { prompt: number; output: number } {
  const prompt = Math.ceil(requestBytes / 4);
  if (endpoint === 'embeddings' || endpoint === 'messages.count_tokens') return { prompt, output: 0 };
  const caps = [body?.max_completion_tokens, body?.max_output_tokens, body?.max_tokens];
  const cap = caps.find((v): v is number => Number.isSafeInteger(v) && v > 0);
  return { prompt, output: cap ?? defaultOutput };
}

/** A promise that resolves at the next `fire()`: what a call waiting for room awaits. */
class SettleSignal {
  private current: { promise: Promise<void>; resolve: () => void } | null = null;

  next(): Promise<void> {
    if (!this.current) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.current = { promise, resolve };
    }
    return this.current.promise;
  }

  fire(): void {
    const c = this.current;
    this.current = null;
    c?.resolve();
  }
}

/**
 * A run's dollars (`CaseRegistration.run`): one meter shared by every registration naming the run, so parallel
 * cases reserve from and settle to the same budget; a call waiting for its room is woken by any of them settling.
 */
export class RunPurse {
  readonly meter: TokenMeter;
  readonly signal = new SettleSignal();

  constructor(
    readonly id: string,
    limit: number | null,
  ) {
    this.meter = new TokenMeter(limit);
  }
}

/** What `CaseBudget.admit` says: the call goes (counted, tokens reserved), waits for a call to settle, or why not. */
export type Admission = { go: true } | { wait: Promise<void> } | { refused: string };

const GO: Admission = { go: true };

/** One registration: who it is, its placeholder token, its budgets and what it has spent. */
export class CaseBudget {
  /** When the case's first model call arrived: its wall budget counts from there, not from a queued registration. */
  private firstCallAt: number | null = null;
  /** Calls forwarded upstream (counted when sent, so concurrent calls cannot overshoot). */
  calls = 0;
  private readonly meter: TokenMeter;
  /** Dollars, metered as tokens are (a `TokenMeter` counts any quantity). */
  private readonly usdMeter: TokenMeter;
  /** Fired at each settle of this registration's calls. */
  private readonly settled = new SettleSignal();

  constructor(
    readonly caseId: string,
    readonly trial: number,
    readonly role: Role,
    readonly token: string,
    private readonly budgets: Budgets,
    private readonly run: RunPurse | null = null,
  ) {
    this.meter = new TokenMeter(budgets.tokens ?? null);
    this.usdMeter = new TokenMeter(budgets.usd ?? null);
  }

  /** Whether the case or its run has a usd budget (its calls need a priced model). */
  get usdLimited(): boolean {
    return this.usdMeter.limit != null || this.run?.meter.limit != null;
  }

  /** Calls waiting for a call in flight to settle (the token budget's room is held by reservations). */
  waiting = 0;

  /** `usage.totalTokens` of the calls that have ended (their settled figures). */
  get tokens(): number {
    return this.meter.settled;
  }

  /** Tokens reserved by the calls in flight. */
  get reserved(): number {
    return this.meter.reserved;
  }

  /** The case's wall budget in seconds, or null: the idle timeout of its calls follows it (`silence.ts`). */
  get wallSeconds(): number | null {
    return this.budgets.wallSeconds ?? null;
  }

  /**
   * Runs as a call is about to go upstream (again after each wait): it goes, counted with `reservation` tokens
   * reserved; it waits, when the token budget's room is held by calls in flight; or it is refused (nothing counted).
   * The first call starts the wall clock.
   */
  admit(reservation = 0, reservationUsd = 0): Admission {
    const b = this.budgets;
    const who = `case ${this.caseId} trial ${this.trial}`;
    this.firstCallAt ??= Date.now();
    if (b.wallSeconds != null && Date.now() - this.firstCallAt > b.wallSeconds * 1000) {
      return { refused: `${who}: wall-time budget of ${b.wallSeconds} s is used up` };
    }
    if (b.calls != null && this.calls >= b.calls) {
      return { refused: `${who}: model-call budget of ${b.calls} calls is used up` };
    }
    const tokens = this.meter.admission();
    if (tokens === 'refuse') {
      return { refused: `${who}: token budget of ${b.tokens} tokens is used up (${this.meter.settled} used)` };
    }
    const usd = this.usdMeter.admission();
    if (usd === 'refuse') {
      const spent = this.usdMeter.settled.toFixed(6);
      return { refused: `${who}: usd budget of $${b.usd} is used up ($${spent} spent)` };
    }
    const run = this.run?.meter.admission() ?? 'start';
    if (run === 'refuse') {
      const m = this.run!.meter;
      return { refused: `run ${this.run!.id}: usd budget of $${m.limit} is used up ($${m.settled.toFixed(6)} spent)` };
    }
    if (tokens === 'wait' || usd === 'wait') return { wait: this.settled.next() };
    // the run's room is held by calls of other cases too: any of them settling may free it
    if (run === 'wait') return { wait: this.run!.signal.next() };
    this.calls++;
    this.meter.reserve(reservation);
    this.usdMeter.reserve(reservationUsd);
    this.run?.meter.reserve(reservationUsd);
    return GO;
  }

  /** Runs once per admitted call as it ends: releases its reservation, charges what the upstream reported. */
  settle(reservation: number, used: number, reservationUsd = 0, usedUsd = 0): void {
    this.meter.settle(reservation, used);
    this.usdMeter.settle(reservationUsd, usedUsd);
    this.settled.fire();
    if (this.run) {
      this.run.meter.settle(reservationUsd, usedUsd);
      this.run.signal.fire();
    }
  }
}

const caseKey = (caseId: string, trial: number) => `${caseId}\u0000${trial}`;

/** Registrations by token (how a call is attributed) and by (caseId, trial) (how usage is asked for). */
export class CaseRegistry {
  private readonly byToken = new Map<string, CaseBudget>();
  private readonly byCase = new Map<string, CaseBudget>();
  private readonly runs = new Map<string, RunPurse>();

  /** Validates and registers; a later registration of the same (caseId, trial) takes over its usage. */
  register(r: CaseRegistration): CaseBudget {
    if (typeof r.caseId !== 'string' || r.caseId === '')
      throw new Error('registerCase: caseId must be a non-empty string');
    if (!Number.isInteger(r.trial) || r.trial < 0)
      throw new Error('registerCase: trial must be a non-negative integer');
    const role = r.role ?? 'runtime';
    if (!ROLES.includes(role)) throw new Error(`registerCase: unknown role ${role}`);
    const token = `heldout-${randomBytes(18).toString('base64url')}`;
    let run: RunPurse | null = null;
    if (r.run) {
      // the first registration naming a run sets its budget; later ones share it
      run = this.runs.get(r.run.id) ?? new RunPurse(r.run.id, r.run.usd ?? null);
      this.runs.set(r.run.id, run);
    }
    const budget = new CaseBudget(r.caseId, r.trial, role, token, { ...r.budgets }, run);
    this.byToken.set(token, budget);
    this.byCase.set(caseKey(r.caseId, r.trial), budget);
    return budget;
  }

  /** The registration a placeholder token stands for, or null. */
  forToken(token: string): CaseBudget | null {
    return this.byToken.get(token) ?? null;
  }

  /** USD spent (settled) and reserved by the calls of a run's registrations; zeros for a run never named. */
  runSpend(runId: string): { usd: number; reservedUsd: number } {
    const m = this.runs.get(runId)?.meter;
    return { usd: m?.settled ?? 0, reservedUsd: m?.reserved ?? 0 };
  }

  /** Tokens reserved by calls in flight and calls waiting for room, of the latest registration of (caseId, trial). */
  pending(caseId: string, trial: number): { reserved: number; waiting: number } {
    const b = this.byCase.get(caseKey(caseId, trial));
    return { reserved: b?.reserved ?? 0, waiting: b?.waiting ?? 0 };
  }

  /** Calls and tokens of the latest registration of (caseId, trial); zeros when there is none. */
  usage(caseId: string, trial: number): { calls: number; tokens: number } {
    const b = this.byCase.get(caseKey(caseId, trial));
    return { calls: b?.calls ?? 0, tokens: b?.tokens ?? 0 };
  }
}
