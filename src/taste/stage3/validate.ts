import {
  type AgentFunction,
  assistantGold,
  createEnvironment,
  type GoldAction,
  runEpisode,
  scriptedUser,
  type Tau2Domain,
  type Tau2Task,
} from '../../domains/index.js';
import type { Tool } from '../types.js';
import { ruleValidator } from '../validators/rule-validator.js';
import { schemaProblems } from './schema-check.js';

export type ValidationStep = 'arguments' | 'entities' | 'schema' | 'executes' | 'policy' | 'verifier';

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

/** Required parameters absent, null or empty, per gold call. */
export function missingArguments(domain: Tau2Domain, task: Tau2Task): string[] {
  const out: string[] = [];
  assistantGold(task).forEach((a, k) => {
    const spec = domain.tools.find((t) => t.name === a.name);
    for (const r of (spec?.parameters?.required as string[] | undefined) ?? []) {
      const v = a.arguments?.[r];
      if (v === undefined || v === null || v === '') out.push(`call ${k + 1} ${a.name}: ${r} not specified`);
    }
  });
  return out;
}

/** Ids a gold call names, each with the collection it must exist in (looked up in the state before the call). */
function missingEntities(domainName: string, db: Record<string, any>, a: GoldAction): string[] {
  const args = a.arguments ?? {};
  const miss: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok) miss.push(`${a.name}: ${what} does not exist`);
  };
  if (typeof args.user_id === 'string') need(Object.hasOwn(db.users ?? {}, args.user_id), `user ${args.user_id}`);
  if (domainName === 'airline') {
    if (typeof args.reservation_id === 'string')
      need(Object.hasOwn(db.reservations, args.reservation_id), `reservation ${args.reservation_id}`);
    for (const f of Array.isArray(args.flights) ? args.flights : [])
      need(Object.hasOwn(db.flights, f?.flight_number), `flight ${f?.flight_number}`);
    if (typeof args.flight_number === 'string')
      need(Object.hasOwn(db.flights, args.flight_number), `flight ${args.flight_number}`);
    const owner = args.user_id ?? db.reservations[args.reservation_id]?.user_id;
    const methods = db.users[owner]?.payment_methods ?? {};
    const pays = [
      args.payment_id,
      ...(Array.isArray(args.payment_methods) ? args.payment_methods.map((p: any) => p?.payment_id) : []),
    ];
    for (const p of pays.filter((x) => typeof x === 'string')) need(Object.hasOwn(methods, p), `payment method ${p}`);
  }
  if (domainName === 'retail') {
    const order = typeof args.order_id === 'string' ? db.orders[args.order_id] : undefined;
    if (typeof args.order_id === 'string') need(order !== undefined, `order ${args.order_id}`);
    if (typeof args.product_id === 'string')
      need(Object.hasOwn(db.products, args.product_id), `product ${args.product_id}`);
    const variantExists = (id: string) => Object.values<any>(db.products).some((p) => Object.hasOwn(p.variants, id));
    if (typeof args.item_id === 'string') need(variantExists(args.item_id), `item ${args.item_id}`);
    for (const id of Array.isArray(args.item_ids) ? args.item_ids : [])
      need(!!order?.items.some((i: any) => i.item_id === id), `item ${id} in order ${args.order_id}`);
    for (const id of Array.isArray(args.new_item_ids) ? args.new_item_ids : []) need(variantExists(id), `item ${id}`);
    if (typeof args.payment_method_id === 'string') {
      const owner = args.user_id ?? order?.user_id;
      need(
        Object.hasOwn(db.users[owner]?.payment_methods ?? {}, args.payment_method_id),
        `payment method ${args.payment_method_id}`,
      );
    }
  }
  return miss;
}

/** An in-process agent that performs the gold calls in one turn, then tells every `communicate_info` string. */
export function goldAgent(task: Tau2Task): AgentFunction {
  const actions = assistantGold(task);
  const communicate = task.evaluation_criteria?.communicate_info ?? [];
  let pending = 0;
  let done = false;
  const final = { type: 'message' as const, content: ['Everything you asked for is done.', ...communicate].join(' ') };
  return (msg) => {
    if (msg.type === 'user') {
      if (done || actions.length === 0) return final;
      done = true;
      pending = actions.length;
      return {
        type: 'tool_calls',
        calls: actions.map((a, k) => ({ id: `gold_${k}`, name: a.name, arguments: a.arguments })),
      };
    }
    if (msg.type === 'tool_result') return --pending === 0 ? final : undefined;
    return undefined;
  };
}

/** The offline verifier: the gold path, played by `goldAgent` against the scripted user through `runEpisode`. */
export const scriptedVerifier: Verifier = async (task, domain) => {
  const ep = await runEpisode({ task, domain, agent: goldAgent(task), user: scriptedUser() });
  return { reward: ep.reward, detail: ep.info.termination };
};

/**
 * DESIGN §11 stage 3 validation, short-circuiting at the first failure: every argument specified, entities exist,
 * schema conformity, the gold sequence executes, policy coherence (the rule validator: dataflow, required reads,
 * nothing after a hand-off), then the verifier (default: the scripted one). `skipRules` skips the deterministic
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
  const actions = assistantGold(task);
  if (!options.skipRules) {
    const missing = missingArguments(domain, task);
    if (missing.length) return fail('arguments', missing[0]);
    passed.push('arguments');

    // One replay serves two steps: entities are looked up in the state just before each call, errors kept for later.
    const env = createEnvironment(domain, undefined, { initialState: task.initial_state });
    const absent: string[] = [];
    let execError: string | undefined;
    for (const [k, a] of actions.entries()) {
      absent.push(...missingEntities(domain.name, env.db, a));
      const r = env.call(a.name, a.arguments);
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

    const verdict = await ruleValidator({ name: domain.name, tools: domain.tools as unknown as Tool[] }).validate(
      actions.map((a) => a.name),
    );
    if (!verdict.plausible) return fail('policy', verdict.reason);
    passed.push('policy');
  }
  const v = await (options.verifier ?? scriptedVerifier)(task, domain);
  if (v.reward !== 1)
    return { ...fail('verifier', `reward ${v.reward}${v.detail ? ` (${v.detail})` : ''}`), reward: v.reward };
  passed.push('verifier');
  return { ok: true, passed, reward: v.reward };
}
