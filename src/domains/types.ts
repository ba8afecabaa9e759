/** A τ² database: plain JSON, mutated in place by the domain's tools. */
export type Db = Record<string, any>;

export type ToolKind = 'READ' | 'WRITE' | 'GENERIC';

/** One entry of a domain's `tools.json`. */
export interface ToolSpec {
  name: string;
  type: ToolKind;
  group: string;
  requestor: 'assistant' | 'user';
  mutates_state: boolean;
  description: string;
  parameters: Record<string, any>;
}

/** A tool implementation: validated arguments in, a JSON-serialisable result out; throws `ToolError` on refusal. */
export type ToolImpl = (db: Db, args: Record<string, any>) => unknown;

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

/** A loaded τ² domain directory. `dbText` is kept so every environment starts from a fresh parse. */
export interface Tau2Domain {
  name: string;
  dir: string;
  tools: ToolSpec[];
  policy: string;
  dbText: string;
  tasks: Tau2Task[];
}

export type CallResult = { ok: true; result: unknown } | { ok: false; error: string };

/** A tool call as the agent made it, with what the environment answered. */
export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: Record<string, any>;
  ok: boolean;
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
    /** Gold calls the tools refused while deriving the gold state (τ² skips them too; see `replayGold`). */
    goldErrors: GoldRefusal[];
    missingInfo: string[];
    unmatchedActions: string[];
  };
}
