import type { ToolArgs } from '../../data_model/types.js';
import { type CallNote, Unfit, type Walk, type WalkRules } from '../kit.js';
import type { Line, TelecomDb } from './db.js';
import { OVERDUE_BILL_ID, type Subject, SYMPTOMS, subjectKey, subjectOf, troubleFor } from './facts.js';

/** What a telecom walk remembers: its subject, and the symptoms already told (one sentence each). */
export interface TelecomWalkState extends Subject {
  told: Set<string>;
}

type TelecomWalk = Walk<TelecomDb, Line, TelecomWalkState>;

/** The agent's writes on the subject's line (the walk's entity writes). */
const LINE_WRITES: ReadonlySet<string> = new Set([
  'suspend_line',
  'resume_line',
  'enable_roaming',
  'disable_roaming',
  'refuel_data',
  'send_payment_request',
]);

/**
 * User-side writes a policy-following agent asks for without a prepared problem: rebooting is the manual's
 * catch-all step, and paying follows the agent's payment request.
 */
const WITHOUT_TROUBLE: ReadonlySet<string> = new Set(['reboot_device', 'make_payment', 'check_payment_request']);

/** The amount a generated task refuels: not integral, so it is a float in Python whichever way it is written. */
export const REFUEL_GB = 1.5;

function overdueBill(w: TelecomWalk): string {
  const db = w.ctx.env.db as TelecomDb;
  const bill = db.bills.find((b) => b.customer_id === w.state.customer.customer_id && b.status === 'Overdue');
  return bill?.bill_id ?? OVERDUE_BILL_ID;
}

function candidates(w: TelecomWalk, tool: string, index: number): ToolArgs[] {
  const { customer, line } = w.state;
  const ids = { customer_id: customer.customer_id, line_id: line.line_id };
  const spec = w.ctx.domain.tools.find((t) => t.name === tool);
  const isUser = spec?.requestor === 'user';
  if (isUser && spec?.type === 'WRITE' && !WITHOUT_TROUBLE.has(tool) && !troubleFor(tool, w.state, w.ctx.base))
    throw new Unfit(
      tool,
      index,
      'no prepared problem this change fixes: a policy-following agent would not ask for it',
    );
  switch (tool) {
    case 'get_customer_by_phone':
      return [{ phone_number: line.phone_number }];
    case 'get_customer_by_id':
      return [{ customer_id: customer.customer_id }];
    case 'get_customer_by_name':
      return [{ full_name: customer.full_name, dob: customer.date_of_birth }];
    case 'get_bills_for_customer':
      return [{ customer_id: customer.customer_id }];
    case 'get_data_usage':
    case 'resume_line':
    case 'enable_roaming':
    case 'disable_roaming':
      return [ids];
    case 'suspend_line':
      return [{ ...ids, reason: 'travelling abroad for several months' }];
    case 'refuel_data':
      return [{ ...ids, gb_amount: REFUEL_GB }];
    case 'send_payment_request':
      return [{ customer_id: customer.customer_id, bill_id: overdueBill(w) }];
    case 'transfer_to_human_agents':
      return [
        { summary: `Customer ${customer.full_name} (line ${line.phone_number}) needs help beyond this support.` },
      ];
    case 'set_network_mode_preference':
      return [{ mode: '4g_5g_preferred' }];
    case 'grant_app_permission':
      return [{ app_name: 'messaging', permission: 'storage' }];
    case 'check_app_status':
    case 'check_app_permissions':
      return [{ app_name: 'messaging' }];
    case 'set_apn_settings':
      // Correct APN values come only from the manual's reset: a generated task uses reset_apn_settings instead.
      return [];
    default:
      if (!isUser) throw new Unfit(tool, index, 'no candidate arguments for this tool');
      return [{}];
  }
}

/** What the user wants or accepts for each kind of call, one sentence per symptom or agreement. */
function accept(w: TelecomWalk, tool: string): CallNote | undefined {
  const trouble = troubleFor(tool, w.state, w.ctx.base);
  const once = (key: string, note: CallNote): CallNote | undefined => {
    if (w.state.told.has(key)) return undefined;
    w.state.told.add(key);
    return note;
  };
  switch (tool) {
    case 'refuel_data':
      return once('refuel', {
        intent: `${SYMPTOMS.data} You are willing to refuel ${REFUEL_GB} GB of data, but you do not want to change your plan.`,
        purpose: 'refuel data',
      });
    case 'send_payment_request':
    case 'make_payment':
      return once('bill', {
        intent: `${SYMPTOMS.bill} If the agent asks you to pay the overdue bill, you accept.`,
        purpose: 'overdue bill payment',
      });
    case 'resume_line':
      return once('resume', { intent: 'Your line is suspended and you want it active again.', purpose: 'resume line' });
    case 'suspend_line':
      return once('suspend', {
        intent: 'You are going abroad for several months and want your line suspended meanwhile.',
        purpose: 'suspend line',
      });
    case 'disable_roaming':
      return once('home', { intent: 'You are back home and want data roaming turned off on your line.' });
    case 'transfer_to_human_agents':
      return { intent: 'If the agent cannot fix it, you accept being transferred to a human agent.' };
    default:
      return trouble
        ? once(trouble.symptom, { intent: `${SYMPTOMS[trouble.symptom]} You want it fixed.`, purpose: tool })
        : undefined;
  }
}

/**
 * TASTE stage 3's walk on telecom: the subject is one active line of a customer (`<customer_id>/<line_id>`); the
 * user's phone starts broken the ways the sequence's fixes repair (`facts.ts`), the agent's calls name the line.
 */
export const telecomWalk: WalkRules<TelecomDb, Line, TelecomWalkState> = {
  writes: LINE_WRITES,
  subjects(base, _sequence, rng) {
    const keys: string[] = [];
    for (const customer of base.customers)
      for (const id of customer.line_ids) {
        const line = base.lines.find((l) => l.line_id === id);
        if (line?.status === 'Active') keys.push(subjectKey({ customer, line }));
      }
    return rng.shuffle(keys.sort());
  },
  start: (ctx, subject) => ({ ...subjectOf(ctx.base, subject), told: new Set() }),
  ids: (w) => [w.state.line.line_id],
  fits: () => true,
  candidates,
  accept: (w, tool) => accept(w, tool),
  finish(w) {
    const { customer, line } = w.state;
    w.ctx.notes.known.unshift(`You are ${customer.full_name} with phone number ${line.phone_number}.`);
    w.ctx.notes.known.push(
      'Whenever the agent asks about your phone, ground your answer on the results of your tool calls; never make them up.',
    );
  },
};
