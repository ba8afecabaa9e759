import { type ToolDef, ToolState, tool } from '../../environment/toolkit.js';
import { abs, attr, contains, iterate, len, lower, sorted, startsWith } from '../../py/builtins.js';
import { PyException, pyTypeError, pyValueError } from '../../py/errors.js';
import { make } from '../../py/model.js';
import { arith, compare, eq, iadd, truthy } from '../../py/ops.js';
import { format, str } from '../../py/repr.js';
import { PyDate, PyFloat, type PyModel, type PyValue, typeName } from '../../py/values.js';
import { Bill, BillStatus, LineItem, LineStatus } from './models.js';

/** τ²'s frozen telecom clock (`get_today()`) and the dates its tools derive from it. */
export const TODAY = new PyDate(2025, 2, 25);
const addDays = (d: PyDate, n: number) => {
  const x = new Date(Date.UTC(d.y, d.m - 1, d.d + n));
  return new PyDate(x.getUTCFullYear(), x.getUTCMonth() + 1, x.getUTCDate());
};
const withDay = (d: PyDate, day: number) => new PyDate(d.y, d.m, day);

const list = (v: PyValue) => v as PyValue[];

/** `TelecomTools` (tau2/domains/telecom/tools.py), ported line by line over the Python world of `../py/`. */
export class TelecomTools extends ToolState {
  private rows(name: string): PyModel[] {
    return this.db.get(name) as PyModel[];
  }

  private find(table: string, field: string, value: PyValue, missing: string): PyModel {
    for (const r of iterate(this.db.get(table))) if (eq(attr(r, field), value)) return r as PyModel;
    throw pyValueError(missing);
  }

  customerById(customerId: PyValue): PyModel {
    return this.find('customers', 'customer_id', customerId, `Customer with ID ${str(customerId)} not found`);
  }
  lineById(lineId: PyValue): PyModel {
    return this.find('lines', 'line_id', lineId, `Line with ID ${str(lineId)} not found`);
  }
  lineByPhone(phone: PyValue): PyModel {
    return this.find('lines', 'phone_number', phone, `Line with phone number ${str(phone)} not found`);
  }
  planById(planId: PyValue): PyModel {
    return this.find('plans', 'plan_id', planId, `Plan with ID ${str(planId)} not found`);
  }
  deviceById(deviceId: PyValue): PyModel {
    return this.find('devices', 'device_id', deviceId, `Device with ID ${str(deviceId)} not found`);
  }
  billById(billId: PyValue): PyModel {
    return this.find('bills', 'bill_id', billId, `Bill with ID ${str(billId)} not found`);
  }

  customerByPhone(phone: PyValue): PyModel {
    for (const c of this.rows('customers')) {
      if (eq(c.get('phone_number'), phone)) return c;
      for (const lineId of iterate(c.get('line_ids'))) {
        const line = this.lineById(lineId);
        if (truthy(line) && eq(line.get('phone_number'), phone)) return c;
      }
    }
    throw pyValueError(`Customer with phone number ${str(phone)} not found`);
  }

  /** `_get_target_line`. */
  targetLine(customerId: PyValue, lineId: PyValue): PyModel {
    const customer = this.customerById(customerId);
    if (!contains(customer.get('line_ids'), lineId))
      throw pyValueError(`Line ${str(lineId)} not found for customer ${str(customerId)}`);
    return this.lineById(lineId);
  }

  billsAwaitingPayment(customer: PyModel): PyModel[] {
    const out: PyModel[] = [];
    for (const id of iterate(customer.get('bill_ids'))) {
      const bill = this.billById(id);
      if (truthy(bill) && eq(bill.get('status'), BillStatus.of('Awaiting Payment'))) out.push(bill);
    }
    return out;
  }

  setBillToPaid(billId: PyValue): string {
    this.billById(billId).set('status', BillStatus.of('Paid'));
    return `Bill ${str(billId)} set to paid`;
  }

