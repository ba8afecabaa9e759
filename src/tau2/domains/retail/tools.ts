import { type DomainTools, defineTools, type ToolDef, ToolState, tool } from '../../environment/toolkit.js';
import { abs, attr, contains, count, index, iterate, len, lower, round, sorted } from '../../py/builtins.js';
import { PyException, pyValueError } from '../../py/errors.js';
import { pyJsonDumps } from '../../py/json.js';
import { make } from '../../py/model.js';
import { arith, assertHashable, compare, dictKey, eq, iadd, isub, truthy } from '../../py/ops.js';
import { str } from '../../py/repr.js';
import { PyModel, type PyValue } from '../../py/values.js';
import { calculateTool } from '../calculate.js';
import { CANCEL_REASONS } from './facts.js';
import { GiftCard, OrderPayment, RetailDB, UserAddress } from './models.js';

/** `RetailTools` (tau2/domains/retail/tools.py), ported line by line over the Python world of `../py/`. */
export class RetailTools extends ToolState {
  private record(table: string, key: PyValue, missing: string, write: boolean): PyModel {
    const t = this.dbs.table(table);
    if (!contains(t, key)) throw pyValueError(missing);
    const k = dictKey(key) as string;
    return write ? this.dbs.own(table, k) : (t.get(k) as PyModel);
  }

  /** `_get_order`; `write` when the tool may change it (then it is this environment's copy). */
  order(orderId: PyValue, write = false): PyModel {
    return this.record('orders', orderId, 'Order not found', write);
  }

  user(userId: PyValue, write = false): PyModel {
    return this.record('users', userId, 'User not found', write);
  }

  product(productId: PyValue): PyModel {
    return this.record('products', productId, 'Product not found', false);
  }

  /** `_get_item`: the first product (in database order) with a variant of that id. */
  item(itemId: PyValue): PyModel {
    for (const p of this.dbs.table('products').values() as Iterable<PyModel>) {
      const variants = p.get('variants') as Map<string, PyValue>;
      if (contains(variants, itemId)) return variants.get(dictKey(itemId) as string) as PyModel;
    }
    throw pyValueError('Item not found');
  }

  variant(productId: PyValue, variantId: PyValue): PyModel {
    const variants = this.product(productId).get('variants') as Map<string, PyValue>;
    if (!contains(variants, variantId)) throw pyValueError('Variant not found');
    return variants.get(dictKey(variantId) as string) as PyModel;
  }

  paymentMethod(userId: PyValue, paymentMethodId: PyValue, write = false): PyModel {
    const methods = this.user(userId, write).get('payment_methods') as Map<string, PyValue>;
    if (!contains(methods, paymentMethodId)) throw pyValueError('Payment method not found');
    return methods.get(dictKey(paymentMethodId) as string) as PyModel;
  }
}

type Tool = ToolDef<RetailTools>;
const isGiftCard = (m: PyValue) => m instanceof PyModel && m.cls === GiftCard;
const isPending = (o: PyModel) => contains(o.get('status'), 'pending');
const lt = (a: PyValue, b: PyValue) => compare(a, b, '<');
const gt = (a: PyValue, b: PyValue) => compare(a, b, '>');

/** `next((item for item in order.items if item.item_id == item_id), None)`. */
const findItem = (order: PyModel, itemId: PyValue) =>
  iterate(order.get('items')).find((i) => eq(attr(i, 'item_id'), itemId)) as PyModel | undefined;

/** The item-count check exchange, modify and return share: no id named more often than the order holds it. */
function checkCounts(order: PyModel, itemIds: PyValue, message: (id: PyValue) => string): void {
  const all = iterate(order.get('items')).map((i) => attr(i, 'item_id'));
  for (const id of iterate(itemIds)) if (gt(count(itemIds, id), count(all, id))) throw pyValueError(message(id));
}

