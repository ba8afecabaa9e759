import {
  type AgentFunction,
  createEnvironment,
  type Db,
  findKit,
  type GoldAction,
  goldActions,
  isWriteTool,
  requestorOf,
  runEpisode,
  scriptedUser,
  type Tau2Domain,
  type Tau2Task,
} from '../../tau2/index.js';
import { ruleValidator } from '../validators/rule-validator.js';
import { schemaProblems } from './schema-check.js';

export type ValidationStep = 'arguments' | 'entities' | 'schema' | 'executes' | 'policy' | 'measures' | 'verifier';

/** The outcome of the stage-3 validation pipeline: the first failing step, or ok with every step passed. */
export interface TaskValidation {
  ok: boolean;
  /** Steps that ran and passed, in order. */
  passed: ValidationStep[];
  failed?: { step: ValidationStep; reason: string };
  /** The verifier's reward (offline: the scripted gold episode; with a model: the hinted agent's best). */
  reward?: number;
}

/** A verifier runs after the deterministic steps; resolves to the reward reached (1 passes). */
export type Verifier = (task: Tau2Task, domain: Tau2Domain) => Promise<{ reward: number; detail?: string }>;

/** Required parameters absent, null or empty, per gold call (the agent's and the user's). */
export function missingArguments(domain: Tau2Domain, task: Tau2Task): string[] {
  const out: string[] = [];
  goldActions(task).forEach((a, k) => {
    const spec = domain.tools.find((t) => t.name === a.name);
    for (const r of (spec?.parameters?.required as string[] | undefined) ?? []) {
      const v = a.arguments?.[r];
      if (v === undefined || v === null || v === '') out.push(`call ${k + 1} ${a.name}: ${r} not specified`);
    }
  });
  return out;
}

/**
 * Gold writes a policy-following agent cannot make: a write on an entity that an earlier gold write closed (the kit's
 * rules mark such writes `closes`: a cancelled reservation or order, an order whose items were modified — "the agent
 * will not be able to modify or cancel the order anymore" — returned or exchanged).
 */
export function closedEntityWrites(domain: Tau2Domain, actions: GoldAction[]): string[] {
  const kit = findKit(domain.name);
  const idArg = kit?.synthesis?.entity.idArg;
  if (!kit || !idArg) return [];
  const closedBy = new Map<string, string>();
  const out: string[] = [];
  actions.forEach((a, k) => {
    const id = a.arguments?.[idArg];
    if (typeof id !== 'string' || !isWriteTool(domain, a.name)) return;
    const by = closedBy.get(id);
    if (by)
      out.push(`call ${k + 1} ${a.name} acts on ${id} after ${by} closed it: the policy allows no further change`);
    if (kit.rules.tools[a.name]?.entity?.closes && !by) closedBy.set(id, a.name);
  });
  return out;
}

/** The entities a gold call names that are not in the state just before the call: its user, then the kit's. */
function missingEntities(domain: Tau2Domain, db: Db, a: GoldAction): string[] {
  const args = a.arguments ?? {};
  const miss: string[] = [];
  const need = (exists: boolean, what: string) => {
    if (!exists) miss.push(`${a.name}: ${what} does not exist`);
  };
  if (typeof args.user_id === 'string') need(Object.hasOwn(db.users ?? {}, args.user_id), `user ${args.user_id}`);
  findKit(domain.name)?.synthesis?.references(db, args, need);
  return miss;
}

/**
 * An in-process agent that walks the gold calls in order, a run of consecutive ones at a time: its own as one batch
 * of tool calls, the user's (telecom: on the user's phone) asked of the user by name; then it tells every
 * `communicate_info` string.
 */
export function goldAgent(task: Tau2Task): AgentFunction {
  const queue = [...(task.evaluation_criteria?.actions ?? [])];
  const communicate = task.evaluation_criteria?.communicate_info ?? [];
  let pending = 0;
  let made = 0;
  const final = { type: 'message' as const, content: ['Everything you asked for is done.', ...communicate].join(' ') };
  const isUser = (a: GoldAction) => a.requestor === 'user';
  const next = () => {
    if (!queue.length) return final;
    const user = isUser(queue[0]);
    const run: GoldAction[] = [];
    while (queue.length && isUser(queue[0]) === user) run.push(queue.shift() as GoldAction);
    if (user)
      return {
        type: 'message' as const,
        content: `Please do this on your phone, in this order: ${run.map((a) => a.name).join(', ')}.`,
      };
    pending = run.length;
    return {
      type: 'tool_calls' as const,
      calls: run.map((a) => ({ id: `gold_${made++}`, name: a.name, arguments: a.arguments })),
    };
  };
  return (msg) => {
    if (msg.type === 'user') return next();
    if (msg.type === 'tool_result') return --pending === 0 ? next() : undefined;
    return undefined;
  };
}

