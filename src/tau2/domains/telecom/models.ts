import { defineModel, PyEnum, t } from '../../py/model.js';
import { PyDate, pyFloat } from '../../py/values.js';

/** τ²'s telecom data model of the agent side (`tau2/domains/telecom/data_model.py`), field by field in its order. */

const none = () => null;
const f0 = () => pyFloat(0);
const no = () => false;
const empty = () => [];

export const DeviceType = new PyEnum('DeviceType', {
  PHONE: 'phone',
  ROUTER: 'router',
  TABLET: 'tablet',
  WATCH: 'watch',
  OTHER: 'other',
});
export const LineStatus = new PyEnum('LineStatus', {
  ACTIVE: 'Active',
  SUSPENDED: 'Suspended',
  PENDING_ACTIVATION: 'Pending Activation',
  CLOSED: 'Closed',
});
export const BillStatus = new PyEnum('BillStatus', {
  DRAFT: 'Draft',
  ISSUED: 'Issued',
  AWAITING_PAYMENT: 'Awaiting Payment',
  PAID: 'Paid',
  OVERDUE: 'Overdue',
  DISPUTED: 'Disputed',
});
export const AccountStatus = new PyEnum('AccountStatus', {
  ACTIVE: 'Active',
  SUSPENDED: 'Suspended',
  PENDING_VERIFICATION: 'Pending Verification',
  CLOSED: 'Closed',
});
export const PaymentMethodType = new PyEnum('PaymentMethodType', {
  CREDIT_CARD: 'Credit Card',
  DEBIT_CARD: 'Debit Card',
  PAYPAL: 'PayPal',
});

export const Address = defineModel('Address', { street: t.str, city: t.str, state: t.str, zip_code: t.str }, 'forbid');
export const Plan = defineModel(
  'Plan',
  {
    plan_id: t.str,
    name: t.str,
    data_limit_gb: t.float,
    price_per_month: t.float,
    data_refueling_price_per_gb: t.float,
  },
  'forbid',
);
export const Device = defineModel(
  'Device',
  {
    device_id: t.str,
    device_type: t.enum(DeviceType),
    model: t.str,
    imei: [t.opt(t.str), none],
    is_esim_capable: t.bool,
    activated: [t.bool, no],
    activation_date: [t.opt(t.datetime), none],
    last_esim_transfer_date: [t.opt(t.datetime), none],
  },
  'forbid',
);
export const Line = defineModel(
  'Line',
  {
    line_id: t.str,
    phone_number: t.str,
    status: [t.enum(LineStatus), () => LineStatus.of('Pending Activation')],
    plan_id: t.str,
    device_id: [t.opt(t.str), none],
    data_used_gb: [t.float, f0],
    data_refueling_gb: [t.float, f0],
    roaming_enabled: [t.bool, no],
    contract_end_date: [t.opt(t.date), none],
    last_plan_change_date: [t.opt(t.date), none],
    last_sim_replacement_date: [t.opt(t.date), none],
    suspension_start_date: [t.opt(t.date), none],
  },
  'forbid',
);
export const LineItem = defineModel(
  'LineItem',
  { description: t.str, amount: t.float, date: t.date, item_type: t.str },
  'forbid',
);
export const Bill = defineModel(
  'Bill',
  {
    bill_id: t.str,
    customer_id: t.str,
    period_start: t.date,
    period_end: t.date,
    issue_date: t.date,
    total_due: t.float,
    due_date: t.date,
    line_items: [t.list(t.model(() => LineItem)), empty],
    status: [t.enum(BillStatus), () => BillStatus.of('Draft')],
  },
  'forbid',
);
export const PaymentMethod = defineModel(
  'PaymentMethod',
  { method_type: t.enum(PaymentMethodType), account_number_last_4: t.str, expiration_date: t.str },
  'forbid',
);
export const Customer = defineModel(
  'Customer',
  {
    customer_id: t.str,
    full_name: t.str,
    date_of_birth: t.str,
    email: t.str,
    phone_number: t.str,
    address: t.model(() => Address),
    account_status: [t.enum(AccountStatus), () => AccountStatus.of('Pending Verification')],
    payment_methods: [t.list(t.model(() => PaymentMethod)), empty],
    line_ids: [t.list(t.str), empty],
    bill_ids: [t.list(t.str), empty],
    // τ²'s default is a date, not a datetime (defaults are not validated).
    created_at: [t.datetime, () => new PyDate(2025, 1, 1)],
    last_extension_date: [t.opt(t.date), none],
    goodwill_credit_used_this_year: [t.float, f0],
  },
  'forbid',
);

/** `TelecomDB` (a `DB`: extra fields forbidden). */
export const TelecomDB = defineModel(
  'TelecomDB',
  {
    plans: [t.list(t.model(() => Plan)), empty],
    customers: [t.list(t.model(() => Customer)), empty],
    lines: [t.list(t.model(() => Line)), empty],
    bills: [t.list(t.model(() => Bill)), empty],
    devices: [t.list(t.model(() => Device)), empty],
  },
  'forbid',
);