/** `payment_method.balance = round(payment_method.balance ± amount, 2)`. */
function settleGiftCard(m: PyModel, amount: PyValue, op: '+' | '-'): void {
  m.set('balance', op === '+' ? iadd(m.get('balance'), amount) : isub(m.get('balance'), amount));
  m.set('balance', round(m.get('balance'), 2));
}

function address(a: ReadonlyMap<string, PyValue>) {
  return make(UserAddress, {
    address1: a.get('address1') as PyValue,
    address2: a.get('address2') as PyValue,
    city: a.get('city') as PyValue,
    state: a.get('state') as PyValue,
    country: a.get('country') as PyValue,
    zip: a.get('zip') as PyValue,
  });
}

const cancelPendingOrder: Tool = tool('write', ['order_id', 'reason'], (self, a) => {
  const order = self.order(a.get('order_id') as PyValue, true);
  if (!eq(order.get('status'), 'pending')) throw pyValueError('Non-pending order cannot be cancelled');
  const reason = a.get('reason') as PyValue;
  assertHashable(reason);
  if (!CANCEL_REASONS.some((r) => eq(reason, r))) throw pyValueError('Invalid reason');
  const refunds: PyValue[] = [];
  for (const payment of iterate(order.get('payment_history'))) {
    const paymentId = attr(payment, 'payment_method_id');
    refunds.push(
      make(OrderPayment, { transaction_type: 'refund', amount: attr(payment, 'amount'), payment_method_id: paymentId }),
    );
    const user = self.user(order.get('user_id'), true);
    const method = self.paymentMethod(user.get('user_id'), paymentId, true);
    if (isGiftCard(method)) settleGiftCard(method, attr(payment, 'amount'), '+');
  }
  order.set('status', 'cancelled');
  order.set('cancel_reason', reason);
  (order.get('payment_history') as PyValue[]).push(...refunds);
  return order;
});

const exchangeDeliveredItems: Tool = tool(
  'write',
  ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  (self, a) => {
    const order = self.order(a.get('order_id') as PyValue, true);
    if (!eq(order.get('status'), 'delivered')) throw pyValueError('Non-delivered order cannot be exchanged');
    const itemIds = a.get('item_ids') as PyValue;
    const newItemIds = a.get('new_item_ids') as PyValue;
    checkCounts(order, itemIds, (id) => `Number of ${str(id)} not found.`);
    if (len(itemIds) !== len(newItemIds)) throw pyValueError('The number of items to be exchanged should match.');
    let diff: PyValue = 0;
    const news = iterate(newItemIds);
    iterate(itemIds).forEach((itemId, k) => {
      const item = findItem(order, itemId);
      if (item === undefined) throw pyValueError(`Item ${str(itemId)} not found`);
      const variant = self.variant(item.get('product_id'), news[k]);
      if (!truthy(variant.get('available'))) throw pyValueError(`New item ${str(news[k])} not found or available`);
      diff = iadd(diff, arith(variant.get('price'), item.get('price'), '-'));
    });
    diff = round(diff, 2);
    const method = self.paymentMethod(order.get('user_id'), a.get('payment_method_id') as PyValue);
    if (isGiftCard(method) && lt(method.get('balance'), diff))
      throw pyValueError('Insufficient gift card balance to pay for the price difference');
    order.set('status', 'exchange requested');
    order.set('exchange_items', sorted(itemIds));
    order.set('exchange_new_items', sorted(newItemIds));
    order.set('exchange_payment_method_id', a.get('payment_method_id') as PyValue);
    order.set('exchange_price_difference', diff);
    return order;
  },
);

