import type { ToolArgs } from '../../data_model/types.js';
import { type CallNote, spoken, Unfit, type Walk, type WalkRules } from '../kit.js';
import type { Order, OrderItem, Product, RetailDb, User } from './db.js';
import { CANCEL_REASONS, isPending } from './facts.js';

const PENDING_ONLY: ReadonlySet<string> = new Set(['cancel_pending_order', 'modify_pending_order_items']);
const PENDING_ANY: ReadonlySet<string> = new Set(['modify_pending_order_address', 'modify_pending_order_payment']);
const DELIVERED: ReadonlySet<string> = new Set(['exchange_delivered_order_items', 'return_delivered_order_items']);
const ORDER_WRITES: ReadonlySet<string> = new Set([...PENDING_ONLY, ...PENDING_ANY, ...DELIVERED]);
const NEW_ADDRESSES = [
  { address1: '41 Harbor View Lane', address2: 'Apt 3B', city: 'Portland', state: 'OR', country: 'USA', zip: '97205' },
  { address1: '1180 Maple Avenue', address2: 'Unit 12', city: 'Columbus', state: 'OH', country: 'USA', zip: '43215' },
  { address1: '77 Cedar Court', address2: 'Suite 400', city: 'Tucson', state: 'AZ', country: 'USA', zip: '85701' },
];

/** What a retail walk remembers besides its entities: the subject as the initial database has them. */
export interface RetailWalkState {
  user: User;
}

type RetailWalk = Walk<RetailDb, Order, RetailWalkState>;

/**
 * Writes after which the policy allows no other write on the order: cancelled, returned or exchanged orders are done,
 * and after modifying items "the agent will not be able to modify or cancel the order anymore".
 */
const CLOSING: ReadonlySet<string> = new Set([...PENDING_ONLY, ...DELIVERED]);

/** τ²'s own preconditions (an order whose address or payment changed is still "pending"). */
function fits(tool: string, o: Order): boolean {
  if (PENDING_ONLY.has(tool)) return o.status === 'pending';
  if (tool === 'modify_pending_order_payment')
    return isPending(o) && o.payment_history.length === 1 && o.payment_history[0].transaction_type === 'payment';
  if (tool === 'modify_pending_order_address') return isPending(o);
  if (DELIVERED.has(tool)) return o.status === 'delivered';
  return true;
}

function liveUser(w: RetailWalk): User {
  const r = w.ctx.env.call('get_user_details', { user_id: w.subject });
  return r.ok ? (r.result as User) : w.state.user;
}

/** Items of the order with another available variant of the same product, and that variant. */
function swaps(w: RetailWalk, o: Order): { item: OrderItem; newId: string }[] {
  const out: { item: OrderItem; newId: string }[] = [];
  for (const item of o.items) {
    const p: Product | undefined = w.ctx.base.products[item.product_id];
    const alt = Object.values(p?.variants ?? {}).filter((v) => v.available && v.item_id !== item.item_id);
    if (alt.length) out.push({ item, newId: alt[w.ctx.rng.int(alt.length)].item_id });
  }
  return out;
}

/** The user's payment methods that can pay `amount` (the order's original one first), by id. */
function methods(w: RetailWalk, o: Order, amount: number, exclude?: string): string[] {
  const original = o.payment_history[0]?.payment_method_id;
  const all = Object.values(w.state.user.payment_methods)
    .filter((m) => m.source !== 'gift_card' || m.balance >= amount)
    .map((m) => m.id)
    .filter((id) => id !== exclude)
    .sort();
  return [...all.filter((id) => id === original), ...all.filter((id) => id !== original)];
}