  /** `_apply_one_time_charge`: a line item on the customer's draft bill, made (with a new id) when there is none. */
  applyOneTimeCharge(customerId: PyValue, amount: PyValue, description: string): void {
    const customer = this.customerById(customerId);
    let draft: PyModel | null = null;
    for (const id of iterate(customer.get('bill_ids'))) {
      const bill = this.billById(id);
      if (truthy(bill) && eq(bill.get('status'), BillStatus.of('Draft'))) {
        draft = bill;
        break;
      }
    }
    if (!draft) {
      const nextMonth = withDay(addDays(withDay(TODAY, 1), 32), 1);
      const newBillId = `B${this.ctx.randomHex('bill')}`;
      const following =
        nextMonth.m < 12 ? new PyDate(nextMonth.y, nextMonth.m + 1, 1) : new PyDate(nextMonth.y + 1, 1, 1);
      draft = make(Bill, {
        bill_id: newBillId,
        customer_id: customerId,
        period_start: nextMonth,
        period_end: addDays(following, -1),
        issue_date: nextMonth,
        total_due: 0,
        due_date: addDays(nextMonth, 14),
        status: BillStatus.of('Draft'),
      });
      list(this.db.get('bills')).push(draft);
      list(customer.get('bill_ids')).push(newBillId);
    }
    const item = make(LineItem, {
      description,
      amount,
      date: TODAY,
      item_type: compare(amount, 0, '<') ? 'Credit' : 'Charge',
    });
    list(draft.get('line_items')).push(item);
    draft.set('total_due', iadd(draft.get('total_due'), amount));
  }
}

type Tool = ToolDef<TelecomTools>;
const get = (a: ReadonlyMap<string, PyValue>, k: string) => a.get(k) as PyValue;

/** `sorted_bills[:limit]`: Python's slice, whose bound must be an int (or None). */
function sliceTo(items: PyValue[], limit: PyValue): PyValue[] {
  if (limit === null) return items;
  if (typeof limit !== 'number' && typeof limit !== 'boolean' && typeof limit !== 'bigint')
    throw pyTypeError('slice indices must be integers or None or have an __index__ method');
  return items.slice(0, Number(limit));
}

const refuelData: Tool = tool('write', ['customer_id', 'line_id', 'gb_amount'], (self, a) => {
  const line = self.targetLine(get(a, 'customer_id'), get(a, 'line_id'));
  const gb = get(a, 'gb_amount');
  if (compare(gb, 0, '<=')) throw pyValueError('Refuel amount must be positive');
  const plan = self.planById(line.get('plan_id'));
  const price = plan.get('data_refueling_price_per_gb');
  const charge = arith(gb, price, '*');
  line.set('data_refueling_gb', iadd(line.get('data_refueling_gb'), gb));
  self.applyOneTimeCharge(get(a, 'customer_id'), charge, `Data refueling: ${str(gb)} GB at $${str(price)}/GB`);
  // τ² logs the charge with `:.2f`, which fails for a charge that is not a number.
  format(charge, '.2f');
  return new Map<string, PyValue>([
    [
      'message',
      `Successfully added ${str(gb)} GB of data for line ${str(get(a, 'line_id'))} for $${format(charge, '.2f')}`,
    ],
    ['new_data_refueling_gb', line.get('data_refueling_gb')],
    ['charge', charge],
  ]);
});

