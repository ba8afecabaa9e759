import type { Cabin, Membership } from './db.js';

/** τ²'s frozen airline clock: new reservations are created at `NOW`; flights up to `TODAY` have (partly) flown. */
export const NOW = '2024-05-15T15:00:00';
export const TODAY = NOW.slice(0, 10);

/** The ids τ² hands out to new reservations, first free one first: at most three bookings per task. */
export const NEW_RESERVATION_IDS = ['HATHAT', 'HATHAU', 'HATHAV'];
/** Decoys keep clear of the whole `HATHA…` range new reservation ids come from. */
export const isNewReservationId = (id: string) => id.startsWith('HATHA');
/** Numbers of the certificates `send_certificate` adds, first free one first. */
export const NEW_CERTIFICATE_NUMBERS = [3221322, 3221323, 3221324];

export const CABINS: ReadonlySet<string> = new Set<Cabin>(['business', 'economy', 'basic_economy']);
/** Dollars per non-free checked bag and per passenger for travel insurance. */
export const BAG_FEE = 50;
export const INSURANCE_FEE = 30;
/** Free checked bags per passenger, by membership and cabin (policy.md). */
export const FREE_BAGS: Record<Membership, Record<Cabin, number>> = {
  regular: { basic_economy: 0, economy: 1, business: 2 },
  silver: { basic_economy: 1, economy: 2, business: 3 },
  gold: { basic_economy: 2, economy: 3, business: 4 },
};
/** The certificate policy.md allows for a delayed flight, per passenger. */
export const DELAY_CERTIFICATE_PER_PASSENGER = 50;

/** The airports `list_all_airports` names, in τ²'s order. */
export const AIRPORTS: [string, string][] = [
  ['SFO', 'San Francisco'],
  ['JFK', 'New York'],
  ['LAX', 'Los Angeles'],
  ['ORD', 'Chicago'],
  ['DFW', 'Dallas'],
  ['DEN', 'Denver'],
  ['SEA', 'Seattle'],
  ['ATL', 'Atlanta'],
  ['MIA', 'Miami'],
  ['BOS', 'Boston'],
  ['PHX', 'Phoenix'],
  ['IAH', 'Houston'],
  ['LAS', 'Las Vegas'],
  ['MCO', 'Orlando'],
  ['EWR', 'Newark'],
  ['CLT', 'Charlotte'],
  ['MSP', 'Minneapolis'],
  ['DTW', 'Detroit'],
  ['PHL', 'Philadelphia'],
  ['LGA', 'LaGuardia'],
];
