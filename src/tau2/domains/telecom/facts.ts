import type { Customer, Line, TelecomDb } from './db.js';

/** One action of a τ² task's `initialization_actions`. */
export interface InitAction {
  env_type: 'assistant' | 'user';
  func_name: string;
  arguments: Record<string, unknown>;
}

/** The subject of a generated telecom task: a customer calling about one of their active lines. */
export interface Subject {
  customer: Customer;
  line: Line;
}

/** A subject's key, `<customer_id>/<line_id>`, and back. */
export const subjectKey = (s: Subject) => `${s.customer.customer_id}/${s.line.line_id}`;
export function subjectOf(db: TelecomDb, key: string): Subject {
  const [cid, lid] = key.split('/');
  const customer = db.customers.find((c) => c.customer_id === cid);
  const line = db.lines.find((l) => l.line_id === lid);
  if (!customer || !line) throw new Error(`telecom subject ${key} is not in the database`);
  return { customer, line };
}

/** What the user notices when a fix is needed, by what the fix puts right (the task's reason for calling). */
export type Symptom = 'service' | 'data' | 'slow' | 'mms' | 'abroad' | 'bill';
export const SYMPTOMS: Record<Symptom, string> = {
  service: "Your phone shows 'No Service'.",
  data: 'Your mobile data is not working.',
  slow: 'Your mobile data is very slow.',
  mms: 'You cannot send picture messages (MMS).',
  abroad: 'You are travelling abroad and your mobile data does not work.',
  bill: 'Your line was suspended over an unpaid bill.',
};

/**
 * The trouble each fix in a sequence repairs: the set-up actions (τ²'s own "break" functions, as its telecom tasks
 * use them) that make the fix needed, and what the user notices. A write missing here changes the phone or the line
 * without a prepared problem (connecting a VPN, suspending a line).
 */
export function troubleFor(
  tool: string,
  s: Subject,
  db: TelecomDb,
): { actions: InitAction[]; symptom: Symptom } | undefined {
  const user = (func_name: string, args: Record<string, unknown> = {}): InitAction => ({
    env_type: 'user',
    func_name,
    arguments: args,
  });
  const agent = (func_name: string, args: Record<string, unknown> = {}): InitAction => ({
    env_type: 'assistant',
    func_name,
    arguments: { customer_id: s.customer.customer_id, line_id: s.line.line_id, ...args },
  });
  switch (tool) {
    case 'toggle_airplane_mode':
      return { actions: [user('turn_airplane_mode_on')], symptom: 'service' };
    case 'reseat_sim_card':
      return { actions: [user('unseat_sim_card')], symptom: 'service' };
    case 'reset_apn_settings':
      return { actions: [user('break_apn_settings')], symptom: 'service' };
    case 'toggle_data':
      return { actions: [user('turn_data_off')], symptom: 'data' };
    case 'toggle_data_saver_mode':
      return { actions: [user('turn_data_saver_mode_on')], symptom: 'slow' };
    case 'set_network_mode_preference':
      return { actions: [user('set_network_mode_preference', { mode: '2g_only' })], symptom: 'slow' };
    case 'disconnect_vpn':
      return { actions: [user('break_vpn')], symptom: 'slow' };
    case 'grant_app_permission':
      return {
        actions: [user('remove_app_permission', { app_name: 'messaging', permission: 'storage' })],
        symptom: 'mms',
      };
    case 'toggle_wifi_calling':
      return { actions: [user('set_wifi_calling', { enabled: true, mms_over_wifi: true })], symptom: 'mms' };
    case 'toggle_roaming':
      return {
        actions: [
          user('set_user_location', { abroad: true }),
          user('turn_roaming_off'),
          ...(s.line.roaming_enabled ? [] : [agent('enable_roaming')]),
        ],
        symptom: 'abroad',
      };
    case 'enable_roaming':
      return {
        actions: [
          user('set_user_location', { abroad: true }),
          user('turn_roaming_on'),
          ...(s.line.roaming_enabled ? [agent('disable_roaming')] : []),
        ],
        symptom: 'abroad',
      };
    case 'disable_roaming':
      return s.line.roaming_enabled ? undefined : { actions: [agent('enable_roaming')], symptom: 'abroad' };
    case 'refuel_data': {
      const plan = db.plans.find((p) => p.plan_id === s.line.plan_id);
      const over = Math.round(((plan?.data_limit_gb ?? 0) + 0.5) * 10) / 10;
      return { actions: [agent('set_data_usage', { data_used_gb: over })], symptom: 'data' };
    }
    case 'send_payment_request':
    case 'make_payment':
    case 'resume_line': {
      const overdue = s.customer.bill_ids.some((id) => db.bills.find((b) => b.bill_id === id)?.status === 'Overdue');
      if (overdue)
        return tool === 'resume_line'
          ? { actions: [agent('suspend_line', { reason: 'unpaid bill' })], symptom: 'bill' }
          : undefined;
      return {
        actions: [agent('suspend_line_for_overdue_bill', { new_bill_id: OVERDUE_BILL_ID, contract_ended: false })],
        symptom: 'bill',
      };
    }
    default:
      return undefined;
  }
}

/** The id of the overdue bill a generated task's set-up creates (no bill of the database has it). */
export const OVERDUE_BILL_ID = 'B9000001';