/** `TelecomTools`' tools, named as in tools.json. */
export const telecomTools: Readonly<Record<string, Tool>> = {
  get_customer_by_phone: tool('read', ['phone_number'], (self, a) => self.customerByPhone(get(a, 'phone_number'))),
  get_customer_by_id: tool('read', ['customer_id'], (self, a) => self.customerById(get(a, 'customer_id'))),
  get_customer_by_name: tool('read', ['full_name', 'dob'], (self, a) =>
    iterate(self.db.get('customers')).filter(
      (c) => lower(attr(c, 'full_name')) === lower(get(a, 'full_name')) && eq(attr(c, 'date_of_birth'), get(a, 'dob')),
    ),
  ),
  get_details_by_id: tool('read', ['id'], (self, a) => {
    const id = get(a, 'id');
    if (startsWith(id, 'L')) return self.lineById(id);
    if (startsWith(id, 'D')) return self.deviceById(id);
    if (startsWith(id, 'B')) return self.billById(id);
    if (startsWith(id, 'C')) return self.customerById(id);
    if (startsWith(id, 'P')) return self.planById(id);
    throw pyValueError(`Unknown ID format or type: ${str(id)}`);
  }),
  suspend_line: tool('write', ['customer_id', 'line_id', 'reason'], (self, a) => {
    const line = self.targetLine(get(a, 'customer_id'), get(a, 'line_id'));
    if (!eq(line.get('status'), LineStatus.of('Active'))) throw pyValueError('Line must be active to suspend');
    line.set('status', LineStatus.of('Suspended'));
    line.set('suspension_start_date', TODAY);
    return new Map<string, PyValue>([
      ['message', 'Line suspended successfully. $5/month holding fee will apply.'],
      ['line', line],
    ]);
  }),
  resume_line: tool('write', ['customer_id', 'line_id'], (self, a) => {
    const line = self.targetLine(get(a, 'customer_id'), get(a, 'line_id'));
    if (!contains([LineStatus.of('Suspended'), LineStatus.of('Pending Activation')], line.get('status')))
      throw pyValueError('Line must be suspended to resume');
    line.set('status', LineStatus.of('Active'));
    line.set('suspension_start_date', null);
    return new Map<string, PyValue>([
      ['message', 'Line resumed successfully'],
      ['line', line],
    ]);
  }),
  get_bills_for_customer: tool('read', ['customer_id', 'limit?'], (self, a) => {
    const customer = self.customerById(get(a, 'customer_id'));
    const bills = iterate(customer.get('bill_ids')).map((id) => self.billById(id));
    const byDate = sorted(bills, { key: (b) => attr(b, 'issue_date'), reverse: true });
    return sliceTo(byDate, a.has('limit') ? get(a, 'limit') : 12);
  }),
  send_payment_request: tool('write', ['customer_id', 'bill_id'], (self, a) => {
    const customer = self.customerById(get(a, 'customer_id'));
    if (len(self.billsAwaitingPayment(customer)) !== 0)
      throw pyValueError('A bill is already awaiting payment for this customer');
    const billId = get(a, 'bill_id');
    if (!contains(customer.get('bill_ids'), billId))
      throw pyValueError(`Bill ${str(billId)} not found for customer ${str(get(a, 'customer_id'))}`);
    const bill = self.billById(billId);
    bill.set('status', BillStatus.of('Awaiting Payment'));
    return `Payment request sent to the customer for bill ${str(bill.get('bill_id'))}`;
  }),
  get_data_usage: tool('read', ['customer_id', 'line_id'], (self, a) => {
    const line = self.targetLine(get(a, 'customer_id'), get(a, 'line_id'));
    const plan = self.planById(line.get('plan_id'));
    return new Map<string, PyValue>([
      ['line_id', get(a, 'line_id')],
      ['data_used_gb', line.get('data_used_gb')],
      ['data_limit_gb', plan.get('data_limit_gb')],
      ['data_refueling_gb', line.get('data_refueling_gb')],
      ['cycle_end_date', addDays(new PyDate(2025, 3, 1), -1)],
    ]);
  }),
  enable_roaming: tool('write', ['customer_id', 'line_id'], (self, a) => {
    const line = self.targetLine(get(a, 'customer_id'), get(a, 'line_id'));
    if (truthy(line.get('roaming_enabled'))) return 'Roaming was already enabled';
    line.set('roaming_enabled', true);
    return 'Roaming enabled successfully';
  }),
  disable_roaming: tool('write', ['customer_id', 'line_id'], (self, a) => {
    const line = self.targetLine(get(a, 'customer_id'), get(a, 'line_id'));
    if (!truthy(line.get('roaming_enabled'))) return 'Roaming was already disabled';
    line.set('roaming_enabled', false);
    return 'Roaming disabled successfully';
  }),
  transfer_to_human_agents: tool('generic', ['summary'], () => 'Transfer successful'),
  refuel_data: refuelData,
};

