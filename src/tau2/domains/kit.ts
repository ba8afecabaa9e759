import type { Db, Environment, InitialState, RewardComponent, Tau2Domain, ToolArgs } from '../data_model/types.js';
import type { DomainTools } from '../environment/toolkit.js';
import type { DomainRules } from './rule-types.js';

/**
 * Everything heldout knows about one τ² domain, over its typed database `D`: registered once in `registry.ts` under
 * the domain's name. Only `rules` is required: a domain heldout cannot execute yet is still one TASTE stages 1–2
 * can sample and cluster.
 */
export interface DomainKit<D = Db, E = unknown, S = unknown> {
  readonly name: string;
  /** τ²'s toolkits (the assistant's, and the user's where τ² has them); absent while heldout cannot execute it. */
  readonly tools?: DomainTools;
  /** What the rule validator checks (TASTE stages 1–3). */
  readonly rules: DomainRules;
  /** What TASTE stage 3 needs to turn tool sequences into tasks on the domain's database. */
  readonly synthesis?: Synthesis<D, E, S>;
}

/**
 * The registry's view of a kit: the environment and TASTE hold any domain's database as plain JSON. This is the one
 * place a kit's database type is given up, so each kit stays checked against its own.
 */
export function defineKit<D, E, S>(kit: DomainKit<D, E, S>): DomainKit {
  return kit as unknown as DomainKit;
}

/** Draws of TASTE's seeded generator (`Rng`), the only randomness a kit may use. */
export interface Random {
  int(n: number): number;
  shuffle<T>(xs: readonly T[]): T[];
}

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
  arguments: ToolArgs;
  result: unknown;
}

/** The live state a walk works on: the environment gold replays on, the initial database and a seeded rng. */
export interface WalkContext<D = Db> {
  domain: Tau2Domain;
  env: Environment;
  /** The initial database (read-only; never mutate). */
  base: D;
  rng: Random;
  sequence: string[];
  calls: InstantiatedCall[];
  notes: ScenarioNotes;
}

/** Raised by a walk when the chosen entities cannot serve a call; the walk retries with other entities. */
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

/**
 * The records a domain's writes act on (reservations, orders). `table` names both their table in the database and
 * the list of their ids on the owning record in `users` (`users[u].reservations`); each record names its owner in
 * `user_id` and its own id in the field called like `idArg`.
 */
export interface EntityKind {
  kind: string;
  table: string;
  /** The argument (and record field) holding an entity's id. */
  idArg: string;
  /** The read tool that returns one entity by id. */
  lookup: string;
  /** The lookup's argument for the id, when it is not called like `idArg` (telecom's `get_details_by_id(id)`). */
  lookupArg?: string;
}

/**
 * A tool's answer as an agent would say it to the user, for COMMUNICATE (τ² checks it as a substring of what the agent
 * says, commas removed): `calculate`'s "600.0" is "600" (an agent says "$600" or "$600.00", both of which hold it).
 */
export function spoken(answer: string): string {
  return /^-?\d+\.0$/.test(answer) ? answer.slice(0, -2) : answer;
}

/** What one call that succeeded adds to the scenario notes. */
export interface CallNote {
  /** The user's intent behind the call, one sentence. */
  intent: string;
  /** What the agent must tell the user for it (COMMUNICATE). */
  tell?: string;
  /** The tool group or write action it exercises, for the task's description. */
  purpose?: string;
}

/** A walk in progress, as a kit's `WalkRules` see it: the generic state plus the kit's own (`state`). */
export interface Walk<D, E, S> {
  readonly ctx: WalkContext<D>;
  /** The user whose task this is. */
  readonly subject: string;
  readonly state: S;
  /** The entity the last lookup or write was about; writes prefer it. */
  focus: string | undefined;
  /** Entities a lookup has returned. */
  readonly looked: ReadonlySet<string>;
  /** Ids of the entities writes acted on, first write first. */
  touchedIds(): string[];
  /** The entity as the environment holds it now (created ones included), via the kit's lookup tool. */
  entity(id: string): E | undefined;
  /** The entity a write acts on: the focus when it suits, else one no write has touched, else any that fits. */
  target(tool: string, index: number): E;
  /** The next entity write in the sequence after call `index`. */
  nextWrite(index: number): string | undefined;
  /** Records that `tool` acted on entity `id`, which becomes the focus. */
  mark(id: string, tool: string): void;
}

