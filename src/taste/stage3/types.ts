import type { Tau2Task } from '../../tau2/index.js';

export interface InstantiateOptions {
  seed?: number | string;
  /** Subjects tried per medoid before giving up (default 12). */
  maxRetries?: number;
  /** Task id to give the generated task. */
  id?: string;
}

export type InstantiateOutcome =
  | { ok: true; task: Tau2Task; subject: string; attempts: number }
  | { ok: false; reason: string; attempts: number };
