/**
 * How long a case's model call may hear nothing from the upstream, and whether it had gone silent when its caller
 * hung up. A call's silence, across its attempts, is at most half the case's wall budget, so a silent provider is
 * seen by the gateway (a `transport_failure`) before the case's wall clock kills the delivery waiting on it.
 */

/** The idle timeout of one attempt: the gateway's, capped at half the case's wall budget when it has one. */
export function idleTimeoutMs(gatewayMs: number, wallSeconds: number | null | undefined): number {
  return Math.max(1, Math.min(gatewayMs, silenceLimitMs(wallSeconds)));
}

/** The most silence one call of the case may hear in all: half its wall budget (none without one). */
export function silenceLimitMs(wallSeconds: number | null | undefined): number {
  if (wallSeconds == null || !(wallSeconds > 0)) return Number.POSITIVE_INFINITY;
  return Math.floor((wallSeconds * 1000) / 2);
}

/**
 * When the upstream was last heard from during one call (its arrival counts as the start of a silence; an attempt
 * retried after a timeout does not end it). Read when the caller hangs up: a call the upstream had left unanswered
 * for half its idle timeout or more is the provider's silence, not the caller's impatience.
 */
export class Silence {
  private at = performance.now();
  /** Set while the caller is slow to read (the upstream is paused for it): not the upstream's silence. */
  paused = false;
  readonly idleMs: number;
  private readonly limitMs: number;

  constructor(gatewayMs: number, wallSeconds: number | null | undefined) {
    this.idleMs = idleTimeoutMs(gatewayMs, wallSeconds);
    this.limitMs = silenceLimitMs(wallSeconds);
  }

  /** Runs on every byte back. */
  heard(): void {
    this.at = performance.now();
  }

  /** How much more silence the call may hear before its case's limit (infinite without a wall budget). */
  left(): number {
    return this.limitMs - (performance.now() - this.at);
  }

  /** Whether the upstream has sent nothing for at least half the idle timeout (never while paused). */
  get long(): boolean {
    return !this.paused && performance.now() - this.at >= this.idleMs / 2;
  }
}
