import { describe, expect, test } from 'vitest';
import { auditGold, computeReward, createEnvironment, type GoldAction } from '../../src/tau2/index.js';
import { domain } from './data.js';

/**
 * τ-Bench-Verified's retail gold lists keep calls that τ²'s own tools refuse on this database: the 15 tasks of
 * sierra-research/tau2-bench#499 (mistyped emails and zips, order ids without their 'W', the tool description's
 * example product id, an exchange tried on a pending order, a gift card short of the difference), plus τ-BV's own
 * fixes of tasks 18 and 91 (an exchange to a variant that is `available: false`) and task 21 (`get_item_details`
 * given a product_id). Each refusal below is re-derived from the raw database, not from our tools.
 */
const RETAIL_REFUSALS: Record<string, string[]> = {
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
};
const TAU2_ISSUE_499 = ['2', '3', '4', '35', '37', '38', '39', '46', '47', '54', '55', '64', '67', '68', '105'];

/** Why the raw retail database makes this call impossible, or null when it does not. */
function impossibleBecause(db: any, a: GoldAction): string | null {
  const args = a.arguments ?? {};
  const users = Object.values(db.users) as any[];
  const variant = (id: string) =>
    (Object.values(db.products) as any[]).map((p) => p.variants[id]).find((v) => v !== undefined);
  switch (a.name) {
    case 'find_user_id_by_email':
      return users.some((u) => u.email === args.email) ? null : 'no user has this email';
    case 'find_user_id_by_name_zip':
      return users.some(
        (u) =>
          u.name.first_name === args.first_name && u.name.last_name === args.last_name && u.address.zip === args.zip,
      )
        ? null
        : 'no user has this name and zip';
    case 'get_product_details':
      return db.products[args.product_id] ? null : 'no such product';
    case 'get_order_details':
      return db.orders[args.order_id] ? null : 'no such order';
    case 'get_item_details':
      return 'item_id' in args ? null : 'item_id (required) not given';
    case 'exchange_delivered_order_items': {
      const order = db.orders[args.order_id];
      if (order.status !== 'delivered') return 'the order is not delivered';
      const fresh = args.new_item_ids.map(variant);
      if (fresh.some((v: any) => !v?.available)) return 'a new item is unavailable';
      const price = (id: string) => order.items.find((i: any) => i.item_id === id).price;
      const diff =
        fresh.reduce((s: number, v: any) => s + v.price, 0) -
        args.item_ids.reduce((s: number, id: string) => s + price(id), 0);
      const pm = users.find((u) => u.user_id === order.user_id).payment_methods[args.payment_method_id];
      return pm.source === 'gift_card' && pm.balance < diff ? 'the gift card cannot pay the difference' : null;
    }
    default:
      return null;
  }
}

describe('gold actions on our domains', () => {
  test('airline: every call of every non-empty gold list executes without a tool error', async () => {
    const d = await domain('airline');
    const lists = d.tasks.filter((t) => (t.evaluation_criteria?.actions ?? []).length > 0);
    expect(lists.length).toBeGreaterThan(40);
    expect(auditGold(d, d.tasks)).toEqual([]);
  });

  test('retail: every gold call executes except those the raw database makes impossible, as τ² refuses them', async () => {
    const d = await domain('retail');
    const audit = auditGold(d, d.tasks);
    expect(Object.fromEntries(audit.map((a) => [a.taskId, a.refused.map((r) => r.name)]))).toEqual(RETAIL_REFUSALS);
    expect(audit.map((a) => a.taskId)).toEqual(expect.arrayContaining(TAU2_ISSUE_499));
    const db = JSON.parse(d.dbText!);
    for (const { taskId, refused } of audit) {
      const task = d.tasks.find((t) => String(t.id) === taskId)!;
      for (const r of refused) {
        const action = (task.evaluation_criteria?.actions ?? []).find((a) => a.action_id === r.actionId)!;
        expect(impossibleBecause(db, action), `${r.actionId} ${r.name}: ${r.error}`).not.toBeNull();
        expect(r.write).toBe(r.name === 'exchange_delivered_order_items');
      }
    }
    // Everything the database allows runs: no other gold call of the 114 tasks is refused.
    const calls = d.tasks.flatMap((t) => t.evaluation_criteria?.actions ?? []);
    const refusedIds = new Set(audit.flatMap((a) => a.refused.map((r) => r.actionId)));
    for (const a of calls) if (!refusedIds.has(a.action_id!)) expect(impossibleBecause(db, a), a.action_id).toBeNull();
  });

  test.each(['airline', 'retail'] as const)(
    '%s: replaying the gold calls as the agent gives DB 1; an empty trajectory gives DB 0 where gold writes',
    async (name) => {
      const d = await domain(name);
      const initial = createEnvironment(d).hash();
      for (const task of d.tasks.slice(0, 12)) {
        const actions = task.evaluation_criteria?.actions ?? [];
        const asAgent = computeReward({ domain: d, task, toolCalls: actions, messages: [] });
        expect(asAgent.components.DB).toBe(1);
        const none = computeReward({ domain: d, task, toolCalls: [], messages: [] });
        expect(none.components.DB).toBe(asAgent.info.goldHash === initial ? 1 : 0);
      }
    },
  );
});
