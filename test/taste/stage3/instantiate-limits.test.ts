import { describe, expect, it } from 'vitest';
import { executableValidator, instantiateSequence, Rng, ruleValidator, startWalk } from '../../../src/taste/index.js';
import { createEnvironment, initialDb } from '../../../src/tau2/index.js';
import { domain } from '../../tau2/data.js';

const gold = (task: any): { name: string; arguments: any }[] => task.evaluation_criteria.actions;

describe('programmatic instantiation at the limits of the τ² databases', () => {
  it('airline: a fourth booking is refused up front, naming τ²’s three new reservation ids', async () => {
    const d = await domain('airline');
    const four = ['get_user_details', ...Array(4).fill('book_reservation')];
    const out = instantiateSequence(d, four, { seed: 0 });
    expect(out).toMatchObject({ ok: false, attempts: 0 });
    expect(!out.ok && out.reason).toMatch(/4 bookings.*at most 3 new reservations/);
    // Three bookings are within the limit and execute.
    const three = instantiateSequence(d, four.slice(0, 4), { seed: 0 });
    expect(three.ok).toBe(true);
  });

  it('retail: more delivered-order writes than any user has delivered orders is refused up front', async () => {
    const d = await domain('retail');
    const out = instantiateSequence(d, Array(5).fill('return_delivered_order_items'), { seed: 0 });
    expect(out).toMatchObject({ ok: false, attempts: 0 });
    expect(!out.ok && out.reason).toMatch(/5 delivered-order writes.*no user has more than 4/);
  });

  it('retail: a payment change is instantiated for a user with a second payment method', async () => {
    const d = await domain('retail');
    const seq = ['modify_pending_order_address', 'modify_pending_order_payment', 'cancel_pending_order'];
    for (const seed of [0, 1, 2]) {
      const out = instantiateSequence(d, seq, { seed, maxRetries: 2 });
      expect(out.ok, `seed ${seed}`).toBe(true);
      if (!out.ok) continue;
      expect(gold(out.task).map((a) => a.name)).toEqual(seq);
      const env = createEnvironment(d);
      for (const a of gold(out.task)) expect(env.call(a.name, a.arguments)).toMatchObject({ ok: true });
    }
  });

  it('retail: a second item change may reuse an order an address change left pending (τ² allows it)', async () => {
    const d = await domain('retail');
    const base = initialDb(d);
    // A user with exactly two pending orders: address change on A, item change on B (A was written), address change
    // on B, then the second item change has only A left, still "pending" after its address change.
    const user = Object.values<any>(base.users).find(
      (u) => u.orders.filter((id: string) => base.orders[id]?.status === 'pending').length === 2,
    );
    const seq = [
      'modify_pending_order_address',
      'modify_pending_order_items',
      'modify_pending_order_address',
      'modify_pending_order_items',
    ];
    const env = createEnvironment(d);
    const ctx = {
      domain: d,
      env,
      base,
      rng: new Rng('walk'),
      sequence: seq,
      calls: [],
      notes: { known: [], unknown: [], intents: [], communicate: [], purpose: [] },
    };
    const walk = startWalk(ctx, user.user_id);
    const ids: string[] = [];
    seq.forEach((tool, i) => {
      const args = walk.candidates(i).find((a) => env.call(tool, a).ok);
      expect(args, `${tool} (call ${i + 1})`).toBeDefined();
      walk.accept(i, args!, null);
      ids.push(args!.order_id);
    });
    expect(ids[1]).not.toBe(ids[0]);
    expect(ids[3]).toBe(ids[0]);
  });

  it('the stage-2 medoid check rejects rule-plausible sequences no entities fit, and passes the rest', async () => {
    const d = await domain('airline');
    const rules = ruleValidator(d);
    const check = executableValidator(rules, d, { seed: 0 });
    const four = ['get_user_details', ...Array(4).fill('book_reservation')];
    expect((await rules.validate(four)).plausible).toBe(true);
    const v = await check.validate(four);
    expect(v.plausible).toBe(false);
    expect(v.reason).toMatch(/^not instantiable: 4 bookings/);
    expect(check.rejected.size).toBe(1);
    expect((await check.validate(four.slice(0, 4))).plausible).toBe(true);
    expect(check.rejected.size).toBe(1);
  });
});
