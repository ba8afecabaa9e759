import type { FreezePolicy } from '../freeze/index.js';

export type { FreezePolicy };

/** One case × trial of a development round, as the ledger keeps it. */
export interface RoundCase {
  id: string;
  trial: number;
  /** 0–100, or null when the case was not scored (judge error, infrastructure). */
  result: number | null;
  status: 'graded' | 'gate-failed' | 'unscored' | 'infra-error';
  gate: string | null;
  /** The commission's pass rule held for this execution. */
  passed: boolean;
}

/** One counted development round (DESIGN §6). Round numbers start at 1 and count distinct digests only. */
export interface Round {
  round: number;
  /** `sha256:…` tree digest of the submission (the same digest `heldout freeze` and the held-out run compute). */
  digest: string;
  /** Mean dev Result (mean over cases of each case's mean over trials); null when no case was scored. */
  devMean: number | null;
  /**
   * The round is accepted when it ran at least one dev execution and every dev case × trial met the commission's
   * pass rule (gates passed and Result ≥ `pass.minResult`); an unscored or infra-error execution is not a pass.
   */
  accepted: boolean;
  /** ISO-8601 time the round was recorded. */
  at: string;
  cases: RoundCase[];
  /** ISO-8601 times the same digest was submitted again (not counted as rounds). */
  resubmittedAt?: string[];
}

/** The round ledger of one commission: `.heldout/rounds/<commission-id>.json` by default. */
export interface Ledger {
  schema: 'heldout/rounds@1';
  commission: string;
  rounds: Round[];
}

/** What a submission brings to `recordRound`; the round number is assigned by the ledger. */
export type RoundEntry = Omit<Round, 'round' | 'resubmittedAt'>;

/** Whether a submission with a given digest may run as a development round (decided before running it). */
export type Admission =
  | { kind: 'new'; round: number; budget: number }
  | { kind: 'repeat'; of: Round; budget: number }
  | { kind: 'refused'; reason: string; budget: number };

export interface RecordOutcome {
  ledger: Ledger;
  /** True when the submission became a new round. */
  counted: boolean;
  /** The new round, or the earlier round with the same digest; null when refused. */
  round: Round | null;
  /** Why the submission was refused (the round budget is spent). */
  refused?: string;
}
