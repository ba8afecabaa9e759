import type {
  EnvAssertion,
  EpisodeMessage,
  GoldAction,
  Requestor,
  RewardComponent,
  RewardResult,
  Tau2Domain,
  Tau2Task,
} from '../data_model/types.js';
import { createEnvironment, runEnvAssertion } from '../environment/environment.js';
import type { Semantics } from '../environment/toolkit.js';
import { PyException } from '../py/errors.js';
import { eq } from '../py/ops.js';
import { fromPlain } from '../py/plain.js';
import type { PyDict } from '../py/values.js';
import { type GoldReplay, goldActions, replayGold } from './gold-replay.js';

/** τ²'s default when a task's `reward_basis` is null or absent. */
export const DEFAULT_REWARD_BASIS: RewardComponent[] = ['DB', 'COMMUNICATE'];

/** A tool call of the trajectory as the reward replays it. */
export interface TrajectoryCall {
  name: string;
  arguments: Record<string, any>;
  /** Who made it (default the assistant; telecom's user runs tools on their phone). */
  requestor?: Requestor;
  /** What the environment answered during the episode; the replay must answer the same (τ²'s strict replay). */
  content?: string;
  /** The agent's arguments exactly as Python read its JSON (an episode's record has them): the replay runs these. */
  rawArguments?: PyDict;
}

export interface RewardInput {
  domain: Tau2Domain;
  task: Tau2Task;
  /** Every tool call of the episode, the agent's and the user's, in order. */
  toolCalls: TrajectoryCall[];
  messages: EpisodeMessage[];
  semantics?: Semantics;
}

/** τ²'s COMMUNICATE test: the string, lower-cased, inside an assistant text with its commas removed. */
export function communicated(info: string, messages: EpisodeMessage[]): boolean {
  const needle = info.toLowerCase();
  return messages.some(
    (m) => m.role === 'assistant' && m.content && m.content.toLowerCase().replace(/,/g, '').includes(needle),
  );
}

/** τ²'s `Action.compare_with_tool_call`: the name, and the compared arguments equal as Python compares them. */
export function actionMatches(gold: GoldAction, call: { name: string; arguments: Record<string, any> }): boolean {
  if (gold.name !== call.name) return false;
  const got = fromPlain(call.arguments ?? {}) as PyDict;
  const want = fromPlain(gold.arguments ?? {}) as PyDict;
  const keys = gold.compare_args ?? [...got.keys()];
  if (keys.length === 0) return true;
  const pick = (m: PyDict) => new Map([...m].filter(([k]) => keys.includes(k)));
  return eq(pick(got), pick(want));
}

// The gold replay is deterministic, so k trials of a task share it.
const goldCache = new WeakMap<Tau2Domain, WeakMap<Tau2Task, Map<string, GoldReplay>>>();
function cachedGold(domain: Tau2Domain, task: Tau2Task, semantics: Semantics | undefined): GoldReplay {
  let perDomain = goldCache.get(domain);
  if (!perDomain) {
    perDomain = new WeakMap();
    goldCache.set(domain, perDomain);
  }
  let perTask = perDomain.get(task);
  if (!perTask) {
    perTask = new Map();
    perDomain.set(task, perTask);
  }
  const key = semantics ?? '';
  let replay = perTask.get(key);
  if (!replay) {
    replay = replayGold(domain, task, semantics);
    perTask.set(key, replay);
  }
  return replay;
}

const jsonOrText = (s: string) => {
  try {
    return JSON.stringify(JSON.parse(s));
  } catch {
    return s;
  }
};

/**
 * The final-state reward of one trial, as τ²'s evaluator computes it: the trajectory's state-changing calls (the
 * agent's and the user's) replayed on a fresh environment, the gold actions on another; DB = 1 when both databases
 * (agent and user) hash equal; ENV_ASSERTION = every `env_assertion` holds on the replayed environment; ACTION = every
 * gold action matched by some call; COMMUNICATE = every `communicate_info` said. The reward is the product of the
 * components of `reward_basis`.
 *
 * NL_ASSERTION needs a judge this evaluator does not have: it is reported in `unscored` and left out of the product
 * rather than silently counted as passed.
 */
export function computeReward(input: RewardInput): RewardResult {
  const { domain, task, toolCalls, messages, semantics } = input;
  const criteria = task.evaluation_criteria ?? {};
  const basis = criteria.reward_basis ?? DEFAULT_REWARD_BASIS;
  const gold = goldActions(task);

  const { hash: goldHash, userHash: goldUserHash, refused: goldErrors } = cachedGold(domain, task, semantics);
  const replayed = createEnvironment(domain, { initialState: task.initial_state, semantics });
  const replayMismatches: string[] = [];
  for (const c of toolCalls) {
    if (!replayed.hasTool(c.name) || !replayed.isWriteTool(c.name)) continue;
    const r = replayed.call(c.name, c.rawArguments ?? c.arguments, c.requestor ?? 'assistant');
    if (c.content !== undefined && jsonOrText(r.content) !== jsonOrText(c.content))
      replayMismatches.push(`${c.name}: replayed "${r.content.slice(0, 200)}", recorded "${c.content.slice(0, 200)}"`);
  }
  const agentHash = replayed.hash();
  const agentUserHash = replayed.userHash();
  // τ² grades a task with neither gold actions nor assertions as matching, without comparing anything.
  const nothingToCompare = criteria.actions == null && criteria.env_assertions == null;
  const dbMatch = nothingToCompare || (goldHash === agentHash && goldUserHash === agentUserHash);

  const envAssertions = ((criteria.env_assertions ?? []) as EnvAssertion[]).map((a) => {
    try {
      return { func_name: a.func_name, met: runEnvAssertion(replayed, a) };
    } catch (err) {
      if (!(err instanceof PyException)) throw err;
      return { func_name: a.func_name, met: false, error: `${err.type}: ${err.text}` };
    }
  });

  const missingInfo = (criteria.communicate_info ?? []).filter((s) => !communicated(s, messages));
  const unmatchedActions = gold
    .filter((g) => !toolCalls.some((c) => actionMatches(g, c)))
    .map((g) => g.action_id ?? g.name);

  const components: Partial<Record<RewardComponent, number>> = {};
  const unscored: RewardComponent[] = [];
  for (const c of basis) {
    if (c === 'DB') components.DB = dbMatch ? 1 : 0;
    else if (c === 'ENV_ASSERTION') components.ENV_ASSERTION = envAssertions.every((a) => a.met) ? 1 : 0;
    else if (c === 'COMMUNICATE') components.COMMUNICATE = missingInfo.length === 0 ? 1 : 0;
    else if (c === 'ACTION') components.ACTION = unmatchedActions.length === 0 ? 1 : 0;
    else unscored.push(c);
  }
  const reward = Object.values(components).reduce((p, v) => p * (v ?? 1), 1);
  return {
    reward,
    basis,
    components,
    unscored,
    info: {
      goldHash,
      agentHash,
      goldUserHash,
      agentUserHash,
      goldErrors,
      missingInfo,
      unmatchedActions,
      envAssertions,
      ...(replayMismatches.length ? { replayMismatches } : {}),
    },
  };
}
