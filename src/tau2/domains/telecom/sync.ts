import { type DomainTools, defineTools } from '../../environment/toolkit.js';
import { attr, len, setAttr } from '../../py/builtins.js';
import { make } from '../../py/model.js';
import { arith, compare, eq, truthy } from '../../py/ops.js';
import { LineStatus, TelecomDB } from './models.js';
import { Phone } from './phone.js';
import { TelecomTools, telecomFunctions, telecomTools } from './tools.js';
import { PaymentRequest, TelecomUserDB } from './user-models.js';
import { telecomUserFunctions, telecomUserTools } from './user-tools.js';

/**
 * `TelecomEnvironment.sync_tools` (tau2/domains/telecom/environment.py), after every response and environment
 * function: the user's surroundings follow the line (active, roaming allowed, data used up), a paid payment request
 * marks its bill paid, and a bill awaiting payment becomes the user's payment request.
 */
export function syncTelecom(tools: TelecomTools, user: Phone): void {
  const s = user.surroundings;
  const phone = s.get('phone_number');
  if (phone === null) return;
  const line = tools.lineByPhone(phone);
  setAttr(s, 'line_active', eq(line.get('status'), LineStatus.of('Active')));
  setAttr(s, 'roaming_allowed', truthy(line.get('roaming_enabled')));
  const plan = tools.planById(line.get('plan_id'));
  const limit = arith(plan.get('data_limit_gb'), line.get('data_refueling_gb'), '+');
  setAttr(s, 'mobile_data_usage_exceeded', compare(line.get('data_used_gb'), limit, '>='));
  const current = s.get('payment_request');
  if (current !== null && truthy(attr(current, 'paid'))) {
    tools.setBillToPaid(attr(current, 'bill_id'));
    setAttr(s, 'payment_request', null);
  }
  if (s.get('payment_request') === null) {
    const bills = tools.billsAwaitingPayment(tools.customerByPhone(phone));
    if (len(bills) !== 0)
      setAttr(
        s,
        'payment_request',
        make(PaymentRequest, { bill_id: bills[0].get('bill_id'), amount_due: bills[0].get('total_due') }),
      );
  }
}

/** Telecom's executable part: the agent's toolkit over db.toml, the user's phone over user_db.toml, and the sync. */
export const telecomDomainTools: DomainTools = defineTools({
  agent: {
    toolkit: { className: 'TelecomTools', tools: telecomTools, functions: telecomFunctions },
    model: TelecomDB,
    file: 'db.toml',
    state: (dbs, ctx) => new TelecomTools(dbs, ctx),
  },
  user: {
    toolkit: { className: 'TelecomUserTools', tools: telecomUserTools, functions: telecomUserFunctions },
    model: TelecomUserDB,
    file: 'user_db.toml',
    state: (dbs, ctx) => new Phone(dbs, ctx),
  },
  sync: syncTelecom,
});
