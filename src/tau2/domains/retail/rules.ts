import type { DomainRules } from '../rule-types.js';

const order = (e: Partial<NonNullable<DomainRules['tools'][string]['entity']>>) => ({
  entity: { kind: 'order', ...e },
});

/**
 * Retail rules, from policy.md and the tool descriptions. As in airline, gold sequences often list only the graded
 * writes, so authentication and order lookups are not demanded before writes; what is demanded is what a lookup alone
 * can supply (a located user id, item ids out of orders or products, amounts to calculate with) and the order state
 * machine (each order is cancelled, item-modified, returned or exchanged at most once, and not acted on afterwards).
 */
export const retailRules: DomainRules = {
  domain: 'retail',
  userProvides: [
    'email',
    'first_name',
    'last_name',
    'zip',
    'order_id',
    'product_id',
    'item_ids',
    'new_item_ids',
    'payment_method_id',
    'address1',
    'address2',
    'city',
    'state',
    'country',
    'reason',
  ],
  agentComposes: ['summary'],
  reveals: {
    // "authenticate the user identity by locating their user id via email, or via name + zip code. This has to be
    // done even when the user already provides the user id."
    find_user_id_by_email: ['user_id'],
    find_user_id_by_name_zip: ['user_id'],
    get_user_details: ['order_id', 'payment_method_id', 'amounts'],
    get_order_details: ['item_id', 'product_id', 'amounts'],
    get_product_details: ['item_id', 'amounts'],
    get_item_details: ['amounts'],
    list_all_product_types: ['product_id'],
    calculate: ['amount'],
  },
  // A user can name a few of their own order ids; get_user_details reveals all of them.
  entities: { order: { userProvided: 3 } },
  tools: {
    transfer_to_human_agents: { terminal: true, why: 'transfer, then only the hold message' },
    calculate: { needs: ['amounts'], why: 'a calculation works on prices or balances an earlier lookup returned' },
    list_all_product_types: { maxCalls: 1, why: 'static list' },
    // Writes to the user profile act on the authenticated user; gold lists them without the lookup.
    modify_user_address: { needs: ['address1', 'city', 'state', 'country', 'zip'] },
    get_user_details: { entity: { kind: 'order', reveals: 'all' } },
    get_order_details: order({ reveals: 1 }),
    // "An order can only be cancelled if its status is 'pending'"; cancelled orders take no further action.
    cancel_pending_order: order({ oncePerEntity: true, closes: true }),
    // "This action can only be called once ... The agent will not be able to modify or cancel the order anymore."
    modify_pending_order_items: order({ oncePerEntity: true, closes: true }),
    modify_pending_order_address: order({ requiresOpen: true }),
    modify_pending_order_payment: order({ requiresOpen: true }),
    // Return/exchange move a delivered order to 'return requested' / 'exchange requested': once per order.
    return_delivered_order_items: order({ oncePerEntity: true, closes: true }),
    exchange_delivered_order_items: order({ oncePerEntity: true, closes: true }),
  },
};
