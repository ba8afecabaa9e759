import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { referenceHasher } from '../../src/domains/canonical-json.js';
import { calculate, canonicalJson, createEnvironment, hashJson } from '../../src/domains/index.js';
import { domain } from './data.js';

describe('airline tool semantics', () => {
  test('booking charges gift cards and consumes certificates, takes seats and gets the first free HATHAT id', async () => {
    const d = await domain('airline');
    const env = createEnvironment(d);
    const db = env.db;
    const [userId, u] = Object.entries<any>(db.users).find(([, u]) =>
      Object.values<any>(u.payment_methods).some((m) => m.source === 'certificate'),
    )!;
    const cert = Object.values<any>(u.payment_methods).find((m) => m.source === 'certificate');
    const [fn, f] = Object.entries<any>(db.flights).find(([, f]) => f.dates['2024-05-20']?.status === 'available')!;
    const inst = f.dates['2024-05-20'];
    const seats = inst.available_seats.economy;
    const price = inst.prices.economy;
    db.users[userId].payment_methods.gift_card_test = { source: 'gift_card', id: 'gift_card_test', amount: 5000 };
    const r = env.call('book_reservation', {
      user_id: userId,
      origin: f.origin,
      destination: f.destination,
      flight_type: 'one_way',
      cabin: 'economy',
      flights: [{ flight_number: fn, date: '2024-05-20' }],
      passengers: [{ first_name: 'A', last_name: 'B', dob: '1990-01-01' }],
      payment_methods: [
        { payment_id: cert.id, amount: Math.min(cert.amount, price + 30) },
        { payment_id: 'gift_card_test', amount: price + 30 - Math.min(cert.amount, price + 30) },
      ],
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: 'yes',
    });
    expect(r).toMatchObject({ ok: true, result: { reservation_id: 'HATHAT', created_at: '2024-05-15T15:00:00' } });
    expect(db.users[userId].payment_methods[cert.id]).toBeUndefined();
    expect(db.users[userId].payment_methods.gift_card_test.amount).toBe(
      5000 - (price + 30 - Math.min(cert.amount, price + 30)),
    );
    expect(db.flights[fn].dates['2024-05-20'].available_seats.economy).toBe(seats - 1);
    expect(db.users[userId].reservations.at(-1)).toBe('HATHAT');

    const wrongTotal = env.call('book_reservation', {
      ...(r.ok ? {} : {}),
      user_id: userId,
      origin: 'X',
      destination: 'Y',
      flight_type: 'one_way',
      cabin: 'economy',
      flights: [{ flight_number: fn, date: '2024-05-20' }],
      passengers: [{ first_name: 'A', last_name: 'B', dob: '1990-01-01' }],
      payment_methods: [{ payment_id: 'gift_card_test', amount: 1 }],
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: 'no',
    });
    expect(wrongTotal).toMatchObject({ ok: false, error: expect.stringContaining('does not add up') });
  });

  test('cancellation appends negative payments and marks the reservation; baggage changes charge 50 per new bag', async () => {
    const d = await domain('airline');
    const env = createEnvironment(d);
    const [id, res] = Object.entries<any>(env.db.reservations).find(([, r]) => r.payment_history.length === 1)!;
    const paid = res.payment_history[0];
    const before = env.hash();
    expect(env.call('cancel_reservation', { reservation_id: id })).toMatchObject({ ok: true });
    expect(env.db.reservations[id].status).toBe('cancelled');
    expect(env.db.reservations[id].payment_history.at(-1)).toEqual({
      payment_id: paid.payment_id,
      amount: -paid.amount,
    });
    expect(env.hash()).not.toBe(before);

    const env2 = createEnvironment(d);
    const [rid, r2] = Object.entries<any>(env2.db.reservations).find(([, r]) =>
      Object.values<any>(env2.db.users[r.user_id].payment_methods).some(
        (m) => m.source === 'gift_card' && m.amount > 200,
      ),
    )!;
    const gc = Object.values<any>(env2.db.users[r2.user_id].payment_methods).find(
      (m) => m.source === 'gift_card' && m.amount > 200,
    );
    const balance = gc.amount;
    const up = env2.call('update_reservation_baggages', {
      reservation_id: rid,
      total_baggages: r2.total_baggages + 2,
      nonfree_baggages: r2.nonfree_baggages + 2,
      payment_id: gc.id,
    });
    expect(up.ok).toBe(true);
    expect(gc.amount).toBe(balance - 100);
    expect(
      env2.call('update_reservation_baggages', {
        reservation_id: rid,
        total_baggages: 0,
        nonfree_baggages: 0,
        payment_id: 'nope',
      }),
    ).toEqual({ ok: false, error: 'Payment method not found' });
  });

  test('unknown tools and malformed arguments are tool errors, not crashes', async () => {
    const env = createEnvironment(await domain('airline'));
    expect(env.call('drop_tables', {})).toMatchObject({ ok: false });
    expect(env.call('get_user_details', {})).toMatchObject({ ok: false, error: expect.stringContaining('user_id') });
    expect(env.call('get_user_details', { user_id: 42 })).toMatchObject({ ok: false });
    expect(env.call('get_user_details', { user_id: 'nobody' })).toEqual({ ok: false, error: 'User nobody not found' });
  });
});

