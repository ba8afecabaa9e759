import { describe, expect, test } from 'vitest';
import { createEnvironment, initialDb } from '../../src/tau2/index.js';
import { pyJsonParse } from '../../src/tau2/py/json.js';
import { domain } from './data.js';

/**
 * The τ² behaviours issue 18 names, pinned with their literal texts (the differential test, tau2-parity, checks every
 * call against τ²'s own code; these say what that means on the cases people asked about).
 */
const call = (env: ReturnType<typeof createEnvironment>, name: string, argsJson: string) =>
  env.call(name, pyJsonParse(argsJson));

describe('airline as τ² 1.0.1 runs it', () => {
  test('ids are looked up exactly: "pgaglm" is not PGAGLM', async () => {
    const env = createEnvironment(await domain('airline'));
    expect(call(env, 'cancel_reservation', '{"reservation_id": "pgaglm"}')).toEqual({
      ok: false,
      content: 'Error: Reservation pgaglm not found',
      error: 'Reservation pgaglm not found',
    });
    expect(call(env, 'get_user_details', '{"user_id": " mia_li_3668"}').content).toBe(
      'Error: User  mia_li_3668 not found',
    );
    expect(env.changedRecords()).toEqual({});
  });

  test('send_certificate takes "100" (pydantic makes the certificate 100.0), and says what it was given', async () => {
    const d = await domain('airline');
    const env = createEnvironment(d);
    const r = call(env, 'send_certificate', '{"user_id": "mia_li_3668", "amount": "100"}');
    expect(r).toMatchObject({
      ok: true,
      content: 'Certificate certificate_3221322 added to user mia_li_3668 with amount 100.',
    });
    expect(env.changedRecords()['users/mia_li_3668']).toContain(
      '"certificate_3221322": {"amount": 100.0, "id": "certificate_3221322", "source": "certificate"}',
    );
  });

  test('update_reservation_baggages stores total_baggages as given: "2" a str, 2.0 a float, and the hash differs', async () => {
    const d = await domain('airline');
    const db = initialDb(d);
    const [id, r] = Object.entries<any>(db.reservations).find(
      ([, r]) => r.nonfree_baggages === 0 && r.status !== 'cancelled',
    )!;
    const pay = Object.keys(db.users[r.user_id].payment_methods).find((p) => p.startsWith('credit_card'))!;
    const hashes = ['2', '"2"', '2.0'].map((bags) => {
      const env = createEnvironment(d);
      const res = call(
        env,
        'update_reservation_baggages',
        `{"reservation_id": "${id}", "total_baggages": ${bags}, "nonfree_baggages": 0, "payment_id": "${pay}"}`,
      );
      expect(res.ok).toBe(true);
      expect(res.content).toContain(`"total_baggages": ${bags}`);
      return env.hash();
    });
    expect(new Set(hashes).size).toBe(3);
  });

  test("results are τ²'s text: null fields kept, floats as Python prints them", async () => {
    const env = createEnvironment(await domain('airline'));
    const r = call(env, 'get_reservation_details', '{"reservation_id": "PGAGLM"}');
    expect(r.content).toMatch(/^\{"reservation_id": "PGAGLM", "user_id": "isabella_muller_2311", .*"status": null\}$/);
    const u = call(env, 'get_user_details', '{"user_id": "mia_li_3668"}');
    expect(u.content).toMatch(/"amount": \d+\.\d+/);
  });

  test("Python's own errors for a bad call", async () => {
    const env = createEnvironment(await domain('airline'));
    expect(call(env, 'get_user_details', '{}').content).toBe(
      "Error: AirlineTools.get_user_details() missing 1 required positional argument: 'user_id'",
    );
    expect(call(env, 'get_user_details', '{"user_id": ["mia_li_3668"]}').content).toBe(
      "Error: unhashable type: 'list'",
    );
    expect(call(env, 'calculate', '{"expression": "(2"}').content).toBe(
      "Error: '(' was never closed (<string>, line 1)",
    );
    expect(call(env, 'calculate', '{"expression": "2 * (3 + 4.5)"}').content).toBe('15.0');
    expect(call(env, 'nope', '{}').content).toBe("Error: Tool 'nope' not found.");
  });
});

