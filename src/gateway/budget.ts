/** The registered cases and what each may still spend (DESIGN §8 budgets). */
import { randomBytes } from 'node:crypto';
import type { Budgets, CaseRegistration, Role } from './types.js';
import { ROLES } from './types.js';

/** One registration: who it is, its placeholder token, its budgets and what it has spent. */
export class CaseBudget {
  /** When the case's first model call arrived: its wall budget counts from there, not from a queued registration. */
  private firstCallAt: number | null = null;
  /** Calls forwarded upstream (counted when sent, so concurrent calls cannot overshoot). */
  calls = 0;
  /** `usage.totalTokens` of the calls recorded so far. */
  tokens = 0;

  constructor(
    readonly caseId: string,
    readonly trial: number,
    readonly role: Role,
    readonly token: string,
    private readonly budgets: Budgets,
  ) {}

  /** The case's wall budget in seconds, or null: the idle timeout of its calls follows it (`silence.ts`). */
  get wallSeconds(): number | null {
    return this.budgets.wallSeconds ?? null;
  }

  /**
   * Runs as a call is about to go upstream: null and the call is counted, or why it is refused (nothing counted).
   * The first call starts the wall clock.
   */
  admit(): string | null {
    const b = this.budgets;
    const who = `case ${this.caseId} trial ${this.trial}`;
    this.firstCallAt ??= Date.now();
    if (b.wallSeconds != null && Date.now() - this.firstCallAt > b.wallSeconds * 1000) {
      return `${who}: wall-time budget of ${b.wallSeconds} s is used up`;
    }
    if (b.calls != null && this.calls >= b.calls) return `${who}: model-call budget of ${b.calls} calls is used up`;
    if (b.tokens != null && this.tokens >= b.tokens) {
      return `${who}: token budget of ${b.tokens} tokens is used up (${this.tokens} used)`;
    }
    this.calls++;
    return null;
  }
}

const caseKey = (caseId: string, trial: number) => `${caseId}\u0000${trial}`;

/** Registrations by token (how a call is attributed) and by (caseId, trial) (how usage is asked for). */
export class CaseRegistry {
  private readonly byToken = new Map<string, CaseBudget>();
  private readonly byCase = new Map<string, CaseBudget>();

  /** Validates and registers; a later registration of the same (caseId, trial) takes over its usage. */
  register(r: CaseRegistration): CaseBudget {
    if (typeof r.caseId !== 'string' || r.caseId === '')
      throw new Error('registerCase: caseId must be a non-empty string');
    if (!Number.isInteger(r.trial) || r.trial < 0)
      throw new Error('registerCase: trial must be a non-negative integer');
    const role = r.role ?? 'runtime';
    if (!ROLES.includes(role)) throw new Error(`registerCase: unknown role ${role}`);
    const token = `heldout-${randomBytes(18).toString('base64url')}`;
    const budget = new CaseBudget(r.caseId, r.trial, role, token, { ...r.budgets });
    this.byToken.set(token, budget);
    this.byCase.set(caseKey(r.caseId, r.trial), budget);
    return budget;
  }

  /** The registration a placeholder token stands for, or null. */
  forToken(token: string): CaseBudget | null {
    return this.byToken.get(token) ?? null;
  }

  /** Calls and tokens of the latest registration of (caseId, trial); zeros when there is none. */
  usage(caseId: string, trial: number): { calls: number; tokens: number } {
    const b = this.byCase.get(caseKey(caseId, trial));
    return { calls: b?.calls ?? 0, tokens: b?.tokens ?? 0 };
  }
}
