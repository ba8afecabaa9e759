import { describe, expect, test } from 'vitest';
import { computeReward, createEnvironment } from '../../src/domains/index.js';
import { domain } from './data.js';

/**
 * τ-Bench-Verified's gold lists are recorded trajectories: a few keep calls that τ²'s own tools refuse on this
 * database (a mistyped email, an order id without its 'W', a product id that is the tool description's example,
 * `get_item_details` called with a product_id, an exchange to an unavailable variant, a gift card that cannot cover
 * the difference, an exchange tried on a pending order before the right modify). They change nothing, so the final
 * state is unaffected; every other gold call must succeed.
 */
const EXPECTED_REFUSALS: Record<string, Record<string, string[]>> = {
  airline: {},
  retail: {
    '2': ['get_product_details'],
    '3': ['get_product_details'],
    '4': ['get_product_details'],
    '18': ['exchange_delivered_order_items'],
    '21': ['get_item_details', 'get_item_details', 'get_item_details'],
    '35': ['find_user_id_by_email'],
    '37': ['find_user_id_by_email'],
    '38': ['find_user_id_by_email'],
    '39': ['find_user_id_by_name_zip'],
    '46': ['get_order_details', 'get_order_details'],
    '47': ['get_order_details', 'get_order_details'],
    '54': ['find_user_id_by_email'],
    '55': ['find_user_id_by_email'],
    '64': ['exchange_delivered_order_items'],
    '67': ['find_user_id_by_name_zip', 'find_user_id_by_name_zip'],
    '68': ['find_user_id_by_name_zip'],
    '91': ['exchange_delivered_order_items'],
    '105': ['exchange_delivered_order_items'],
  },
};

describe.each(['airline', 'retail'] as const)('%s gold actions', (name) => {
  test('every gold action executes without a tool error, except the refusals τ² itself makes', async () => {
    const d = await domain(name);
    const refused: Record<string, string[]> = {};
    let lists = 0;
    for (const task of d.tasks) {
      const actions = task.evaluation_criteria?.actions ?? [];
      if (actions.length === 0) continue;
      lists++;
      const env = createEnvironment(d, undefined, { initialState: task.initial_state });
      for (const a of actions) {
        const r = env.call(a.name, a.arguments);
        if (!r.ok) refused[task.id] = [...(refused[task.id] ?? []), a.name];
      }
    }
    expect(refused).toEqual(EXPECTED_REFUSALS[name]);
    expect(lists).toBeGreaterThan(40);
  });

  test('replaying the gold calls as the agent gives DB 1; an empty trajectory gives DB 0 where gold writes', async () => {
    const d = await domain(name);
    const initial = createEnvironment(d).hash();
    for (const task of d.tasks.slice(0, 12)) {
      const actions = task.evaluation_criteria?.actions ?? [];
      const asAgent = computeReward({ domain: d, task, toolCalls: actions, messages: [] });
      expect(asAgent.components.DB).toBe(1);
      const none = computeReward({ domain: d, task, toolCalls: [], messages: [] });
      expect(none.components.DB).toBe(asAgent.info.goldHash === initial ? 1 : 0);
    }
  });
});
