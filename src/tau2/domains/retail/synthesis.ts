import type { Synthesis } from '../kit.js';
import type { Order, RetailDb } from './db.js';
import { type RetailWalkState, retailWalk } from './walk.js';

/** TASTE stage 3 on retail: orders are the entities; a decoy is the same order with one item in a sibling variant. */
export const retailSynthesis: Synthesis<RetailDb, Order, RetailWalkState> = {
  entity: { kind: 'order', table: 'orders', idArg: 'order_id', lookup: 'get_order_details' },
  walk: retailWalk,
  opener: 'You are contacting the online store about your orders.',
  references(db, args, need) {
    const order = typeof args.order_id === 'string' ? db.orders[args.order_id] : undefined;
    if (typeof args.order_id === 'string') need(order !== undefined, `order ${args.order_id}`);
    if (typeof args.product_id === 'string')
      need(Object.hasOwn(db.products, args.product_id), `product ${args.product_id}`);
    const variantExists = (id: string) => Object.values(db.products).some((p) => Object.hasOwn(p.variants, id));
    if (typeof args.item_id === 'string') need(variantExists(args.item_id), `item ${args.item_id}`);
    for (const id of Array.isArray(args.item_ids) ? args.item_ids : [])
      need(!!order?.items.some((i) => i.item_id === id), `item ${id} in order ${args.order_id}`);
    for (const id of Array.isArray(args.new_item_ids) ? args.new_item_ids : []) need(variantExists(id), `item ${id}`);
    if (typeof args.payment_method_id === 'string') {
      const owner = args.user_id ?? order?.user_id;
      need(
        Object.hasOwn(db.users[owner]?.payment_methods ?? {}, args.payment_method_id),
        `payment method ${args.payment_method_id}`,
      );
    }
  },
  decoys: {
    newId: (rng) => `#W${String(1_000_000 + rng.int(9_000_000))}`,
    twin(base, o, id, _rng, named) {
      const twin = structuredClone(o);
      twin.order_id = id;
      let how = 'same items';
      for (const item of twin.items) {
        const sibling = Object.values(base.products[item.product_id]?.variants ?? {}).find(
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
      for (const f of twin.fulfillments ?? []) f.item_ids = twin.items.map((i) => i.item_id);
      return { record: twin, how };
    },
  },
};
