import type { Synthesis } from '../kit.js';
import type { AirlineDb, Reservation } from './db.js';
import { isNewReservationId } from './facts.js';
import { type AirlineWalkState, airlineWalk } from './walk.js';

const ID_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';

function shiftDate(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** TASTE stage 3 on airline: reservations are the entities; a decoy is the same trip a day or two later. */
export const airlineSynthesis: Synthesis<AirlineDb, Reservation, AirlineWalkState> = {
  entity: { kind: 'reservation', table: 'reservations', idArg: 'reservation_id', lookup: 'get_reservation_details' },
  walk: airlineWalk,
  opener: 'You are calling the airline about your trips.',
  references(db, args, need) {
    if (typeof args.reservation_id === 'string')
      need(Object.hasOwn(db.reservations, args.reservation_id), `reservation ${args.reservation_id}`);
    for (const f of Array.isArray(args.flights) ? args.flights : [])
      need(Object.hasOwn(db.flights, f?.flight_number), `flight ${f?.flight_number}`);
    if (typeof args.flight_number === 'string')
      need(Object.hasOwn(db.flights, args.flight_number), `flight ${args.flight_number}`);
    const owner = args.user_id ?? db.reservations[args.reservation_id]?.user_id;
    const methods = db.users[owner]?.payment_methods ?? {};
    const pays = [
      args.payment_id,
      ...(Array.isArray(args.payment_methods) ? args.payment_methods.map((p) => p?.payment_id) : []),
    ];
    for (const p of pays.filter((x) => typeof x === 'string')) need(Object.hasOwn(methods, p), `payment method ${p}`);
  },
  decoys: {
    newId: (rng) => Array.from({ length: 6 }, () => ID_ALPHABET[rng.int(ID_ALPHABET.length)]).join(''),
    reserved: isNewReservationId,
    twin(_base, r, id, rng) {
      const days = 1 + rng.int(2);
      const twin = structuredClone(r);
      twin.reservation_id = id;
      twin.flights = twin.flights.map((f) => ({ ...f, date: shiftDate(f.date, days) }));
      return { record: twin, how: `same trip ${days} day(s) later` };
    },
  },
};