const modifyPendingItems: Tool = tool(
  'write',
  ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  (self, a) => {
    const order = self.order(a.get('order_id') as PyValue, true);
    if (!eq(order.get('status'), 'pending')) throw pyValueError('Non-pending order cannot be modified');
    const itemIds = a.get('item_ids') as PyValue;
    const newItemIds = a.get('new_item_ids') as PyValue;
    const paymentMethodId = a.get('payment_method_id') as PyValue;
    checkCounts(order, itemIds, (id) => `${str(id)} not found`);
    if (len(itemIds) !== len(newItemIds)) throw pyValueError('The number of items to be exchanged should match');
    let diff: PyValue = 0;
    let variant: PyModel | undefined;
    const variants: PyModel[] = [];
    const olds = iterate(itemIds);
    const news = iterate(newItemIds).slice(0, olds.length);
    olds.slice(0, news.length).forEach((itemId, k) => {
      if (eq(itemId, news[k])) throw pyValueError('The new item id should be different from the old item id');
      const item = findItem(order, itemId);
      if (item === undefined) throw pyValueError(`Item ${str(itemId)} not found`);
      variant = self.variant(item.get('product_id'), news[k]);
      if (!truthy(variant.get('available'))) throw pyValueError(`New item ${str(news[k])} not found or available`);
      variants.push(variant);
      diff = iadd(diff, arith(variant.get('price'), item.get('price'), '-'));
    });
    const method = self.paymentMethod(order.get('user_id'), paymentMethodId, true);
    if (isGiftCard(method) && lt(method.get('balance'), diff))
      throw pyValueError('Insufficient gift card balance to pay for the new item');
    (order.get('payment_history') as PyValue[]).push(
      make(OrderPayment, {
        transaction_type: gt(diff, 0) ? 'payment' : 'refund',
        amount: abs(diff),
        payment_method_id: paymentMethodId,
      }),
    );
    if (isGiftCard(method)) settleGiftCard(method, diff, '-');
    // τ² 1.0.1 gives every modified item the price and options of the last new variant (its loop variable);
    // τ-bench gave each item its own, which only the named opt-in semantics does.
    const perItem = self.ctx.semantics === 'tau2@1.0.1+tau-bench-item-modify';
    olds.slice(0, news.length).forEach((itemId, k) => {
      const item = findItem(order, itemId);
      if (item === undefined) throw pyValueError(`Item ${str(itemId)} not found`);
      const v = perItem ? variants[k] : variant;
      item.set('item_id', news[k]);
      if (v === undefined)
        throw new PyException(
          'UnboundLocalError',
          "cannot access local variable 'variant' where it is not associated with a value",
        );
      item.set('price', v.get('price'));
      item.set('options', v.get('options'));
    });
    order.set('status', 'pending (item modified)');
    return order;
  },
);

const modifyPendingPayment: Tool = tool('write', ['order_id', 'payment_method_id'], (self, a) => {
  const order = self.order(a.get('order_id') as PyValue, true);
  if (!isPending(order)) throw pyValueError('Non-pending order cannot be modified');
  const paymentMethodId = a.get('payment_method_id') as PyValue;
  const method = self.paymentMethod(order.get('user_id'), paymentMethodId, true);
  const history = order.get('payment_history') as PyValue[];
  const first = () => index(history, 0);
  if (len(history) !== 1 || !eq(attr(first(), 'transaction_type'), 'payment'))
    throw pyValueError('There should be exactly one payment for a pending order');
  if (eq(attr(first(), 'payment_method_id'), paymentMethodId))
    throw pyValueError('The new payment method should be different from the current one');
  const amount = attr(first(), 'amount');
  if (isGiftCard(method) && lt(method.get('balance'), amount))
    throw pyValueError('Insufficient gift card balance to pay for the order');
  const added = [
    make(OrderPayment, { transaction_type: 'payment', amount, payment_method_id: paymentMethodId }),
    make(OrderPayment, { transaction_type: 'refund', amount, payment_method_id: attr(first(), 'payment_method_id') }),
  ];
  history.push(...added);
  if (isGiftCard(method)) settleGiftCard(method, amount, '-');
  const old = self.paymentMethod(order.get('user_id'), attr(first(), 'payment_method_id'), true);
  if (isGiftCard(old)) settleGiftCard(old, amount, '+');
  return order;
});

