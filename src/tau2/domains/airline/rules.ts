import type { DomainRules } from '../rule-types.js';

/**
 * Airline rules, from policy.md and the tool descriptions. Gold sequences list only the graded calls (mostly writes),
 * so lookups the agent surely made are often absent: reads the user's own statements could replace are not required
 * before writes. What is required is what no user statement can replace.
 */
export const airlineRules: DomainRules = {
  domain: 'airline',
  // "The user must provide their user id"; reservation ids, routes, dates, cabin, passengers, bags, insurance and the
  // payment method to use are the user's to state.
  userProvides: [
    'user_id',
    'reservation_id',
    'origin',
    'destination',
    'date',
    'flight_type',
    'cabin',
    'flights',
    'flight_number',
    'passengers',
    'payment_id',
    'payment_methods',
    'total_baggages',
    'nonfree_baggages',
    'insurance',
  ],
  agentComposes: ['summary'],
  reveals: {
    get_user_details: ['membership', 'amounts', 'payment_id', 'reservation_id'],
    get_reservation_details: ['reservation_facts', 'amounts', 'flight_number', 'passengers'],
    search_direct_flight: ['amounts', 'flights'],
    search_onestop_flight: ['amounts', 'flights'],
    get_flight_status: ['flight_status'],
    calculate: ['amount'],
  },
  entities: { reservation: { userProvided: 1 } },
  tools: {
    transfer_to_human_agents: { terminal: true, why: 'transfer, then only the hold message' },
    calculate: {
      needs: ['amounts'],
      why: 'a calculation works on prices or balances an earlier lookup returned',
    },
    send_certificate: {
      needs: ['user_id'],
      requiresEarlier: [['get_user_details'], ['get_reservation_details']],
      maxCalls: 1,
      why: 'always confirm the facts (membership, insurance, cabin, passengers) before compensating',
    },
    list_all_airports: { maxCalls: 1, why: 'static list' },
    get_user_details: { noRepeatWithoutWrite: true, entity: { kind: 'reservation', reveals: 'all' } },
    get_reservation_details: { entity: { kind: 'reservation', reveals: 1 } },
    book_reservation: { entity: { kind: 'reservation', creates: 1 } },
    cancel_reservation: { entity: { kind: 'reservation', oncePerEntity: true, closes: true } },
    update_reservation_flights: { entity: { kind: 'reservation', requiresOpen: true } },
    update_reservation_passengers: { entity: { kind: 'reservation', oncePerEntity: true, requiresOpen: true } },
    update_reservation_baggages: { entity: { kind: 'reservation', oncePerEntity: true, requiresOpen: true } },
  },
};