function candidates(w: RetailWalk, tool: string, index: number): ToolArgs[] {
  const { rng } = w.ctx;
  const u = liveUser(w);
  switch (tool) {
    case 'find_user_id_by_email':
      return [{ email: u.email }];
    case 'find_user_id_by_name_zip':
      return [{ first_name: u.name.first_name, last_name: u.name.last_name, zip: u.address.zip }];
    case 'get_user_details':
      return [{ user_id: w.subject }];
    case 'list_all_product_types':
      return [{}];
    case 'get_product_details':
    case 'get_item_details': {
      const o = w.entity(w.focus ?? w.state.user.orders[0]);
      if (!o) throw new Unfit(tool, index, 'no order to read items from');
      const item = o.items[rng.int(o.items.length)];
      return [tool === 'get_product_details' ? { product_id: item.product_id } : { item_id: item.item_id }];
    }
    case 'calculate': {
      const o = w.focus ? w.entity(w.focus) : undefined;
      const prices = (o?.items ?? []).map((i) => i.price);
      return [{ expression: prices.length ? prices.join(' + ') : '100 - 20' }];
    }
    case 'cancel_pending_order': {
      const o = w.target(tool, index);
      return [{ order_id: o.order_id, reason: CANCEL_REASONS[1 - rng.int(2)] }];
    }
    case 'modify_pending_order_address':
    case 'modify_user_address': {
      const a = NEW_ADDRESSES[rng.int(NEW_ADDRESSES.length)];
      if (tool === 'modify_user_address') return [{ user_id: w.subject, ...a }];
      return [{ order_id: w.target(tool, index).order_id, ...a }];
    }
    case 'modify_pending_order_payment': {
      const o = w.target(tool, index);
      const current = o.payment_history[0].payment_method_id;
      const ms = methods(w, o, o.payment_history[0].amount, current);
      if (!ms.length) throw new Unfit(tool, index, `user ${w.subject} has no other payment method`);
      return ms.map((m) => ({ order_id: o.order_id, payment_method_id: m }));
    }
    case 'modify_pending_order_items':
    case 'exchange_delivered_order_items': {
      const o = w.target(tool, index);
      const picked = swaps(w, o).slice(0, 1 + rng.int(2));
      if (!picked.length) throw new Unfit(tool, index, `order ${o.order_id} has no item with another variant`);
      const ids = picked.map((s) => s.item.item_id);
      const newIds = picked.map((s) => s.newId);
      return methods(w, o, 10_000).map((m) => ({
        order_id: o.order_id,
        item_ids: ids,
        new_item_ids: newIds,
        payment_method_id: m,
      }));
    }
    case 'return_delivered_order_items': {
      const o = w.target(tool, index);
      const items = o.items.slice(0, 1 + rng.int(o.items.length)).map((i) => i.item_id);
      return [{ order_id: o.order_id, item_ids: items, payment_method_id: o.payment_history[0].payment_method_id }];
    }
    case 'transfer_to_human_agents':
      return [{ summary: `User ${w.subject} needs help beyond what the policy allows an agent to do; transferring.` }];
    default:
      throw new Unfit(tool, index, 'no instantiation rule for this tool');
  }
}

const addressText = (a: ToolArgs) => `${a.address1}, ${a.address2}, ${a.city}, ${a.state} ${a.zip}, ${a.country}`;

function accept(w: RetailWalk, tool: string, args: ToolArgs, result: unknown): CallNote | undefined {
  if (ORDER_WRITES.has(tool)) w.mark(args.order_id, tool);
  switch (tool) {
    case 'get_order_details':
      return {
        intent: `You want to know the status of your order ${args.order_id}.`,
        // "pending (item modified)" is said as "pending…" by an agent as often as verbatim: the part every wording has.
        tell: String((result as Order).status).replace(/ \(item modified\)$/, ''),
      };
    case 'get_product_details':
      return { intent: `You want to hear which variants of the ${(result as Product).name} exist.` };
    case 'get_item_details':
      return { intent: `You want to know whether item ${args.item_id} is still available and what it costs.` };
    case 'calculate':
      return { intent: 'You want the total of the items of that order, as one number.', tell: spoken(String(result)) };
    case 'list_all_product_types':
      return { intent: 'You want to know what kinds of products the store sells.' };
    case 'cancel_pending_order':
      return {
        intent: `You want to cancel order ${args.order_id}; the reason: ${args.reason}.`,
        purpose: 'cancellation',
      };
    case 'modify_pending_order_address':
      return {
        intent: `You want order ${args.order_id} shipped to ${addressText(args)}.`,
        purpose: 'order address change',
      };
    case 'modify_user_address':
      return {
        intent: `You moved: your default address is now ${addressText(args)}.`,
        purpose: 'profile address change',
      };
    case 'modify_pending_order_payment':
      return {
        intent: `You want order ${args.order_id} paid with ${args.payment_method_id} instead.`,
        purpose: 'payment change',
      };
    case 'modify_pending_order_items':
    case 'exchange_delivered_order_items': {
      const modify = tool === 'modify_pending_order_items';
      const pairs = args.item_ids
        .map((id: string, k: number) => `item ${id} for item ${args.new_item_ids[k]}`)
        .join(' and ');
      return {
        intent: `In order ${args.order_id} you want to ${modify ? 'change' : 'exchange'} ${pairs}; any difference is settled with ${args.payment_method_id}.`,
        purpose: modify ? 'item modification' : 'exchange',
      };
    }
    case 'return_delivered_order_items':
      return {
        intent: `You want to return items ${args.item_ids.join(', ')} of order ${args.order_id}, refunded to ${args.payment_method_id}.`,
        purpose: 'return',
      };
    case 'transfer_to_human_agents':
      return { intent: 'If the agent cannot help, you want to be transferred to a human agent.', purpose: 'hand-off' };
  }
  return undefined;
}