const returnDeliveredItems: Tool = tool('write', ['order_id', 'item_ids', 'payment_method_id'], (self, a) => {
  const order = self.order(a.get('order_id') as PyValue, true);
  if (!eq(order.get('status'), 'delivered')) throw pyValueError('Non-delivered order cannot be returned');
  const user = self.user(order.get('user_id'));
  const paymentMethodId = a.get('payment_method_id') as PyValue;
  const method = self.paymentMethod(user.get('user_id'), paymentMethodId);
  if (!isGiftCard(method) && !eq(paymentMethodId, attr(index(order.get('payment_history'), 0), 'payment_method_id')))
    throw pyValueError('Payment method should be the original payment method');
  const itemIds = a.get('item_ids') as PyValue;
  checkCounts(order, itemIds, () => 'Some item not found');
  order.set('status', 'return requested');
  order.set('return_items', sorted(itemIds));
  order.set('return_payment_method_id', paymentMethodId);
  return order;
});

/** `for user_id, user in self.db.users.items()`: the first user (in database order) `match` accepts. */
function findUser(self: RetailTools, match: (user: PyModel) => boolean): string {
  for (const [id, user] of self.dbs.table('users') as Map<string, PyModel>) if (match(user)) return id;
  throw pyValueError('User not found');
}

/** `RetailTools`' tools, named as in tools.json. */
export const retailTools: Readonly<Record<string, Tool>> = {
  calculate: calculateTool(),
  cancel_pending_order: cancelPendingOrder,
  exchange_delivered_order_items: exchangeDeliveredItems,
  find_user_id_by_name_zip: tool('read', ['first_name', 'last_name', 'zip'], (self, a) =>
    findUser(self, (u) => {
      const name = u.get('name') as PyModel;
      return (
        lower(name.get('first_name')) === lower(a.get('first_name') as PyValue) &&
        lower(name.get('last_name')) === lower(a.get('last_name') as PyValue) &&
        eq((u.get('address') as PyModel).get('zip'), a.get('zip') as PyValue)
      );
    }),
  ),
  find_user_id_by_email: tool('read', ['email'], (self, a) =>
    findUser(self, (u) => lower(u.get('email')) === lower(a.get('email') as PyValue)),
  ),
  get_order_details: tool('read', ['order_id'], (self, a) => self.order(a.get('order_id') as PyValue)),
  get_product_details: tool('read', ['product_id'], (self, a) => self.product(a.get('product_id') as PyValue)),
  get_item_details: tool('read', ['item_id'], (self, a) => self.item(a.get('item_id') as PyValue)),
  get_user_details: tool('read', ['user_id'], (self, a) => self.user(a.get('user_id') as PyValue)),
  list_all_product_types: tool('read', [], (self) => {
    const byName = new Map<string, PyValue>();
    for (const p of self.dbs.table('products').values() as Iterable<PyModel>)
      byName.set(p.get('name') as string, p.get('product_id'));
    return pyJsonDumps(byName, { sortKeys: true });
  }),
  modify_pending_order_address: tool(
    'write',
    ['order_id', 'address1', 'address2', 'city', 'state', 'country', 'zip'],
    (self, a) => {
      const order = self.order(a.get('order_id') as PyValue, true);
      if (!isPending(order)) throw pyValueError('Non-pending order cannot be modified');
      order.set('address', address(a));
      return order;
    },
  ),
  modify_pending_order_items: modifyPendingItems,
  modify_pending_order_payment: modifyPendingPayment,
  modify_user_address: tool(
    'write',
    ['user_id', 'address1', 'address2', 'city', 'state', 'country', 'zip'],
    (self, a) => {
      const user = self.user(a.get('user_id') as PyValue, true);
      user.set('address', address(a));
      return user;
    },
  ),
  return_delivered_order_items: returnDeliveredItems,
  transfer_to_human_agents: tool('generic', ['summary'], () => 'Transfer successful'),
};

/** The retail domain's executable part: one toolkit over `db.json`. */
export const retailDomainTools: DomainTools = defineTools({
  agent: {
    toolkit: { className: 'RetailTools', tools: retailTools },
    model: RetailDB,
    file: 'db.json',
    state: (dbs, ctx) => new RetailTools(dbs, ctx),
  },
});