/** An agent that answers every user message and never calls a tool: what no task may already reward. */
export function doNothingAgent(): AgentFunction {
  return (msg) => (msg.type === 'user' ? { type: 'message', content: 'Sorry, I cannot help with that.' } : undefined);
}

/**
 * Why a task measures nothing, or undefined when it measures something: the task's own evaluation, run on an episode
 * of `doNothingAgent` against the scripted user, already gives reward 1 (a telecom task graded on DB alone whose gold
 * only reads, or undoes its own write).
 */
export async function measuresNothing(domain: Tau2Domain, task: Tau2Task): Promise<string | undefined> {
  const ep = await runEpisode({ task, domain, agent: doNothingAgent(), user: scriptedUser() });
  if (ep.reward !== 1) return undefined;
  const basis = ep.rewardDetail.basis.join(', ');
  return `a do-nothing agent (no tool calls) already gets reward 1 (${ep.info.termination}, graded on ${basis}): nothing the gold does is measured`;
}

/** The offline verifier: the gold path, played by `goldAgent` against the scripted user through `runEpisode`. */
export const scriptedVerifier: Verifier = async (task, domain) => {
  const ep = await runEpisode({ task, domain, agent: goldAgent(task), user: scriptedUser() });
  return { reward: ep.reward, detail: ep.info.termination };
};

/**
 * DESIGN §11 stage 3 validation, short-circuiting at the first failure: every argument specified, entities exist,
 * schema conformity, the gold sequence executes, policy coherence (the rule validator: dataflow, required reads,
 * nothing after a hand-off), the task measures something (`measuresNothing`), then the verifier (default: the
 * scripted one). `skipRules` skips the deterministic
 * steps for re-validation of an evolved task (its gold calls are unchanged).
 */
export async function validateTask(
  domain: Tau2Domain,
  task: Tau2Task,
  options: { verifier?: Verifier; skipRules?: boolean } = {},
): Promise<TaskValidation> {
  const passed: ValidationStep[] = [];
  const fail = (step: ValidationStep, reason: string): TaskValidation => ({
    ok: false,
    passed,
    failed: { step, reason },
  });
  const actions = goldActions(task);
  if (!options.skipRules) {
    const missing = missingArguments(domain, task);
    if (missing.length) return fail('arguments', missing[0]);
    passed.push('arguments');

    // One replay serves two steps: entities are looked up in the state just before each call, errors kept for later.
    const env = createEnvironment(domain, { initialState: task.initial_state });
    const absent: string[] = [];
    let execError: string | undefined;
    for (const [k, a] of actions.entries()) {
      absent.push(...missingEntities(domain, env.db, a));
      const r = env.call(a.name, a.arguments, requestorOf(a));
      if (!r.ok && execError === undefined) execError = `call ${k + 1} ${a.name}: ${r.error}`;
    }
    if (absent.length) return fail('entities', absent[0]);
    passed.push('entities');

    for (const [k, a] of actions.entries()) {
      const spec = domain.tools.find((t) => t.name === a.name);
      if (!spec) return fail('schema', `call ${k + 1}: unknown tool ${a.name}`);
      const problems = schemaProblems(spec.parameters, a.arguments ?? {});
      if (problems.length) return fail('schema', `call ${k + 1} ${a.name}: ${problems[0]}`);
    }
    passed.push('schema');

    if (execError) return fail('executes', execError);
    passed.push('executes');

    const verdict = await ruleValidator(domain).validate(actions.map((a) => a.name));
    if (!verdict.plausible) return fail('policy', verdict.reason);
    const closed = closedEntityWrites(domain, actions);
    if (closed.length) return fail('policy', closed[0]);
    passed.push('policy');
  }
  // Also for an evolved task: its decoys or rewritten scenario are what the do-nothing agent now meets.
  const nothing = await measuresNothing(domain, task);
  if (nothing) return fail('measures', nothing);
  passed.push('measures');
  const v = await (options.verifier ?? scriptedVerifier)(task, domain);
  if (v.reward !== 1)
    return { ...fail('verifier', `reward ${v.reward}${v.detail ? ` (${v.detail})` : ''}`), reward: v.reward };
  passed.push('verifier');
  return { ok: true, passed, reward: v.reward };
}
