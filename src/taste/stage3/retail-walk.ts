import { type DomainInstantiator, type DomainWalk, Unfit, type WalkContext } from './types.js';

const PENDING_ONLY = new Set(['cancel_pending_order', 'modify_pending_order_items']);
const PENDING_ANY = new Set(['modify_pending_order_address', 'modify_pending_order_payment']);
const DELIVERED = new Set(['exchange_delivered_order_items', 'return_delivered_order_items']);
const ORDER_WRITES = new Set([...PENDING_ONLY, ...PENDING_ANY, ...DELIVERED]);
const NEW_ADDRESSES = [
  { address1: '41 Harbor View Lane', address2: 'Apt 3B', city: 'Portland', state: 'OR', country: 'USA', zip: '97205' },
  { address1: '1180 Maple Avenue', address2: 'Unit 12', city: 'Columbus', state: 'OH', country: 'USA', zip: '43215' },
  { address1: '77 Cedar Court', address2: 'Suite 400', city: 'Tucson', state: 'AZ', country: 'USA', zip: '85701' },
];

const isPending = (o: any) => typeof o.status === 'string' && o.status.includes('pending');

class RetailWalk implements DomainWalk {
  private user: any;
  private focus: string | undefined;
  private looked = new Set<string>();
  private written = new Set<string>();

  constructor(
    private ctx: WalkContext,
    private userId: string,
  ) {
    this.user = ctx.base.users[userId];
  }

  private order(id: string): any {
    const r = this.ctx.env.call('get_order_details', { order_id: id });
    return r.ok ? r.result : undefined;
  }

  private liveUser(): any {
    const r = this.ctx.env.call('get_user_details', { user_id: this.userId });
    return r.ok ? r.result : this.user;
  }

  /** `fits`, and for cancel / item changes an order no earlier call of the walk wrote to: spreads the writes. */
  private fresh(tool: string, o: any): boolean {
    return this.fits(tool, o) && !(PENDING_ONLY.has(tool) && this.written.has(o.order_id));
  }

  /** τ²'s own preconditions (an order whose address or payment changed is still "pending"). */
  private fits(tool: string, o: any): boolean {
    if (PENDING_ONLY.has(tool)) return o.status === 'pending';
    if (tool === 'modify_pending_order_payment')
      return isPending(o) && o.payment_history.length === 1 && o.payment_history[0].transaction_type === 'payment';
    if (tool === 'modify_pending_order_address') return isPending(o);
    if (DELIVERED.has(tool)) return o.status === 'delivered';
    return true;
  }

  private nextWrite(index: number): string | undefined {
    return this.ctx.sequence.slice(index + 1).find((t) => ORDER_WRITES.has(t));
  }

  private target(tool: string, index: number): any {
    if (this.focus) {
      const o = this.order(this.focus);
      if (o && this.fresh(tool, o)) return o;
    }
    // A fresh order first; else one an earlier write left open to this one (τ² allows it).
    const all = this.user.orders.map((id: string) => this.order(id)).filter((o: any) => o && this.fits(tool, o));
    const pick = all.find((o: any) => !this.written.has(o.order_id)) ?? all[0];
    if (!pick) throw new Unfit(tool, index, `user ${this.userId} has no order that ${tool} may act on`);
    return pick;
  }

  /** Items of the order with another available variant of the same product, and that variant. */
  private swaps(o: any): { item: any; newId: string }[] {
    const out: { item: any; newId: string }[] = [];
    for (const item of o.items) {
      const p = this.ctx.base.products[item.product_id];
      const alt = Object.values<any>(p?.variants ?? {}).filter((v) => v.available && v.item_id !== item.item_id);
      if (alt.length) out.push({ item, newId: alt[this.ctx.rng.int(alt.length)].item_id });
    }
    return out;
  }

  private methods(o: any, amount: number, exclude?: string): string[] {
    const original = o.payment_history[0]?.payment_method_id;
    const all = Object.values<any>(this.user.payment_methods)
      .filter((m) => m.source !== 'gift_card' || m.balance >= amount)
      .map((m) => m.id as string)
      .filter((id) => id !== exclude)
      .sort();
    return [...all.filter((id) => id === original), ...all.filter((id) => id !== original)];
  }

