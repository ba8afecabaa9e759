import { calculate } from '../calculate.js';
import { resolveKey } from '../fold-key.js';
import { ToolError } from '../tool-error.js';
import type { Db, ToolImpl } from '../types.js';
import { AIRPORTS, searchDirect, searchOnestop } from './search.js';

// τ²'s observable choices: the first free id of a short fixed list (at most three bookings or certificates per
// task), and a frozen clock.
const NEW_RESERVATION_IDS = ['HATHAT', 'HATHAU', 'HATHAV'];
const NEW_PAYMENT_NUMBERS = [3221322, 3221323, 3221324];
const NOW = '2024-05-15T15:00:00';
const CABINS = new Set(['business', 'economy', 'basic_economy']);

function user(db: Db, userId: string) {
  const key = resolveKey(db.users, userId);
  if (key === undefined) throw new ToolError(`User ${userId} not found`);
  return db.users[key];
}

function reservation(db: Db, reservationId: string) {
  const key = resolveKey(db.reservations, reservationId);
  if (key === undefined) throw new ToolError(`Reservation ${reservationId} not found`);
  return db.reservations[key];
}

function flight(db: Db, flightNumber: string) {
  const key = resolveKey(db.flights, flightNumber);
  if (key === undefined) throw new ToolError(`Flight ${flightNumber} not found`);
  return db.flights[key];
}

function flightInstance(db: Db, flightNumber: string, date: string) {
  const f = flight(db, flightNumber);
  if (!Object.hasOwn(f.dates, date)) throw new ToolError(`Flight ${flightNumber} not found on date ${date}`);
  return f.dates[date];
}

function cabinOf(value: unknown): string {
  if (typeof value !== 'string' || !CABINS.has(value)) throw new ToolError(`Invalid cabin: ${String(value)}`);
  return value;
}

function flightInfos(flights: unknown): { flight_number: string; date: string }[] {
  if (!Array.isArray(flights)) throw new ToolError('flights must be an array');
  return flights.map((f) => {
    if (typeof f?.flight_number !== 'string' || typeof f?.date !== 'string') {
      throw new ToolError('each flight needs a flight_number and a date');
    }
    return { flight_number: f.flight_number, date: f.date };
  });
}

function passengerList(passengers: unknown): { first_name: string; last_name: string; dob: string }[] {
  if (!Array.isArray(passengers)) throw new ToolError('passengers must be an array');
  return passengers.map((p) => {
    if (typeof p?.first_name !== 'string' || typeof p?.last_name !== 'string' || typeof p?.dob !== 'string') {
      throw new ToolError('each passenger needs first_name, last_name and dob');
    }
    return { first_name: p.first_name, last_name: p.last_name, dob: p.dob };
  });
}

function integer(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ToolError(`${name} must be an integer`);
  return value;
}

/** Payment for a reservation change: certificates refused, gift cards must cover it; a negative price refunds. */
function paymentForUpdate(u: any, paymentId: string, totalPrice: number) {
  if (!Object.hasOwn(u.payment_methods, paymentId)) throw new ToolError('Payment method not found');
  const method = u.payment_methods[paymentId];
  if (method.source === 'certificate') throw new ToolError('Certificate cannot be used to update reservation');
  if (method.source === 'gift_card' && method.amount < totalPrice)
    throw new ToolError('Gift card balance is not enough');
  return () => {
    if (method.source === 'gift_card') method.amount -= totalPrice;
    return totalPrice !== 0 ? { payment_id: paymentId, amount: totalPrice } : undefined;
  };
}

const bookReservation: ToolImpl = (db, a) => {
  const cabin = cabinOf(a.cabin);
  const flights = flightInfos(a.flights);
  const passengers = passengerList(a.passengers);
  if (!Array.isArray(a.payment_methods)) throw new ToolError('payment_methods must be an array');
  const payments = a.payment_methods.map((p: any) => {
    if (typeof p?.payment_id !== 'string') throw new ToolError('each payment needs a payment_id');
    return { payment_id: p.payment_id, amount: integer(p.amount, 'amount') };
  });
  const nonfree = integer(a.nonfree_baggages, 'nonfree_baggages');
  const total = integer(a.total_baggages, 'total_baggages');
  const u = user(db, a.user_id);
  const reservationId = NEW_RESERVATION_IDS.find((id) => !Object.hasOwn(db.reservations, id));
  if (reservationId === undefined) throw new ToolError('Too many reservations');

  let totalPrice = 0;
  const segments: any[] = [];
  const instances: any[] = [];
  for (const info of flights) {
    const f = flight(db, info.flight_number);
    const inst = flightInstance(db, f.flight_number, info.date);
    if (inst.status !== 'available')
      throw new ToolError(`Flight ${f.flight_number} not available on date ${info.date}`);
    if (inst.available_seats[cabin] < passengers.length)
      throw new ToolError(`Not enough seats on flight ${f.flight_number}`);
    const price = inst.prices[cabin];
    segments.push({
      origin: f.origin,
      destination: f.destination,
      flight_number: f.flight_number,
      date: info.date,
      price,
    });
    instances.push(inst);
    totalPrice += price * passengers.length;
  }
  if (a.insurance === 'yes') totalPrice += 30 * passengers.length;
  totalPrice += 50 * nonfree;

  for (const p of payments) {
    if (!Object.hasOwn(u.payment_methods, p.payment_id))
      throw new ToolError(`Payment method ${p.payment_id} not found`);
    const m = u.payment_methods[p.payment_id];
    if ((m.source === 'gift_card' || m.source === 'certificate') && m.amount < p.amount) {
      throw new ToolError(`Not enough balance in payment method ${p.payment_id}`);
    }
  }
  const paid = payments.reduce((s: number, p: { amount: number }) => s + p.amount, 0);
  if (paid !== totalPrice) {
    throw new ToolError(`Payment amount does not add up, total price is ${totalPrice}, but paid ${paid}`);
  }

  for (const p of payments) {
    const m = u.payment_methods[p.payment_id];
    if (m.source === 'gift_card') m.amount -= p.amount;
    else if (m.source === 'certificate') delete u.payment_methods[p.payment_id];
  }
  for (const inst of instances) inst.available_seats[cabin] -= passengers.length;
  const r = {
    reservation_id: reservationId,
    user_id: u.user_id,
    origin: a.origin,
    destination: a.destination,
    flight_type: a.flight_type,
    cabin,
    flights: segments,
    passengers,
    payment_history: payments,
    created_at: NOW,
    total_baggages: total,
    nonfree_baggages: nonfree,
    insurance: a.insurance,
  };
  db.reservations[reservationId] = r;
  u.reservations.push(reservationId);
  return r;
};

