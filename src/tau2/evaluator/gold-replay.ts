import type { Environment, GoldAction, GoldRefusal, Requestor, Tau2Domain, Tau2Task } from '../data_model/types.js';
import { createEnvironment } from '../environment/environment.js';
import type { Semantics } from '../environment/toolkit.js';

export interface GoldReplay {
  /** τ²'s `get_db_hash()` of the agent database after the gold calls. */
  hash: string;
  /** τ²'s `get_user_db_hash()` after them (null in a domain without user tools). */
  userHash: string | null;
  refused: GoldRefusal[];
}

/** The requestor of a gold action (τ²'s default: the assistant). */
export const requestorOf = (a: Pick<GoldAction, 'requestor'>): Requestor =>
  a.requestor === 'user' ? 'user' : 'assistant';

/** A task's gold actions, both the assistant's and (telecom) the user's, in gold order. */
export function goldActions(task: Tau2Task): GoldAction[] {
  return task.evaluation_criteria?.actions ?? [];
}

/** The gold calls the agent makes (the user's are the user simulator's). */
export function assistantGold(task: Tau2Task): GoldAction[] {
  return goldActions(task).filter((a) => requestorOf(a) === 'assistant');
}

/**
 * The gold environment as τ²'s evaluator builds it: the task's initial state, then every gold action through
 * `make_tool_call` with its requestor (no `sync_tools` in between, as τ²'s evaluator has none); a call the tools refuse
 * is recorded and skipped (it keeps whatever it changed before failing), never fatal.
 */
export function goldEnvironment(
  domain: Tau2Domain,
  task: Tau2Task,
  semantics?: Semantics,
): { env: Environment; refused: GoldRefusal[] } {
  const env = createEnvironment(domain, { initialState: task.initial_state, semantics });
  const refused: GoldRefusal[] = [];
  goldActions(task).forEach((a, i) => {
    const error = env.goldCall(a.name, a.arguments, requestorOf(a));
    if (error !== undefined)
      refused.push({ actionId: a.action_id ?? `${task.id}_${i}`, name: a.name, write: env.isWriteTool(a.name), error });
  });
  return { env, refused };
}

/** The gold final state's hashes and the refused gold calls (see `goldEnvironment`). */
export function replayGold(domain: Tau2Domain, task: Tau2Task, semantics?: Semantics): GoldReplay {
  const { env, refused } = goldEnvironment(domain, task, semantics);
  return { hash: env.hash(), userHash: env.userHash(), refused };
}

/**
 * Every task whose gold replay has refusals, in task order. τ-Bench-Verified's retail set has such tasks (see
 * sierra-research/tau2-bench#499): `heldout import tau2` lists them, `toolAgent.goldReplay: strict` unscores them.
 */
export function auditGold(
  domain: Tau2Domain,
  tasks: readonly Tau2Task[],
  semantics?: Semantics,
): { taskId: string; refused: GoldRefusal[] }[] {
  return tasks
    .map((t) => ({ taskId: String(t.id), refused: replayGold(domain, t, semantics).refused }))
    .filter((x) => x.refused.length > 0);
}