/** The other methods of `TelecomTools` a task calls by name: scenario set-up and assertions. */
export const telecomFunctions: Readonly<Record<string, Tool>> = {
  get_available_plan_ids: tool('read', [], (self) => iterate(self.db.get('plans')).map((p) => attr(p, 'plan_id'))),
  set_data_usage: tool('write', ['customer_id', 'line_id', 'data_used_gb'], (self, a) => {
    self.targetLine(get(a, 'customer_id'), get(a, 'line_id')).set('data_used_gb', get(a, 'data_used_gb'));
    return `Data usage set to ${str(get(a, 'data_used_gb'))} GB for line ${str(get(a, 'line_id'))}`;
  }),
  suspend_line_for_overdue_bill: tool(
    'write',
    ['customer_id', 'line_id', 'new_bill_id', 'contract_ended'],
    (self, a) => {
      const line = self.lineById(get(a, 'line_id'));
      if (!eq(line.get('status'), LineStatus.of('Active')))
        throw pyValueError('Line must be active to suspend for unpaid bill');
      const amount = self.planById(line.get('plan_id')).get('price_per_month');
      const description = `Charge for line ${str(line.get('line_id'))}`;
      if (compare(amount, 0, '<=')) throw pyValueError('Amount must be positive for overdue bill');
      const customer = self.customerById(get(a, 'customer_id'));
      const overdue = iterate(customer.get('bill_ids')).filter((id) =>
        eq(self.billById(id).get('status'), BillStatus.of('Overdue')),
      );
      if (overdue.length > 0) throw pyValueError('Customer already has an overdue bill');
      const lastDay = addDays(withDay(TODAY, 1), -1);
      const firstDay = withDay(lastDay, 1);
      const bill = make(Bill, {
        bill_id: get(a, 'new_bill_id'),
        customer_id: get(a, 'customer_id'),
        period_start: firstDay,
        period_end: lastDay,
        issue_date: firstDay,
        total_due: 0,
        due_date: addDays(firstDay, 14),
        status: BillStatus.of('Overdue'),
      });
      const item = make(LineItem, {
        description,
        amount,
        date: TODAY,
        item_type: compare(amount, 0, '>') ? 'Charge' : 'Credit',
      });
      list(bill.get('line_items')).push(item);
      bill.set('total_due', iadd(bill.get('total_due'), amount));
      list(self.db.get('bills')).push(bill);
      list(customer.get('bill_ids')).push(get(a, 'new_bill_id'));
      line.set('status', LineStatus.of('Suspended'));
      line.set('suspension_start_date', TODAY);
      if (truthy(get(a, 'contract_ended'))) line.set('contract_end_date', lastDay);
      return `Line ${str(get(a, 'line_id'))} suspended for unpaid bill ${str(get(a, 'new_bill_id'))}. Contract ended: ${str(get(a, 'contract_ended'))}`;
    },
  ),
  assert_data_refueling_amount: tool('read', ['customer_id', 'line_id', 'expected_amount'], (self, a) => {
    const line = self.targetLine(get(a, 'customer_id'), get(a, 'line_id'));
    return compare(abs(arith(line.get('data_refueling_gb'), get(a, 'expected_amount'), '-')), new PyFloat(1e-6), '<');
  }),
  assert_line_status: tool('read', ['customer_id', 'line_id', 'expected_status'], (self, a) =>
    eq(self.targetLine(get(a, 'customer_id'), get(a, 'line_id')).get('status'), get(a, 'expected_status')),
  ),
  assert_overdue_bill_exists: tool('read', ['customer_id', 'overdue_bill_id'], (self, a) => {
    const customer = self.customerById(get(a, 'customer_id'));
    const id = get(a, 'overdue_bill_id');
    if (!contains(customer.get('bill_ids'), id)) throw pyValueError(`Overdue bill ${str(id)} not found`);
    if (!eq(self.billById(id).get('status'), BillStatus.of('Overdue')))
      throw pyValueError(`Overdue bill ${str(id)} is not overdue`);
    return true;
  }),
  assert_no_overdue_bill: tool('read', ['overdue_bill_id'], (self, a) => {
    try {
      const bill = self.billById(get(a, 'overdue_bill_id'));
      if (eq(bill.get('status'), BillStatus.of('Paid'))) return true;
    } catch (err) {
      if (err instanceof PyException && err.type === 'ValueError') return true;
      throw err;
    }
    return false;
  }),
};

void typeName;