const cancelReservation: ToolImpl = (db, a) => {
  const r = reservation(db, a.reservation_id);
  // τ² records negative payments and marks the reservation; it neither refunds balances nor releases seats.
  const refunds = r.payment_history.map((p: any) => ({ payment_id: p.payment_id, amount: -p.amount }));
  r.payment_history.push(...refunds);
  r.status = 'cancelled';
  return r;
};

const updateBaggages: ToolImpl = (db, a) => {
  const total = integer(a.total_baggages, 'total_baggages');
  const nonfree = integer(a.nonfree_baggages, 'nonfree_baggages');
  const r = reservation(db, a.reservation_id);
  const u = user(db, r.user_id);
  const price = 50 * Math.max(0, nonfree - r.nonfree_baggages);
  const payment = paymentForUpdate(u, a.payment_id, price)();
  if (payment) r.payment_history.push(payment);
  r.total_baggages = total;
  r.nonfree_baggages = nonfree;
  return r;
};

const updateFlights: ToolImpl = (db, a) => {
  const cabin = cabinOf(a.cabin);
  const flights = flightInfos(a.flights);
  const r = reservation(db, a.reservation_id);
  const u = user(db, r.user_id);
  const n = r.passengers.length;
  let totalPrice = 0;
  const segments: any[] = [];
  for (const info of flights) {
    const f = flight(db, info.flight_number);
    // A segment kept in the same cabin keeps the price paid for it.
    const kept = r.flights.find(
      (s: any) => s.flight_number === f.flight_number && s.date === info.date && cabin === r.cabin,
    );
    if (kept) {
      totalPrice += kept.price * n;
      segments.push(kept);
      continue;
    }
    const inst = flightInstance(db, f.flight_number, info.date);
    if (inst.status !== 'available')
      throw new ToolError(`Flight ${f.flight_number} not available on date ${info.date}`);
    if (inst.available_seats[cabin] < n) throw new ToolError(`Not enough seats on flight ${f.flight_number}`);
    const seg = {
      flight_number: f.flight_number,
      date: info.date,
      price: inst.prices[cabin],
      origin: f.origin,
      destination: f.destination,
    };
    totalPrice += seg.price * n;
    segments.push(seg);
  }
  totalPrice -= r.flights.reduce((s: number, seg: any) => s + seg.price, 0) * n;
  const payment = paymentForUpdate(u, a.payment_id, totalPrice)();
  if (payment) r.payment_history.push(payment);
  // τ² leaves seat counts alone on a change.
  r.flights = segments;
  r.cabin = cabin;
  return r;
};

const updatePassengers: ToolImpl = (db, a) => {
  const passengers = passengerList(a.passengers);
  const r = reservation(db, a.reservation_id);
  if (passengers.length !== r.passengers.length) throw new ToolError('Number of passengers does not match');
  r.passengers = passengers;
  return r;
};

const sendCertificate: ToolImpl = (db, a) => {
  const u = user(db, a.user_id);
  const amount = a.amount;
  if (typeof amount !== 'number') throw new ToolError('amount must be a number');
  for (const n of NEW_PAYMENT_NUMBERS) {
    const id = `certificate_${n}`;
    if (!Object.hasOwn(u.payment_methods, id)) {
      u.payment_methods[id] = { id, amount, source: 'certificate' };
      return `Certificate ${id} added to user ${a.user_id} with amount ${amount}.`;
    }
  }
  throw new ToolError('Too many certificates');
};

/** The airline tools, named as in `tools.json`. */
export const airlineTools: Record<string, ToolImpl> = {
  book_reservation: bookReservation,
  calculate: (_db, a) => calculate(a.expression),
  cancel_reservation: cancelReservation,
  get_reservation_details: (db, a) => reservation(db, a.reservation_id),
  get_user_details: (db, a) => user(db, a.user_id),
  list_all_airports: () => AIRPORTS.map(([iata, city]) => ({ iata, city })),
  search_direct_flight: (db, a) => searchDirect(db, { date: a.date, origin: a.origin, destination: a.destination }),
  search_onestop_flight: (db, a) => searchOnestop(db, a.origin, a.destination, a.date),
  send_certificate: sendCertificate,
  transfer_to_human_agents: () => 'Transfer successful',
  update_reservation_baggages: updateBaggages,
  update_reservation_flights: updateFlights,
  update_reservation_passengers: updatePassengers,
  get_flight_status: (db, a) => flightInstance(db, a.flight_number, a.date).status,
};