  candidates(index: number): Record<string, any>[] {
    const tool = this.ctx.sequence[index];
    const u = this.liveUser();
    switch (tool) {
      case 'find_user_id_by_email':
        return [{ email: u.email }];
      case 'find_user_id_by_name_zip':
        return [{ first_name: u.name.first_name, last_name: u.name.last_name, zip: u.address.zip }];
      case 'get_user_details':
        return [{ user_id: this.userId }];
      case 'list_all_product_types':
        return [{}];
      case 'get_order_details': {
        const write = this.nextWrite(index);
        const os = this.user.orders.map((id: string) => this.order(id)).filter(Boolean);
        const unseen = os.filter((o: any) => !this.looked.has(o.order_id));
        const order = [
          ...unseen.filter((o: any) => !write || this.fresh(write, o)),
          ...unseen,
          ...os.filter((o: any) => !write || this.fresh(write, o)),
          ...os,
        ];
        if (!order.length) throw new Unfit(tool, index, `user ${this.userId} has no order`);
        return [{ order_id: order[0].order_id }];
      }
      case 'get_product_details':
      case 'get_item_details': {
        const o = this.order(this.focus ?? this.user.orders[0]);
        if (!o) throw new Unfit(tool, index, 'no order to read items from');
        const item = o.items[this.ctx.rng.int(o.items.length)];
        return [tool === 'get_product_details' ? { product_id: item.product_id } : { item_id: item.item_id }];
      }
      case 'calculate': {
        const o = this.focus ? this.order(this.focus) : undefined;
        const prices = (o?.items ?? []).map((i: any) => i.price);
        return [{ expression: prices.length ? prices.join(' + ') : '100 - 20' }];
      }
      case 'cancel_pending_order': {
        const o = this.target(tool, index);
        return [{ order_id: o.order_id, reason: this.ctx.rng.int(2) ? 'no longer needed' : 'ordered by mistake' }];
      }
      case 'modify_pending_order_address':
      case 'modify_user_address': {
        const a = NEW_ADDRESSES[this.ctx.rng.int(NEW_ADDRESSES.length)];
        if (tool === 'modify_user_address') return [{ user_id: this.userId, ...a }];
        return [{ order_id: this.target(tool, index).order_id, ...a }];
      }
      case 'modify_pending_order_payment': {
        const o = this.target(tool, index);
        const current = o.payment_history[0].payment_method_id;
        const ms = this.methods(o, o.payment_history[0].amount, current);
        if (!ms.length) throw new Unfit(tool, index, `user ${this.userId} has no other payment method`);
        return ms.map((m) => ({ order_id: o.order_id, payment_method_id: m }));
      }
      case 'modify_pending_order_items':
      case 'exchange_delivered_order_items': {
        const o = this.target(tool, index);
        const swaps = this.swaps(o).slice(0, 1 + this.ctx.rng.int(2));
        if (!swaps.length) throw new Unfit(tool, index, `order ${o.order_id} has no item with another variant`);
        const ids = swaps.map((s) => s.item.item_id);
        const newIds = swaps.map((s) => s.newId);
        return this.methods(o, 10_000).map((m) => ({
          order_id: o.order_id,
          item_ids: ids,
          new_item_ids: newIds,
          payment_method_id: m,
        }));
      }
      case 'return_delivered_order_items': {
        const o = this.target(tool, index);
        const items = o.items.slice(0, 1 + this.ctx.rng.int(o.items.length)).map((i: any) => i.item_id);
        return [{ order_id: o.order_id, item_ids: items, payment_method_id: o.payment_history[0].payment_method_id }];
      }
      case 'transfer_to_human_agents':
        return [
          { summary: `User ${this.userId} needs help beyond what the policy allows an agent to do; transferring.` },
        ];
      default:
        throw new Unfit(tool, index, 'no instantiation rule for this tool');
    }
  }

