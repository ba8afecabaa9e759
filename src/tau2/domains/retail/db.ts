/** The retail database as τ²'s `RetailDB` defines it (`db.json`: products, users, orders, keyed by id). */
export interface RetailDb {
  products: Record<string, Product>;
  users: Record<string, User>;
  orders: Record<string, Order>;
}

export interface Variant {
  item_id: string;
  options: Record<string, string>;
  available: boolean;
  price: number;
}

export interface Product {
  name: string;
  product_id: string;
  variants: Record<string, Variant>;
}

export interface Address {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

export type PaymentMethod =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'paypal'; id: string }
  | GiftCard;

export interface GiftCard {
  source: 'gift_card';
  id: string;
  balance: number;
}

export interface User {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: Address;
  email: string;
  payment_methods: Record<string, PaymentMethod>;
  orders: string[];
}

export interface OrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Record<string, string>;
}

export interface OrderPayment {
  transaction_type: 'payment' | 'refund';
  amount: number;
  payment_method_id: string;
}

export type OrderStatus =
  | 'processed'
  | 'pending'
  | 'pending (item modified)'
  | 'delivered'
  | 'cancelled'
  | 'exchange requested'
  | 'return requested';

export interface Order {
  order_id: string;
  user_id: string;
  address: Address;
  items: OrderItem[];
  status: OrderStatus;
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  payment_history: OrderPayment[];
  cancel_reason?: string | null;
  exchange_items?: string[] | null;
  exchange_new_items?: string[] | null;
  exchange_payment_method_id?: string | null;
  exchange_price_difference?: number | null;
  return_items?: string[] | null;
  return_payment_method_id?: string | null;
}
