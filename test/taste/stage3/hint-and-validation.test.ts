import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { startStubServer } from '../../../fixtures/stub-openai/server.js';
import {
  buildHint,
  hintText,
  instantiateSequence,
  llmAdversarialRewrite,
  llmScenario,
  schemaProblems,
  validateTask,
} from '../../../src/taste/index.js';
import { domain } from '../../tau2/data.js';

const action = fc.record({
  name: fc.constantFrom('a', 'b', 'c'),
  arguments: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.integer(), { maxKeys: 5 }),
});

describe('hint construction', () => {
  test.prop([fc.array(action, { maxLength: 8 }), fc.integer()])(
    'removes round(30 %) of arguments, keeps the rest verbatim, shuffles calls',
    (actions, seed) => {
      const hint = buildHint(actions, seed);
      const total = actions.reduce((s, a) => s + Object.keys(a.arguments).length, 0);
      expect(hint.reduce((s, h) => s + h.removed.length, 0)).toBe(Math.round(0.3 * total));
      expect(hint.map((h) => h.name).sort()).toEqual(actions.map((a) => a.name).sort());
      // Every hint call is one gold call minus exactly its removed arguments.
      const pool = [...actions];
      for (const h of hint) {
        const k = pool.findIndex(
          (a) =>
            a.name === h.name &&
            Object.keys(a.arguments).sort().join() === [...Object.keys(h.arguments), ...h.removed].sort().join() &&
            Object.entries(h.arguments).every(([key, v]) => a.arguments[key] === v),
        );
        expect(k).toBeGreaterThanOrEqual(0);
        pool.splice(k, 1);
      }
      expect(buildHint(actions, seed)).toEqual(hint);
    },
  );

  it("shows a real telecom gold's 2.0 as a float, so the hinted model sends what the gold's DB state needs", async () => {
    const d = await domain('telecom');
    const refuel = d.tasks
      .flatMap((t) => t.evaluation_criteria?.actions ?? [])
      .find((a) => a.name === 'refuel_data' && a.arguments.gb_amount !== undefined);
    expect(refuel).toBeDefined();
    const text = hintText([{ name: 'refuel_data', arguments: refuel!.arguments, removed: [] }]);
    expect(text).toContain('"gb_amount":2.0');
  });
});

describe('schema conformity', () => {
  it('accepts gold arguments of a real tool and names what is wrong otherwise', async () => {
    const d = await domain('airline');
    const spec = d.tools.find((t) => t.name === 'update_reservation_baggages')!.parameters;
    expect(
      schemaProblems(spec, { reservation_id: 'X', total_baggages: 1, nonfree_baggages: 0, payment_id: 'p' }),
    ).toEqual([]);
    expect(schemaProblems(spec, { reservation_id: 'X', total_baggages: 1.5, nonfree_baggages: 0 })).toEqual([
      'arguments.payment_id: required',
      'arguments.total_baggages: expected integer, got number',
    ]);
  });
});

describe('instantiation and the validation pipeline (offline)', () => {
  it('instantiates a retail exchange whose gold executes and passes every step', async () => {
    const d = await domain('retail');
    const made = instantiateSequence(
      d,
      ['find_user_id_by_email', 'get_order_details', 'exchange_delivered_order_items'],
      { seed: 3, id: 'r1' },
    );
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    const v = await validateTask(d, made.task);
    expect(v).toMatchObject({
      ok: true,
      passed: ['arguments', 'entities', 'schema', 'executes', 'policy', 'measures', 'verifier'],
      reward: 1,
    });
    // Tampering short-circuits at the first broken step.
    const broken = structuredClone(made.task);
    broken.evaluation_criteria!.actions![2].arguments.order_id = '#W0000000';
    expect((await validateTask(d, broken)).failed?.step).toBe('entities');
    const gone = structuredClone(made.task);
    delete gone.evaluation_criteria!.actions![2].arguments.payment_method_id;
    expect((await validateTask(d, gone)).failed?.step).toBe('arguments');
  });

  it('gives up cleanly when no entity fits', async () => {
    const d = await domain('airline');
    // The walk tries `maxRetries` users, then names the most frequent obstacle.
    const twice = ['get_user_details', 'send_certificate', 'send_certificate'];
    const r = instantiateSequence(d, twice, { seed: 1, maxRetries: 2 });
    expect(r).toMatchObject({ ok: false, attempts: 2 });
    if (!r.ok) expect(r.reason).toMatch(/send_certificate \(call 3\): a second certificate breaks policy/);
    // A domain limit no user can lift is named without trying any (τ² has three new reservation ids).
    const four = instantiateSequence(d, Array(4).fill('book_reservation'), { seed: 1, maxRetries: 2 });
    expect(four).toMatchObject({ ok: false, attempts: 0 });
    if (!four.ok) expect(four.reason).toMatch(/at most 3 new reservations/);
  });
});