  accept(index: number, args: Record<string, any>, result: any): void {
    const tool = this.ctx.sequence[index];
    const n = this.ctx.notes;
    const write = (id: string) => {
      this.written.add(id);
      this.focus = id;
    };
    const addr = (a: any) => `${a.address1}, ${a.address2}, ${a.city}, ${a.state} ${a.zip}, ${a.country}`;
    switch (tool) {
      case 'get_order_details':
        this.looked.add(args.order_id);
        this.focus = args.order_id;
        n.intents.push(`You want to know the status of your order ${args.order_id}.`);
        n.communicate.push(String(result.status));
        break;
      case 'get_product_details':
        n.intents.push(`You want to hear which variants of the ${result.name} exist.`);
        break;
      case 'get_item_details':
        n.intents.push(`You want to know whether item ${args.item_id} is still available and what it costs.`);
        break;
      case 'calculate':
        n.intents.push('You want the total of the items of that order, as one number.');
        n.communicate.push(String(result));
        break;
      case 'list_all_product_types':
        n.intents.push('You want to know what kinds of products the store sells.');
        break;
      case 'cancel_pending_order':
        write(args.order_id);
        n.intents.push(`You want to cancel order ${args.order_id}; the reason: ${args.reason}.`);
        n.purpose.push('cancellation');
        break;
      case 'modify_pending_order_address':
        write(args.order_id);
        n.intents.push(`You want order ${args.order_id} shipped to ${addr(args)}.`);
        n.purpose.push('order address change');
        break;
      case 'modify_user_address':
        n.intents.push(`You moved: your default address is now ${addr(args)}.`);
        n.purpose.push('profile address change');
        break;
      case 'modify_pending_order_payment':
        write(args.order_id);
        n.intents.push(`You want order ${args.order_id} paid with ${args.payment_method_id} instead.`);
        n.purpose.push('payment change');
        break;
      case 'modify_pending_order_items':
      case 'exchange_delivered_order_items': {
        write(args.order_id);
        const verb = tool === 'modify_pending_order_items' ? 'change' : 'exchange';
        const pairs = args.item_ids
          .map((id: string, k: number) => `item ${id} for item ${args.new_item_ids[k]}`)
          .join(' and ');
        n.intents.push(
          `In order ${args.order_id} you want to ${verb} ${pairs}; any difference is settled with ${args.payment_method_id}.`,
        );
        n.purpose.push(tool === 'modify_pending_order_items' ? 'item modification' : 'exchange');
        break;
      }
      case 'return_delivered_order_items':
        write(args.order_id);
        n.intents.push(
          `You want to return items ${args.item_ids.join(', ')} of order ${args.order_id}, refunded to ${args.payment_method_id}.`,
        );
        n.purpose.push('return');
        break;
      case 'transfer_to_human_agents':
        n.intents.push('If the agent cannot help, you want to be transferred to a human agent.');
        n.purpose.push('hand-off');
        break;
    }
  }

  finish(): void {
    const n = this.ctx.notes;
    const u = this.user;
    n.known.unshift(
      `Your name is ${u.name.first_name} ${u.name.last_name}.`,
      `Your email is ${u.email} and your zip code is ${u.address.zip}.`,
    );
    if (!this.ctx.sequence.some((t) => t.startsWith('find_user_id'))) n.known.push(`Your user id is ${this.userId}.`);
    if (!this.ctx.sequence.includes('get_user_details') && this.written.size)
      n.known.push(`Your order ids: ${[...this.written].join(', ')}.`);
    else n.unknown.push('You do not remember your order ids.');
  }
}

/**
 * Retail: a user is a subject. Only users with enough pending and delivered orders for the sequence's writes, and a
 * second payment method when it changes an order's payment, are tried.
 */
export const retailInstantiator: DomainInstantiator = {
  impossible(base, sequence) {
    // Each delivered-order write turns its order into "exchange/return requested": one order per such write.
    const deliv = sequence.filter((t) => DELIVERED.has(t)).length;
    const most = Math.max(
      0,
      ...Object.values<any>(base.users).map(
        (u) => u.orders.filter((id: string) => base.orders[id]?.status === 'delivered').length,
      ),
    );
    return deliv > most
      ? `${deliv} delivered-order writes, but no user has more than ${most} delivered orders`
      : undefined;
  },
  subjects(base, sequence, rng) {
    const pend = sequence.filter((t) => PENDING_ONLY.has(t)).length;
    const anyPend = sequence.filter((t) => t === 'modify_pending_order_payment').length;
    const deliv = sequence.filter((t) => DELIVERED.has(t)).length;
    const ok = Object.values<any>(base.users)
      .filter((u) => {
        const os = u.orders.map((id: string) => base.orders[id]).filter(Boolean);
        return (
          os.filter((o: any) => o.status === 'pending').length >= pend + anyPend &&
          os.filter((o: any) => o.status === 'delivered').length >= deliv &&
          (anyPend === 0 || Object.keys(u.payment_methods).length >= 2)
        );
      })
      .map((u) => u.user_id as string);
    return rng.shuffle(ok.sort());
  },
  begin: (ctx, subject) => new RetailWalk(ctx, subject),
};
