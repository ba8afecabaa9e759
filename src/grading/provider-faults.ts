/**
 * Whose fault a failed gate is when the case's model calls failed on the provider's side (issue 17, item 4). Pure:
 * reads the case's ledger lines as given, so the rule has property tests of its own.
 */
import type { GateCategory } from './types.js';

/** Ledger classes that are the model provider's or the transport's doing, never the delivery's (DESIGN §8). */
export const PROVIDER_FAULT_CLASSES: readonly string[] = ['provider_failure', 'transport_failure'];

/**
 * The run gates a failed model call can explain: with no answer a delivery crashes, waits or writes nothing (or
 * half). `oom` and `constraint-violation` are the delivery's own doing whatever the model answered, so they stay
 * its failure.
 */
export const PROVIDER_EXPLAINED_GATES: readonly GateCategory[] = [
  'error-exit',
  'timeout',
  'missing-artifact',
  'invalid-artifact',
];

/** The fields of a ledger line the evidence names (`LedgerEntry` of the gateway; read defensively). */
export interface FaultLine {
  callId: string;
  role: string;
  endpoint: string;
  status: number | null;
  classification: string;
  error: string | null;
  attempts: number;
  /** What the provider said in its error event inside a 200 stream (`upstreamError`: code and message), if any. */
  said?: string;
}

/** The longest part of a provider's own message a reason quotes. */
const SAID_MAX = 120;

function saidOf(u: unknown): string | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const { code, message } = u as Record<string, unknown>;
  const text = [code, message].filter((v) => typeof v === 'string' && v !== '').join(': ');
  if (text === '') return undefined;
  return text.length > SAID_MAX ? `${text.slice(0, SAID_MAX)}…` : text;
}

/** Ledger lines shown in a reason before the rest are counted. */
const SHOWN = 5;

/** The case's ledger lines whose call failed on the provider's side, in ledger order. */
export function providerFaults(entries: readonly unknown[] | undefined): FaultLine[] {
  const out: FaultLine[] = [];
  for (const e of entries ?? []) {
    if (!e || typeof e !== 'object') continue;
    const o = e as Record<string, unknown>;
    if (typeof o.classification !== 'string' || !PROVIDER_FAULT_CLASSES.includes(o.classification)) continue;
    out.push({
      callId: typeof o.callId === 'string' ? o.callId : '?',
      role: typeof o.role === 'string' ? o.role : '?',
      endpoint: typeof o.endpoint === 'string' ? o.endpoint : '?',
      status: typeof o.status === 'number' ? o.status : null,
      classification: o.classification,
      error: typeof o.error === 'string' ? o.error : null,
      attempts: typeof o.attempts === 'number' ? o.attempts : 0,
      ...(saidOf(o.upstreamError) ? { said: saidOf(o.upstreamError) } : {}),
    });
  }
  return out;
}

/**
 * One ledger line as evidence: `call_… runtime chat.completions: 500 provider_failure upstream_500, 4 attempts`, and
 * for an error event inside a stream what the provider said (`… upstream_stream_error "server_error: …", 1 attempt`).
 */
export function faultEvidence(l: FaultLine): string {
  const attempts = `${l.attempts} attempt${l.attempts === 1 ? '' : 's'}`;
  const said = l.said ? ` "${l.said}"` : '';
  return `${l.callId} ${l.role} ${l.endpoint}: ${l.status ?? '-'} ${l.classification} ${l.error ?? ''}${said}, ${attempts}`;
}

/**
 * Runs when a run gate failed: the infra-error reason when the case's ledger holds provider or transport failures
 * and the gate is one they explain, with the ledger lines as evidence; null when the failure stays the delivery's.
 * A case whose gates held despite provider failures is graded as usual (it got what it needed, or coped).
 */
export function providerFaultReason(
  gate: GateCategory,
  gateReason: string,
  entries: readonly unknown[] | undefined,
): string | null {
  if (!PROVIDER_EXPLAINED_GATES.includes(gate)) return null;
  const faults = providerFaults(entries);
  if (faults.length === 0) return null;
  const calls = (entries ?? []).length;
  const shown = faults.slice(0, SHOWN).map(faultEvidence).join('; ');
  const more = faults.length > SHOWN ? `; and ${faults.length - SHOWN} more` : '';
  return (
    `the model provider failed, not the delivery: ${faults.length} of ${calls} ledgered call${calls === 1 ? '' : 's'} ` +
    `failed on the provider's side (ledger: ${shown}${more}); then the ${gate} gate failed: ${gateReason}`
  );
}