describe('policy coherence and telecom (offline)', () => {
  it('no gold write acts on an order its items modification closed: the walk avoids it, validation rejects it', async () => {
    const d = await domain('retail');
    const seq = [
      'find_user_id_by_email',
      'get_user_details',
      'get_order_details',
      'modify_pending_order_items',
      'get_order_details',
      'modify_pending_order_address',
    ];
    const made = instantiateSequence(d, seq, { seed: 0, id: 'p1' });
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    const [, , , items, , address] = made.task.evaluation_criteria!.actions!;
    // "the agent will not be able to modify or cancel the order anymore": the address change goes to another order.
    expect(address.arguments.order_id).not.toBe(items.arguments.order_id);
    expect((await validateTask(d, made.task)).failed).toBeUndefined();
    const closed = structuredClone(made.task);
    closed.evaluation_criteria!.actions![5].arguments.order_id = items.arguments.order_id;
    expect((await validateTask(d, closed)).failed).toEqual({
      step: 'policy',
      reason: `call 6 modify_pending_order_address acts on ${items.arguments.order_id} after modify_pending_order_items closed it: the policy allows no further change`,
    });
  });

  it('telecom: the phone starts broken the way the fixes repair, the user makes their own fixes, assertions grade it', async () => {
    const d = await domain('telecom');
    const made = instantiateSequence(d, ['toggle_data', 'refuel_data'], { seed: 0, id: 't1' });
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    const { initial_state, evaluation_criteria } = made.task;
    expect(initial_state?.initialization_actions?.map((a) => a.func_name)).toEqual([
      'set_user_info',
      'turn_data_off',
      'set_data_usage',
      'simulate_network_search',
    ]);
    expect(evaluation_criteria?.actions?.map((a) => [a.requestor, a.name])).toEqual([
      ['user', 'toggle_data'],
      ['assistant', 'refuel_data'],
    ]);
    expect(evaluation_criteria?.reward_basis).toContain('ENV_ASSERTION');
    expect(evaluation_criteria?.env_assertions?.map((a: any) => a.func_name)).toEqual(
      expect.arrayContaining(['assert_mobile_data_status', 'assert_data_refueling_amount']),
    );
    expect(await validateTask(d, made.task)).toMatchObject({
      ok: true,
      passed: ['arguments', 'entities', 'schema', 'executes', 'policy', 'measures', 'verifier'],
    });
    // A change that fixes no prepared trouble is one a policy-following agent would not ask for.
    const vpn = instantiateSequence(d, ['connect_vpn'], { seed: 0, maxRetries: 2 });
    expect(vpn).toMatchObject({ ok: false });
    if (!vpn.ok) expect(vpn.reason).toMatch(/connect_vpn \(call 1\): no prepared problem/);
  });
});

describe('LLM scenario and rewrite (stub model)', () => {
  it('takes a usable JSON answer and keeps the gold calls; an unusable one yields null', async () => {
    const d = await domain('airline');
    const made = instantiateSequence(d, ['get_user_details', 'cancel_reservation'], { seed: 2, id: 'a1' });
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    const scenario = {
      reason_for_call: 'I need to cancel a trip.',
      known_info: 'k',
      unknown_info: '',
      task_instructions: 'be terse',
    };
    const stub = await startStubServer({ script: [{ json: scenario }, { content: 'not json' }] });
    try {
      const model = { baseURL: stub.baseURL, apiKey: 'x', model: 'stub' };
      const t = await llmScenario(model, made.task, d.policy);
      expect(t?.user_scenario.instructions).toMatchObject({
        reason_for_call: 'I need to cancel a trip.',
        task_instructions: 'be terse',
      });
      expect(t?.evaluation_criteria).toEqual(made.task.evaluation_criteria);
      expect(await llmAdversarialRewrite(model, d, made.task, 1)).toBeNull();
      expect(stub.requests.length).toBe(3);
      // The adversarial plan names the write actions (by tool type), never a lookup.
      const plan = JSON.stringify(stub.requests[1]);
      expect(plan).toMatch(/- cancel_reservation: /);
      expect(plan).not.toMatch(/- get_\w+: /);
    } finally {
      await stub.close();
    }
  });
});
