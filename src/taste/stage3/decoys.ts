import { createEnvironment, type Tau2Domain, type Tau2Task } from '../../domains/index.js';
import { Rng } from '../prng.js';
import { baseDb } from './instantiate.js';

/** One decoy record added to a task's initial state. */
export interface Decoy {
  kind: 'reservation' | 'order';
  id: string;
  /** The true entity it imitates. */
  near: string;
  owner: string;
  how: string;
}

export interface DecoyResult {
  task: Tau2Task;
  decoys: Decoy[];
}

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

function shiftDate(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Entity ids the gold calls name (any string argument, at any depth). */
function goldStrings(task: Tau2Task): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const a of task.evaluation_criteria?.actions ?? []) walk(a.arguments);
  return out;
}

/**
 * Difficulty evolution by decoys (DESIGN §11): for up to `max` entities the gold writes act on, a plausible but
 * wrong twin owned by the same user — airline: another reservation of the same trip a day or two later; retail:
 * another order like it with one item in a sibling variant — merged into `initial_state`. Gold calls and arguments
 * are untouched. Returns the base task unchanged (no decoys) when nothing fits.
 */
export function addDecoys(domain: Tau2Domain, task: Tau2Task, seed: number | string = 0, max = 2): DecoyResult {
  const base = baseDb(domain);
  const rng = new Rng(`${seed}:decoys:${task.id}`);
  const named = goldStrings(task);
  const actions = task.evaluation_criteria?.actions ?? [];
  const decoys: Decoy[] = [];
  const agentData: Record<string, any> = { users: {} };
  const table = (name: string): Record<string, any> => {
    agentData[name] ??= {};
    return agentData[name];
  };
  const freshId = (exists: (id: string) => boolean, make: () => string) => {
    for (;;) {
      const id = make();
      if (!exists(id) && !named.has(id)) return id;
    }
  };
  if (domain.name === 'airline') {
    const targets = [...new Set(actions.map((a) => a.arguments?.reservation_id).filter((id) => base.reservations[id]))];
    const users: Record<string, string[]> = {};
    for (const id of targets.slice(0, max)) {
      const r = base.reservations[id];
      const did = freshId(
        (x) => Object.hasOwn(base.reservations, x) || x.startsWith('HATHA'),
        () => Array.from({ length: 6 }, () => ALNUM[rng.int(ALNUM.length)]).join(''),
      );
      const days = 1 + rng.int(2);
      const twin = structuredClone(r);
      twin.reservation_id = did;
      twin.flights = twin.flights.map((f: any) => ({ ...f, date: shiftDate(f.date, days) }));
      table('reservations')[did] = twin;
      users[r.user_id] ??= [...base.users[r.user_id].reservations];
      users[r.user_id].push(did);
      decoys.push({ kind: 'reservation', id: did, near: id, owner: r.user_id, how: `same trip ${days} day(s) later` });
    }
    for (const [u, list] of Object.entries(users)) agentData.users[u] = { reservations: list };
  } else if (domain.name === 'retail') {
    const targets = [...new Set(actions.map((a) => a.arguments?.order_id).filter((id) => base.orders[id]))];
    const users: Record<string, string[]> = {};
    for (const id of targets.slice(0, max)) {
      const o = base.orders[id];
      const did = freshId(
        (x) => Object.hasOwn(base.orders, x),
        () => `#W${String(1_000_000 + rng.int(9_000_000))}`,
      );
      const twin = structuredClone(o);
      twin.order_id = did;
      let how = 'same items';
      for (const item of twin.items) {
        const sibling = Object.values<any>(base.products[item.product_id]?.variants ?? {}).find(
          (v) => v.item_id !== item.item_id && !named.has(v.item_id),
        );
        if (sibling) {
          how = `${item.name} in a sibling variant`;
          Object.assign(item, {
            item_id: sibling.item_id,
            price: sibling.price,
            options: structuredClone(sibling.options),
          });
          break;
        }
      }
      for (const f of twin.fulfillments ?? []) f.item_ids = twin.items.map((i: any) => i.item_id);
      table('orders')[did] = twin;
      users[o.user_id] ??= [...base.users[o.user_id].orders];
      users[o.user_id].push(did);
      decoys.push({ kind: 'order', id: did, near: id, owner: o.user_id, how });
    }
    for (const [u, list] of Object.entries(users)) agentData.users[u] = { orders: list };
  }
  if (!decoys.length) return { task, decoys };
  const evolved: Tau2Task = structuredClone(task);
  evolved.initial_state = {
    ...(evolved.initial_state ?? {}),
    initialization_data: { agent_data: agentData, user_data: null },
  };
  return { task: evolved, decoys };
}

/** The database after replaying the gold calls of `task` from its initial state (throws on a tool error). */
function goldFinal(domain: Tau2Domain, task: Tau2Task) {
  const env = createEnvironment(domain, undefined, { initialState: task.initial_state });
  for (const a of task.evaluation_criteria?.actions ?? []) {
    const r = env.call(a.name, a.arguments);
    if (!r.ok) throw new Error(`${a.name}: ${r.error}`);
  }
  return env;
}

/**
 * Proves decoys do not change the gold outcome: no gold call names a decoy id, and replaying gold on the evolved
 * initial state, then removing the decoy records, gives exactly (canonical hash) the base task's gold final state.
 */
export function decoysPreserveGold(
  domain: Tau2Domain,
  base: Tau2Task,
  evolved: Tau2Task,
  decoys: Decoy[],
): { ok: boolean; reason?: string } {
  const named = goldStrings(evolved);
  const hit = decoys.find((d) => named.has(d.id));
  if (hit) return { ok: false, reason: `a gold call names decoy ${hit.id}` };
  let before: ReturnType<typeof goldFinal>;
  let afterEnv: ReturnType<typeof goldFinal>;
  try {
    before = goldFinal(domain, base);
    afterEnv = goldFinal(domain, evolved);
  } catch (err) {
    return { ok: false, reason: `gold fails: ${(err as Error).message}` };
  }
  const after = afterEnv.db;
  for (const d of decoys) {
    const table = d.kind === 'reservation' ? 'reservations' : 'orders';
    delete after[table][d.id];
    const list = after.users[d.owner]?.[table];
    if (Array.isArray(list)) after.users[d.owner][table] = list.filter((x: string) => x !== d.id);
  }
  // Both hashes are the canonical sha256 of the whole database (computed incrementally against the initial one).
  return before.hash() === afterEnv.hash()
    ? { ok: true }
    : { ok: false, reason: 'the gold final state differs beyond the decoys' };
}
