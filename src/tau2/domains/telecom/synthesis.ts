import type { EnvAssertion, Environment, InitialState, RewardComponent, Tau2Domain } from '../../data_model/types.js';
import { PyException } from '../../py/errors.js';
import { type Synthesis, type TaskCriteria, Unfit } from '../kit.js';
import type { Line, TelecomDb } from './db.js';
import { type InitAction, subjectOf, troubleFor } from './facts.js';
import { type TelecomWalkState, telecomWalk } from './walk.js';

const requestorOf = (domain: Tau2Domain, name: string) =>
  domain.tools.find((t) => t.name === name)?.requestor ?? 'assistant';

/** Device and line facts a generated task may assert, each with the values it can take. */
function assertable(customer_id: string, line_id: string, bill?: string, refuel?: number): [EnvAssertion, unknown[]][] {
  const user = (func_name: string): EnvAssertion => ({ env_type: 'user', func_name, arguments: {} });
  const bools = [true, false];
  const line = { customer_id, line_id };
  const out: [EnvAssertion, unknown[]][] = [
    [user('assert_service_status'), ['connected', 'searching', 'no_service', 'emergency_only']],
    [user('assert_airplane_mode_status'), bools],
    [user('assert_mobile_data_status'), bools],
    [user('assert_mobile_roaming_status'), bools],
    [user('assert_mobile_data_saver_mode_status'), bools],
    [user('assert_can_send_mms'), bools],
    [user('assert_mobile_data_usage_exceeded'), bools],
    [{ env_type: 'assistant', func_name: 'assert_line_status', arguments: line }, ['Active', 'Suspended']],
  ];
  if (refuel !== undefined)
    out.push([
      {
        env_type: 'assistant',
        func_name: 'assert_data_refueling_amount',
        arguments: { ...line, expected_amount: refuel },
      },
      [],
    ]);
  if (bill)
    out.push([
      { env_type: 'assistant', func_name: 'assert_no_overdue_bill', arguments: { overdue_bill_id: bill } },
      [],
    ]);
  return out;
}

/** Whether `a` holds on `env`; undefined when its function raises or gives no bool. */
function holds(env: Environment, a: EnvAssertion): boolean | undefined {
  try {
    // τ²'s run_env_assertion without its raise: the function's bool (importing environment.ts would be a cycle).
    const res = env.runFunction(a.env_type, a.func_name, a.arguments);
    return typeof res === 'boolean' ? res === (a.assert_value ?? true) : undefined;
  } catch (err) {
    if (err instanceof PyException) return undefined;
    throw err;
  }
}

/**
 * The env assertions of a generated task: each device or line fact whose value the gold calls changed, asserted at
 * its gold value (τ²'s own telecom tasks assert the same functions). A nop agent fails every one of them.
 */
function changedFacts(
  gold: Environment,
  initial: Environment,
  s: { customer_id: string; line_id: string },
  bill?: string,
  refuel?: number,
) {
  const out: EnvAssertion[] = [];
  for (const [base, values] of assertable(s.customer_id, s.line_id, bill, refuel)) {
    const variants = values.length
      ? values.map((v) => ({ ...base, arguments: { ...base.arguments, expected_status: v } }))
      : [base];
    const now = variants.find((a) => holds(gold, a) === true);
    if (now && holds(initial, now) === false) out.push({ ...now, assert_value: true, message: null });
  }
  return out;
}

/**
 * TASTE stage 3 on telecom: the entity is the customer's line, the scenario starts from τ²'s "break" functions for
 * the fixes in the sequence, and the task is graded on DB (the agent's and the user's databases, as τ²'s DB check
 * compares both) plus ENV_ASSERTION on what the gold changed. No decoys: τ² telecom tasks set their state with
 * initialization actions, and none adds a customer or line.
 */
export const telecomSynthesis: Synthesis<TelecomDb, Line, TelecomWalkState> = {
  entity: { kind: 'line', table: 'lines', idArg: 'line_id', lookup: 'get_details_by_id', lookupArg: 'id' },
  walk: telecomWalk,
  opener: 'You are calling your mobile carrier about a problem with your phone.',
  initialState(base, subject, sequence): InitialState {
    const s = subjectOf(base, subject);
    const actions: InitAction[] = [
      {
        env_type: 'user',
        func_name: 'set_user_info',
        arguments: { name: s.customer.full_name, phone_number: s.line.phone_number },
      },
    ];
    const seen = new Set<string>();
    for (const tool of sequence)
      for (const a of troubleFor(tool, s, base)?.actions ?? []) {
        const key = JSON.stringify(a);
        if (!seen.has(key)) actions.push(a);
        seen.add(key);
      }
    // τ²'s service tasks end their set-up with a network search, so the status bar shows the broken state.
    actions.push({ env_type: 'user', func_name: 'simulate_network_search', arguments: {} });
    return { initialization_data: null, initialization_actions: actions, message_history: null };
  },
  criteria(walk, initial): TaskCriteria {
    const { customer, line } = walk.state;
    const bill = walk.ctx.calls.find((c) => c.name === 'send_payment_request')?.arguments.bill_id;
    // The line's refuelled total at the gold end (what assert_data_refueling_amount compares).
    const refuel = walk.ctx.calls.some((c) => c.name === 'refuel_data')
      ? (walk.ctx.env.db as TelecomDb).lines.find((l) => l.line_id === line.line_id)?.data_refueling_gb
      : undefined;
    const facts = changedFacts(
      walk.ctx.env,
      initial(),
      { customer_id: customer.customer_id, line_id: line.line_id },
      typeof bill === 'string' ? bill : undefined,
      typeof refuel === 'number' ? refuel : undefined,
    );
    // τ²'s DB check replays the gold calls without sync_tools (Environment.make_tool_call), while an episode syncs
    // after every call: where an agent write moves the user's surroundings the two differ even for a perfect agent,
    // so DB is part of the basis only where the unsynced replay ends where the episode does.
    const replay = initial();
    for (const c of walk.ctx.calls) replay.goldCall(c.name, c.arguments, requestorOf(walk.ctx.domain, c.name));
    const dbHolds = replay.hash() === walk.ctx.env.hash() && replay.userHash() === walk.ctx.env.userHash();
    if (!dbHolds && !facts.length) {
      const last = walk.ctx.sequence.length - 1;
      throw new Unfit(
        walk.ctx.sequence[last],
        last,
        "nothing to grade: no asserted fact changes and τ²'s DB check cannot hold",
      );
    }
    const basis: RewardComponent[] = [];
    if (dbHolds) basis.push('DB');
    if (facts.length) basis.push('ENV_ASSERTION');
    if (walk.ctx.notes.communicate.length) basis.push('COMMUNICATE');
    return {
      ...(facts.length ? { env_assertions: facts } : {}),
      reward_basis: basis,
      uncompared: ['transfer_to_human_agents'],
    };
  },
  references(db, args, need) {
    const customer =
      typeof args.customer_id === 'string' ? db.customers.find((c) => c.customer_id === args.customer_id) : undefined;
    if (typeof args.customer_id === 'string') need(customer !== undefined, `customer ${args.customer_id}`);
    if (typeof args.line_id === 'string')
      need(!!customer?.line_ids.includes(args.line_id), `line ${args.line_id} of customer ${args.customer_id}`);
    if (typeof args.bill_id === 'string') need(!!customer?.bill_ids.includes(args.bill_id), `bill ${args.bill_id}`);
  },
};
