import type { Environment, GoldAction, Tau2Domain, Tau2Task } from '../../domains/index.js';
import type { Rng } from '../prng.js';

/** What the user side of a generated task knows, wants and must not be told; filled while instantiating. */
export interface ScenarioNotes {
  /** Facts the user states when asked (name, ids). */
  known: string[];
  /** What the user does not know and the agent must look up. */
  unknown: string[];
  /** One sentence per intent, in gold order. */
  intents: string[];
  /** Strings the agent must tell the user (COMMUNICATE). */
  communicate: string[];
  /** The tool groups / write actions the task exercises, for the description. */
  purpose: string[];
}

/** One gold call as instantiated, with the result it produced on the instantiation environment. */
export interface InstantiatedCall {
  name: string;
  arguments: Record<string, any>;
  result: unknown;
}

/** The live state an instantiator works on: the environment gold replays on, the pristine db and a seeded rng. */
export interface WalkContext {
  domain: Tau2Domain;
  env: Environment;
  /** The initial database (read-only; never mutate). */
  base: Record<string, any>;
  rng: Rng;
  sequence: string[];
  calls: InstantiatedCall[];
  notes: ScenarioNotes;
}

/** Raised by an instantiator when the chosen entities cannot serve a call; the walk retries with other entities. */
export class Unfit extends Error {
  constructor(
    readonly tool: string,
    readonly index: number,
    message: string,
  ) {
    super(`${tool} (call ${index + 1}): ${message}`);
    this.name = 'Unfit';
  }
}

/** A domain's instantiation strategy: subjects to try, and the candidate arguments of each call in turn. */
export interface DomainInstantiator {
  /** Why no entity of the database can ever serve the sequence (a hard limit, checked before any walk), or undefined. */
  impossible?(base: Record<string, any>, sequence: string[]): string | undefined;
  /** Subjects (user ids) worth trying for this sequence, best first; the walk tries at most `maxRetries`. */
  subjects(base: Record<string, any>, sequence: string[], rng: Rng): string[];
  /** Starts a walk for one subject. */
  begin(ctx: WalkContext, subject: string): DomainWalk;
}

export interface DomainWalk {
  /** Candidate argument sets for call `index`, best first; the first that executes without a tool error is kept. */
  candidates(index: number): Record<string, any>[];
  /** Called with the call that succeeded, so the walk can update its state and the scenario notes. */
  accept(index: number, args: Record<string, any>, result: unknown): void;
  /** Final touches to the scenario once every call succeeded (the user's identity etc.). */
  finish(): void;
}

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

export type { GoldAction };