const countOf = (sequence: string[], tools: ReadonlySet<string>) => sequence.filter((t) => tools.has(t)).length;

/**
 * Retail: a user is a subject. Only users with enough pending and delivered orders for the sequence's writes, and a
 * second payment method when it changes an order's payment, are tried.
 */
export const retailWalk: WalkRules<RetailDb, Order, RetailWalkState> = {
  writes: ORDER_WRITES,
  impossible(base, sequence) {
    // Each delivered-order write turns its order into "exchange/return requested": one order per such write.
    const deliv = countOf(sequence, DELIVERED);
    const most = Math.max(
      0,
      ...Object.values(base.users).map((u) => u.orders.filter((id) => base.orders[id]?.status === 'delivered').length),
    );
    return deliv > most
      ? `${deliv} delivered-order writes, but no user has more than ${most} delivered orders`
      : undefined;
  },
  subjects(base, sequence, rng) {
    const pend = countOf(sequence, PENDING_ONLY);
    const anyPend = sequence.filter((t) => t === 'modify_pending_order_payment').length;
    const deliv = countOf(sequence, DELIVERED);
    const ok = Object.values(base.users)
      .filter((u) => {
        const os = u.orders.map((id) => base.orders[id]).filter(Boolean);
        return (
          os.filter((o) => o.status === 'pending').length >= pend + anyPend &&
          os.filter((o) => o.status === 'delivered').length >= deliv &&
          (anyPend === 0 || Object.keys(u.payment_methods).length >= 2)
        );
      })
      .map((u) => u.user_id);
    return rng.shuffle(ok.sort());
  },
  start: (ctx, subject) => ({ user: ctx.base.users[subject] }),
  // The orders of the initial database: τ² retail creates none.
  ids: (w) => w.state.user.orders,
  fits: (tool, o, done) => fits(tool, o) && ![...done].some((t) => CLOSING.has(t)),
  // Cancel and item changes go first to an order no earlier write touched: spreads the writes over orders.
  prefers: (tool, o, done) =>
    fits(tool, o) && ![...done].some((t) => CLOSING.has(t)) && !(PENDING_ONLY.has(tool) && done.size > 0),
  candidates,
  accept,
  finish(w) {
    const n = w.ctx.notes;
    const { user } = w.state;
    n.known.unshift(
      `Your name is ${user.name.first_name} ${user.name.last_name}.`,
      `Your email is ${user.email} and your zip code is ${user.address.zip}.`,
    );
    if (!w.ctx.sequence.some((t) => t.startsWith('find_user_id'))) n.known.push(`Your user id is ${w.subject}.`);
    const written = w.touchedIds();
    if (!w.ctx.sequence.includes('get_user_details') && written.length)
      n.known.push(`Your order ids: ${written.join(', ')}.`);
    else n.unknown.push('You do not remember your order ids.');
  },
};