/**
 * A domain's part of a stage-3 walk (the generic walker in `taste/stage3/walk.ts` does the entity bookkeeping and
 * the kit's lookup tool). Every draw from `ctx.rng` is part of the seed's output: reorder none.
 */
export interface WalkRules<D, E, S> {
  /** Tools that act on an entity; a lookup prefers an entity the next of them may act on. */
  writes: ReadonlySet<string>;
  /** Why no subject of the database can ever serve the sequence (a hard limit, checked before any walk). */
  impossible?(base: D, sequence: string[]): string | undefined;
  /** Subjects (user ids) worth trying for this sequence, best first. */
  subjects(base: D, sequence: string[], rng: Random): string[];
  /** The kit's own state for a walk of `subject`. */
  start(ctx: WalkContext<D>, subject: string): S;
  /** Ids of the subject's entities, in the order lookups and writes consider them. */
  ids(walk: Walk<D, E, S>): string[];
  /** τ²'s and the policy's preconditions for `tool` on `entity`; `done` = the tools already applied to it. */
  fits(tool: string, entity: E, done: ReadonlySet<string>): boolean;
  /** Stricter than `fits` for the focus and for lookups (default: `fits`), to spread writes over entities. */
  prefers?(tool: string, entity: E, done: ReadonlySet<string>): boolean;
  /** Candidate argument sets for call `index` (any tool but the lookup), best first. */
  candidates(walk: Walk<D, E, S>, tool: string, index: number): ToolArgs[];
  /** Updates the kit's state with the call that succeeded; returns what it adds to the scenario. */
  accept(walk: Walk<D, E, S>, tool: string, args: ToolArgs, result: unknown): CallNote | undefined;
  /** Final touches to the scenario once every call succeeded (the user's identity etc.). */
  finish(walk: Walk<D, E, S>): void;
}

/** How a domain makes decoys: plausible but wrong twins of the entities gold writes act on. */
export interface DecoyMaker<D, E> {
  /** A candidate id for a decoy (drawn again while it is taken or named by gold). */
  newId(rng: Random): string;
  /** Ids no decoy may take besides existing ones (e.g. those τ² hands out to new bookings). */
  reserved?(id: string): boolean;
  /** The twin of `record` under `id`, and how it differs (for the report). */
  twin(base: D, record: E, id: string, rng: Random, named: ReadonlySet<string>): { record: E; how: string };
}

/** What a generated task is graded on, when the kit decides it (telecom: assertions on the final state). */
export interface TaskCriteria {
  env_assertions?: unknown[];
  reward_basis: RewardComponent[];
  /** Gold actions whose arguments ACTION must not compare (τ²'s `compare_args: []`, e.g. a hand-off's summary). */
  uncompared?: string[];
}

/** Stage 3 of TASTE on one domain: the walk, the entity references the validator checks, decoys, the template. */
export interface Synthesis<D, E, S> {
  entity: EntityKind;
  walk: WalkRules<D, E, S>;
  /** Absent where τ² offers no way to add records to a task's database (telecom: see its synthesis). */
  decoys?: DecoyMaker<D, E>;
  /**
   * The initial state a subject's scenario starts from (default: the domain's database as it is): telecom breaks
   * the user's phone so that the sequence's fixes fix something.
   */
  initialState?(base: D, subject: string, sequence: string[]): InitialState | null;
  /**
   * How the task is graded, from the walk that instantiated it (`walk.ctx.env` holds the gold final state) and a
   * fresh environment of its initial state; default: DB, and COMMUNICATE when something must be said.
   */
  criteria?(walk: Walk<D, E, S>, initial: () => Environment): TaskCriteria;
  /**
   * Calls `need` for every entity a gold call's arguments name besides its user (checked in `users` for every
   * domain), saying whether it exists in `db`, the state just before the call.
   */
  references(db: D, args: ToolArgs, need: (exists: boolean, what: string) => void): void;
  /** The first sentence of every generated task's reason for calling. */
  opener: string;
}