describe('retail tool semantics', () => {
  test('cancelling a gift-card order refunds the card at once; exchange records the price difference', async () => {
    const d = await domain('retail');
    const env = createEnvironment(d);
    const db = env.db;
    const [oid, o] = Object.entries<any>(db.orders).find(
      ([, o]) =>
        o.status === 'pending' &&
        o.payment_history.length === 1 &&
        o.payment_history[0].payment_method_id.startsWith('gift_card'),
    )!;
    const card = db.users[o.user_id].payment_methods[o.payment_history[0].payment_method_id];
    const balance = card.balance;
    expect(env.call('cancel_pending_order', { order_id: oid, reason: 'because' })).toEqual({
      ok: false,
      error: 'Invalid reason',
    });
    expect(env.call('cancel_pending_order', { order_id: oid, reason: 'no longer needed' }).ok).toBe(true);
    expect(card.balance).toBe(Math.round((balance + o.payment_history[0].amount) * 100) / 100);
    expect(o.status).toBe('cancelled');
    expect(o.payment_history.at(-1).transaction_type).toBe('refund');
    expect(env.call('cancel_pending_order', { order_id: oid, reason: 'no longer needed' }).ok).toBe(false);

    const [did, del] = Object.entries<any>(db.orders).find(([, o]) => o.status === 'delivered')!;
    const item = del.items[0];
    const other = Object.values<any>(db.products[item.product_id].variants).find(
      (v) => v.available && v.item_id !== item.item_id,
    )!;
    const pm = del.payment_history[0].payment_method_id;
    const ex = env.call('exchange_delivered_order_items', {
      order_id: did,
      item_ids: [item.item_id],
      new_item_ids: [other.item_id],
      payment_method_id: pm,
    });
    expect(ex.ok).toBe(true);
    expect(del.status).toBe('exchange requested');
    expect(del.exchange_price_difference).toBe(Math.round((other.price - item.price) * 100) / 100);
    expect(
      env.call('return_delivered_order_items', { order_id: did, item_ids: [item.item_id], payment_method_id: pm }).ok,
    ).toBe(false);
  });

  test('modifying pending items charges each new variant and allows it only once', async () => {
    const env = createEnvironment(await domain('retail'));
    const db = env.db;
    const [oid, o] = Object.entries<any>(db.orders).find(
      ([, o]) =>
        o.status === 'pending' &&
        o.items.length >= 2 &&
        o.items.every((i: any) =>
          Object.values<any>(db.products[i.product_id].variants).some((v) => v.available && v.item_id !== i.item_id),
        ),
    )!;
    const [a, b] = o.items;
    const pick = (i: any) =>
      Object.values<any>(db.products[i.product_id].variants).find((v) => v.available && v.item_id !== i.item_id);
    const [va, vb] = [pick(a), pick(b)];
    const pm = o.payment_history[0].payment_method_id;
    const r = env.call('modify_pending_order_items', {
      order_id: oid,
      item_ids: [a.item_id, b.item_id],
      new_item_ids: [va.item_id, vb.item_id],
      payment_method_id: pm,
    });
    expect(r.ok).toBe(true);
    expect(o.items[0]).toMatchObject({ item_id: va.item_id, price: va.price, options: va.options });
    expect(o.items[1]).toMatchObject({ item_id: vb.item_id, price: vb.price, options: vb.options });
    expect(o.status).toBe('pending (item modified)');
    expect(
      env.call('modify_pending_order_items', {
        order_id: oid,
        item_ids: [va.item_id],
        new_item_ids: [a.item_id],
        payment_method_id: pm,
      }).ok,
    ).toBe(false);
  });
});

describe('calculate and hashing', () => {
  test('calculate prints like Python', () => {
    expect(calculate('2 + 2')).toBe('4.0');
    expect(calculate('(100 - 37.5) / 3')).toBe('20.83');
    expect(calculate('2 ** 3')).toBe('8.0');
    expect(() => calculate('1 / 0')).toThrow('division by zero');
    expect(() => calculate('import os')).toThrow('Invalid characters');
  });

  test.prop([fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 })])(
    'calculate adds integers exactly',
    (a, b) => {
      expect(Number(calculate(`${a} + (${b})`))).toBe(a + b);
    },
  );

  test.prop([fc.jsonValue()])('canonical JSON is key-order independent and parses back to the value', (v) => {
    const shuffled = JSON.parse(JSON.stringify(v), (_k, x) =>
      x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x,
    );
    expect(canonicalJson(shuffled)).toBe(canonicalJson(v));
    expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
  });

  test.prop([
    fc.dictionary(
      fc.string({ maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
    ),
    fc.dictionary(
      fc.string({ maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
    ),
  ])('the reference hasher equals hashJson on any database', (reference, patch) => {
    const db: Record<string, any> = structuredClone(reference);
    for (const [t, rows] of Object.entries(patch)) db[t] = { ...(db[t] ?? {}), ...rows };
    expect(referenceHasher(reference)(db)).toBe(hashJson(db));
    expect(referenceHasher(reference)(reference)).toBe(hashJson(reference));
  });
});
