import type { Semantics } from '../environment/toolkit.js';
import type { PyDict } from '../py/values.js';

/** A τ² database: plain JSON, mutated in place by the domain's tools. */
export type Db = Record<string, any>;

/** Tool type as τ²-bench declares it; GENERIC counts as READ wherever a type is compared. */
export type ToolKind = 'READ' | 'WRITE' | 'GENERIC';

/** A tool's JSON-schema parameters (τ² writes an object schema with `properties` and `required`). */
export type ToolParameters = { type?: string; properties?: Record<string, any>; required?: string[] } & Record<
  string,
  any
>;

/** One entry of a domain's `tools.json`, normalised on load (`group` is the name prefix before the first `_`). */
export interface ToolSpec {
  name: string;
  type: ToolKind;
  group: string;
  requestor: 'assistant' | 'user';
  mutates_state: boolean;
  description: string;
  parameters: ToolParameters;
}

/** A tool call's arguments as the agent sent them (JSON; only their top level is checked against the schema). */
export type ToolArgs = Record<string, any>;

/** One original task's gold tool-call sequence (TASTE reads only the tool names). */
export interface GoldSequence {
  task_id: string;
  tools: string[];
  reward_basis: string[] | null;
}

export interface GoldAction {
  action_id?: string;
  requestor?: 'assistant' | 'user';
  name: string;
  arguments: Record<string, any>;
  compare_args?: string[] | null;
  info?: unknown;
}

export interface InitialState {
  initialization_data?: { agent_data?: Record<string, any> | null; user_data?: Record<string, any> | null } | null;
  initialization_actions?:
    | { env_type?: 'assistant' | 'user'; func_name: string; arguments: Record<string, any> }[]
    | null;
  message_history?: unknown[] | null;
}

export type RewardComponent = 'DB' | 'COMMUNICATE' | 'ACTION' | 'NL_ASSERTION' | 'ENV_ASSERTION';

export interface UserInstructions {
  domain?: string;
  reason_for_call?: string | null;
  known_info?: string | null;
  unknown_info?: string | null;
  task_instructions?: string | null;
}

/** A task in τ²-bench's `tasks.json` schema. */
export interface Tau2Task {
  id: string;
  description?: Record<string, any> | null;
  user_scenario: { persona?: string | null; instructions: UserInstructions | string };
  initial_state?: InitialState | null;
  evaluation_criteria?: {
    actions?: GoldAction[] | null;
    communicate_info?: string[] | null;
    nl_assertions?: string[] | null;
    env_assertions?: unknown[] | null;
    reward_basis?: RewardComponent[] | null;
  } | null;
  annotations?: unknown;
}

/** A loaded τ² domain directory; `name` (its base name) is the key of its kit. */
export interface Tau2Domain {
  name: string;
  dir: string;
  tools: ToolSpec[];
  policy: string;
  /** `db.json` as read, parsed once when an environment first needs it; absent when the database is not JSON. */
  dbText?: string;
  tasks: Tau2Task[];
  /** The gold tool sequences: `gold_sequences.json`, else each task's `evaluation_criteria.actions[].name`. */
  gold: GoldSequence[];
}

/** A live domain database with its tools. */
/** Who makes a tool call: the agent, or (telecom) the user on their own phone. */
export type Requestor = 'assistant' | 'user';

/**
 * A live τ² environment: the agent's database and tools, and the user's where the domain has them, behaving as τ²'s
 * own `Environment` (see `semantics`).
 */
