import { defineModel, t } from '../../py/model.js';

/** τ²'s retail data model (`tau2/domains/retail/data_model.py`), field by field in its order. */

export const Variant = defineModel('Variant', {
  item_id: t.str,
  options: t.dict(t.str, t.str),
  available: t.bool,
  price: t.float,
});
export const Product = defineModel('Product', {
  name: t.str,
  product_id: t.str,
  variants: t.dict(
    t.str,
    t.model(() => Variant),
  ),
});
export const UserName = defineModel('UserName', { first_name: t.str, last_name: t.str });
export const UserAddress = defineModel('UserAddress', {
  address1: t.str,
  address2: t.str,
  city: t.str,
  country: t.str,
  state: t.str,
  zip: t.str,
});
// A subclass keeps its base's field order (source, id), whichever fields it redeclares.
export const CreditCard = defineModel('CreditCard', {
  source: t.lit('credit_card'),
  id: t.str,
  brand: t.str,
  last_four: t.str,
});
export const Paypal = defineModel('Paypal', { source: t.lit('paypal'), id: t.str });
export const GiftCard = defineModel('GiftCard', { source: t.lit('gift_card'), id: t.str, balance: t.float });
export const User = defineModel('User', {
  user_id: t.str,
  name: t.model(() => UserName),
  address: t.model(() => UserAddress),
  email: t.str,
  payment_methods: t.dict(
    t.str,
    t.union(
      t.model(() => CreditCard),
      t.model(() => GiftCard),
      t.model(() => Paypal),
    ),
  ),
  orders: t.list(t.str),
});
export const OrderFullfilment = defineModel('OrderFullfilment', {
  tracking_id: t.list(t.str),
  item_ids: t.list(t.str),
});
export const OrderItem = defineModel('OrderItem', {
  name: t.str,
  product_id: t.str,
  item_id: t.str,
  price: t.float,
  options: t.dict(t.str, t.str),
});
export const OrderPayment = defineModel('OrderPayment', {
  transaction_type: t.lit('payment', 'refund'),
  amount: t.float,
  payment_method_id: t.str,
});
const none = () => null;
export const Order = defineModel('Order', {
  order_id: t.str,
  user_id: t.str,
  address: t.model(() => UserAddress),
  items: t.list(t.model(() => OrderItem)),
  status: t.lit(
    'processed',
    'pending',
    'pending (item modified)',
    'delivered',
    'cancelled',
    'exchange requested',
    'return requested',
  ),
  fulfillments: t.list(t.model(() => OrderFullfilment)),
  payment_history: t.list(t.model(() => OrderPayment)),
  cancel_reason: [t.opt(t.lit('no longer needed', 'ordered by mistake')), none],
  exchange_items: [t.opt(t.list(t.str)), none],
  exchange_new_items: [t.opt(t.list(t.str)), none],
  exchange_payment_method_id: [t.opt(t.str), none],
  exchange_price_difference: [t.opt(t.float), none],
  return_items: [t.opt(t.list(t.str)), none],
  return_payment_method_id: [t.opt(t.str), none],
});

/** `RetailDB` (a `DB`: extra fields forbidden). */
export const RetailDB = defineModel(
  'RetailDB',
  {
    products: t.dict(
      t.str,
      t.model(() => Product),
    ),
    users: t.dict(
      t.str,
      t.model(() => User),
    ),
    orders: t.dict(
      t.str,
      t.model(() => Order),
    ),
  },
  'forbid',
);
