import type { DomainRules } from '../rule-types.js';

const once = { maxCalls: 1, why: 'flips a binary device setting; gold lists each setting change once' };
const recheck = { noRepeatWithoutWrite: true, why: 'the device state has not changed since the last check' };

/**
 * Telecom rules, from main_policy.md, tech_support_workflow.md and the tool descriptions. Gold sequences hold only
 * the fix actions (mostly performed by the user on the device), so diagnostics are never required before a fix.
 * What is required: payment flow order (request → user pays → line resumed), APN values come from a check, toggles
 * happen once, re-checks need an intervening change, nothing after the hand-off.
 */
export const telecomRules: DomainRules = {
  domain: 'telecom',
  userProvides: [
    'phone_number',
    'full_name',
    'dob',
    'customer_id',
    'line_id',
    'reason',
    'gb_amount',
    'bill_id',
    'mode',
    'app_name',
    'permission',
    'limit',
  ],
  agentComposes: ['summary'],
  reveals: {
    get_customer_by_phone: ['customer_id', 'line_id'],
    get_customer_by_id: ['line_id'],
    get_customer_by_name: ['customer_id', 'line_id'],
    get_details_by_id: ['line_id', 'bill_id'],
    get_bills_for_customer: ['bill_id'],
    check_apn_settings: ['apn_settings'],
  },
  tools: {
    transfer_to_human_agents: { terminal: true, why: 'transfer, then only the hold message' },
    // The user can only pay a request the agent has sent.
    check_payment_request: { requiresEarlier: [['send_payment_request']], why: 'nothing to check before a request' },
    make_payment: { requiresEarlier: [['send_payment_request']], maxCalls: 1, why: 'pays the request the agent sent' },
    send_payment_request: { maxCalls: 1, why: 'one overdue bill request per call' },
    resume_line: { maxCalls: 1 },
    suspend_line: { maxCalls: 1 },
    enable_roaming: { maxCalls: 1 },
    disable_roaming: { maxCalls: 1 },
    refuel_data: { maxCalls: 1, why: 'one refuel per line and conversation' },
    toggle_airplane_mode: once,
    toggle_data: once,
    toggle_roaming: once,
    toggle_data_saver_mode: once,
    toggle_wifi: once,
    toggle_wifi_calling: once,
    connect_vpn: { maxCalls: 1 },
    disconnect_vpn: { maxCalls: 1 },
    reset_apn_settings: { maxCalls: 1 },
    reseat_sim_card: { maxCalls: 1 },
    set_network_mode_preference: { maxCalls: 1 },
    check_status_bar: recheck,
    check_network_status: recheck,
    check_network_mode_preference: recheck,
    run_speed_test: recheck,
    check_sim_status: recheck,
    check_data_restriction_status: recheck,
    check_apn_settings: recheck,
    check_wifi_status: recheck,
    check_wifi_calling_status: recheck,
    check_vpn_status: recheck,
    check_installed_apps: recheck,
    can_send_mms: recheck,
  },
};