export interface Environment {
  readonly domain: Tau2Domain;
  readonly semantics: Semantics;
  /** The agent database as plain JSON (τ²'s dump of it), assembled on each read: for reading, never for changing. */
  readonly db: Db;
  /**
   * τ²'s `get_response`: runs one tool call (then `sync_tools`); a refusal or a malformed call is `ok: false` with
   * τ²'s `Error: …` text as `content`, never a throw.
   */
  call(name: string, args: unknown, requestor?: Requestor): CallResult;
  /** τ²'s `make_tool_call` as its evaluator replays a gold action (no `sync_tools`): undefined, or the refusal. */
  goldCall(name: string, args: unknown, requestor?: Requestor): string | undefined;
  /** τ²'s `run_env_function_call` (a tool or another method of either side's toolkit, then `sync_tools`). */
  runFunction(envType: Requestor, funcName: string, args: unknown): unknown;
  /** τ²'s `get_db_hash()` of the agent database. */
  hash(): string;
  /** τ²'s `get_user_db_hash()`; null in a domain without user tools. */
  userHash(): string | null;
  /**
   * Every record whose τ² text differs from the initial database's, `<table>/<key>` → text (null: removed); telecom's
   * two databases count as one record each (`db`, `user_db`). For diffs and the differential test.
   */
  changedRecords(): Record<string, string | null>;
  /** The τ² text of one record named as `changedRecords` names it, or null when there is none. */
  recordText(key: string): string | null;
  /** τ²'s `mutates_state` of a tool of either side (false for a tool the domain does not have). */
  isWriteTool(name: string): boolean;
  hasTool(name: string): boolean;
}

export interface EnvironmentOptions {
  initialState?: InitialState | null;
  /** Default `tau2@1.0.1`. */
  semantics?: Semantics;
}

/** What τ²'s `get_response` answers: `content` is the text the caller sees; `result` its plain JSON reading. */
export type CallResult = { ok: true; content: string; result: unknown } | { ok: false; content: string; error: string };

/** A tool call as the agent (or, in telecom, the user) made it, with what the environment answered. */
export interface ToolCallRecord {
  id: string;
  name: string;
  /** As the agent sent them; an integral float stays a float (a boxed `PyFloat`, written `2.0` by `plainJson`). */
  arguments: Record<string, any>;
  /** The arguments exactly as Python read the agent's JSON (not enumerable: in memory, for the reward's replay). */
  rawArguments?: PyDict;
  /** Default the assistant. */
  requestor?: Requestor;
  ok: boolean;
  /** The answer's text, as τ² gives it to the caller (`Error: …` for a refusal). */
  content?: string;
  result?: unknown;
  error?: string;
}

/** A conversation message as the episode records it (OpenAI-like roles). */
export interface EpisodeMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, any> }[];
  toolCallId?: string;
  name?: string;
  /** A tool message's caller: absent for the agent's, `user` for a tool the user ran on their device. */
  requestor?: Requestor;
}

/** A gold call the domain's own tools refuse on the task's initial state. */
export interface GoldRefusal {
  /** `action_id` of the gold call, or `<task>_<index>` when the task gives none. */
  actionId: string;
  name: string;
  /** A refused write never lands, so the gold final state lacks it; a refused read changes nothing. */
  write: boolean;
  error: string;
}

export interface RewardResult {
  /** Product of the scored components of `reward_basis`; 1 means the trial succeeded. */
  reward: number;
  basis: RewardComponent[];
  components: Partial<Record<RewardComponent, number>>;
  /** Components named in `reward_basis` that could not be scored here (no judge): left out of the product. */
  unscored: RewardComponent[];
  info: {
    goldHash: string;
    agentHash: string;
    /** τ²'s user-database hashes (telecom's phone), compared alongside; null in a domain without user tools. */
    goldUserHash: string | null;
    agentUserHash: string | null;
    /** Gold calls the tools refused while deriving the gold state (τ² skips them too; see `replayGold`). */
    goldErrors: GoldRefusal[];
    missingInfo: string[];
    unmatchedActions: string[];
    /** Each env assertion on the replayed environment; `error` when its function raised (τ²'s would fail too). */
    envAssertions: { func_name: string; met: boolean; error?: string }[];
    /** Replayed calls that answered differently from the episode (τ²'s strict replay would refuse the trajectory). */
    replayMismatches?: string[];
  };
}

/** One of a task's `env_assertions` (τ²'s `EnvAssertion`). */
export interface EnvAssertion {
  env_type: Requestor;
  func_name: string;
  arguments: Record<string, unknown>;
  assert_value?: boolean;
  message?: string | null;
}