describe('retail as τ² 1.0.1 runs it', () => {
  test("get_item_details refuses a product_id with Python's text", async () => {
    const env = createEnvironment(await domain('retail'));
    expect(call(env, 'get_item_details', '{"product_id": "6086499569"}').content).toBe(
      "Error: RetailTools.get_item_details() got an unexpected keyword argument 'product_id'",
    );
  });

  test('find_user_id_by_email only lower-cases', async () => {
    const d = await domain('retail');
    const env = createEnvironment(d);
    const [id, u] = Object.entries<any>(initialDb(d).users)[0];
    expect(call(env, 'find_user_id_by_email', JSON.stringify({ email: u.email.toUpperCase() })).content).toBe(id);
    expect(call(env, 'find_user_id_by_email', JSON.stringify({ email: ` ${u.email}` })).content).toBe(
      'Error: User not found',
    );
  });

  test('multi-item modify_pending_order_items stores the last new variant on every item; per-item only as the named opt-in', async () => {
    const d = await domain('retail');
    const db = initialDb(d);
    // A pending order with two items of products that have other available variants of different prices.
    const alternative = (item: any) =>
      Object.values<any>(db.products[item.product_id].variants).find(
        (v) => v.available && v.item_id !== item.item_id && v.price !== item.price,
      );
    const [oid, order] = Object.entries<any>(db.orders).find(
      ([, o]) =>
        o.status === 'pending' &&
        o.items.length >= 2 &&
        o.items[0].product_id !== o.items[1].product_id &&
        alternative(o.items[0]) &&
        alternative(o.items[1]),
    )!;
    const [a, b] = order.items;
    const [va, vb] = [alternative(a), alternative(b)];
    const pay = order.payment_history[0].payment_method_id;
    const args = JSON.stringify({
      order_id: oid,
      item_ids: [a.item_id, b.item_id],
      new_item_ids: [va.item_id, vb.item_id],
      payment_method_id: pay,
    });
    const items = (semantics?: any) => {
      const env = createEnvironment(d, { semantics });
      const r = call(env, 'modify_pending_order_items', args);
      expect(r.ok).toBe(true);
      return (r as any).result.items.filter((i: any) => [va.item_id, vb.item_id].includes(i.item_id));
    };
    const tau2 = items();
    expect(tau2.map((i: any) => i.price)).toEqual([vb.price, vb.price]);
    expect(tau2.map((i: any) => i.options)).toEqual([vb.options, vb.options]);
    const perItem = items('tau2@1.0.1+tau-bench-item-modify');
    expect(perItem.map((i: any) => i.price)).toEqual([va.price, vb.price]);
  });
});

describe('telecom as τ² 1.0.1 runs it', () => {
  test('the user runs tools on their phone; sync_tools follows the line; refuel_data keeps 2.0', async () => {
    const d = await domain('telecom');
    const task = d.tasks.find((t) => t.id.startsWith('[mobile_data_issue]data_mode_off|data_usage_exceeded'))!;
    const env = createEnvironment(d, { initialState: task.initial_state });
    expect(call(env, 'toggle_data', '{}').content).toBe("Error: Tool 'toggle_data' not found.");
    expect(env.call('toggle_data', {}, 'user').content).toMatch(/^Mobile Data is now ON\.\nStatus Bar: /);
    const r = call(env, 'refuel_data', '{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}');
    expect(r.content).toBe(
      '{"message": "Successfully added 2.0 GB of data for line L1002 for $4.00", "new_data_refueling_gb": "2.0", "charge": "4.0"}',
    );
    expect(env.call('run_speed_test', {}, 'user').content).toMatch(/^Speed Test Result: .* Mbps \(Excellent\)/);
  });
});
