import { type DomainTools, defineTools, type ToolDef, ToolState, tool } from '../../environment/toolkit.js';
import { attr, contains, getItem, iterate, len, max2, sum } from '../../py/builtins.js';
import { pyValueError } from '../../py/errors.js';
import { construct, make } from '../../py/model.js';
import { arith, compare, dictKey, eq, iadd, isub, neg, truthy } from '../../py/ops.js';
import { str } from '../../py/repr.js';
import { deepCopy, isDict, type PyModel, type PyValue } from '../../py/values.js';
import { calculateTool } from '../calculate.js';
import { AIRPORTS, NEW_CERTIFICATE_NUMBERS, NEW_RESERVATION_IDS, NOW } from './facts.js';
import {
  AirportCode,
  Certificate,
  DirectFlight,
  FlightDateStatusAvailable,
  FlightDB,
  FlightInfo,
  Passenger,
  Payment,
  Reservation,
  ReservationFlight,
} from './models.js';

/** `AirlineTools` (tau2/domains/airline/tools.py), ported line by line over the Python world of `../py/`. */
export class AirlineTools extends ToolState {
  private record(table: string, key: PyValue, missing: string, write: boolean): PyModel {
    const t = this.dbs.table(table);
    if (!contains(t, key)) throw pyValueError(missing);
    const k = dictKey(key) as string;
    return write ? this.dbs.own(table, k) : (t.get(k) as PyModel);
  }

  /** `_get_user`; `write` when the tool may change what it returns (then it is this environment's copy). */
  user(userId: PyValue, write = false): PyModel {
    return this.record('users', userId, `User ${str(userId)} not found`, write);
  }

  reservation(reservationId: PyValue, write = false): PyModel {
    return this.record('reservations', reservationId, `Reservation ${str(reservationId)} not found`, write);
  }

  flight(flightNumber: PyValue, write = false): PyModel {
    return this.record('flights', flightNumber, `Flight ${str(flightNumber)} not found`, write);
  }

  flightInstance(flightNumber: PyValue, date: PyValue, write = false): PyModel {
    const flight = this.flight(flightNumber, write);
    const dates = flight.get('dates') as Map<string, PyValue>;
    if (!contains(dates, date)) throw pyValueError(`Flight ${str(flightNumber)} not found on date ${str(date)}`);
    return getItem(dates, date) as PyModel;
  }

  newReservationId(): string {
    for (const id of NEW_RESERVATION_IDS) if (!contains(this.dbs.table('reservations'), id)) return id;
    throw pyValueError('Too many reservations');
  }

  /** `_search_direct_flight`: reads every flight, changes none (so the shared records are read directly). */
  searchDirect(date: PyValue, origin: PyValue, destination: PyValue, leaveAfter: PyValue = null): PyModel[] {
    const results: PyModel[] = [];
    for (const flight of this.dbs.table('flights').values() as Iterable<PyModel>) {
      const dates = flight.get('dates') as Map<string, PyValue>;
      const check =
        (origin === null || eq(flight.get('origin'), origin)) &&
        (destination === null || eq(flight.get('destination'), destination)) &&
        contains(dates, date) &&
        eq(attr(getItem(dates, date), 'status'), 'available') &&
        (leaveAfter === null || compareGe(flight.get('scheduled_departure_time_est'), leaveAfter));
      if (!check) continue;
      const inst = getItem(dates, date) as PyModel;
      results.push(
        make(DirectFlight, {
          flight_number: flight.get('flight_number'),
          origin: flight.get('origin'),
          destination: flight.get('destination'),
          status: 'available',
          scheduled_departure_time_est: flight.get('scheduled_departure_time_est'),
          scheduled_arrival_time_est: flight.get('scheduled_arrival_time_est'),
          available_seats: attr(inst, 'available_seats'),
          prices: attr(inst, 'prices'),
        }),
      );
    }
    return results;
  }

  /** `_payment_for_update`. */
  paymentForUpdate(user: PyModel, paymentId: PyValue, totalPrice: PyValue): PyModel | null {
    const methods = user.get('payment_methods') as Map<string, PyValue>;
    if (!contains(methods, paymentId)) throw pyValueError('Payment method not found');
    const method = getItem(methods, paymentId) as PyModel;
    const source = method.get('source');
    if (eq(source, 'certificate')) throw pyValueError('Certificate cannot be used to update reservation');
    if (eq(source, 'gift_card') && compareLt(method.get('amount'), totalPrice))
      throw pyValueError('Gift card balance is not enough');
    if (eq(source, 'gift_card')) method.set('amount', isub(method.get('amount'), totalPrice));
    return !eq(totalPrice, 0) ? make(Payment, { payment_id: paymentId, amount: totalPrice }) : null;
  }
}

const compareLt = (a: PyValue, b: PyValue) => compare(a, b, '<');
const compareGe = (a: PyValue, b: PyValue) => compare(a, b, '>=');

type Tool = ToolDef<AirlineTools>;

/** `[Model(**x) for x in xs]` when every item is a dict, else the list as given (τ²'s tolerance of models). */
function modelsIfDicts(xs: PyValue, cls: typeof FlightInfo): PyValue {
  const items = iterate(xs);
  if (!items.every(isDict)) return xs;
  return items.map((x) => construct(cls, x as Map<string, PyValue>));
}

const bookReservation: Tool = tool(
  'write',
  [
    'user_id',
    'origin',
    'destination',
    'flight_type',
    'cabin',
    'flights',
    'passengers',
    'payment_methods',
    'total_baggages',
    'nonfree_baggages',
    'insurance',
  ],
  (self, a) => {
    const flights = modelsIfDicts(a.get('flights') as PyValue, FlightInfo);
    const passengers = modelsIfDicts(a.get('passengers') as PyValue, Passenger);
    const paymentMethods = modelsIfDicts(a.get('payment_methods') as PyValue, Payment);
    const userId = a.get('user_id') as PyValue;
    const cabin = a.get('cabin') as PyValue;
    const insurance = a.get('insurance') as PyValue;
    const user = self.user(userId, true);
    const reservationId = self.newReservationId();
    const reservation = make(Reservation, {
      reservation_id: reservationId,
      user_id: userId,
      origin: a.get('origin') as PyValue,
      destination: a.get('destination') as PyValue,
      flight_type: a.get('flight_type') as PyValue,
      cabin,
      flights: [],
      passengers: deepCopy(passengers),
      payment_history: deepCopy(paymentMethods),
      created_at: NOW,
      total_baggages: a.get('total_baggages') as PyValue,
      nonfree_baggages: a.get('nonfree_baggages') as PyValue,
      insurance,
    });

    let totalPrice: PyValue = 0;
    const allFlightsDateData: PyModel[] = [];
    for (const flightInfo of iterate(flights)) {
      const flightNumber = attr(flightInfo, 'flight_number');
      const flight = self.flight(flightNumber, true);
      const flightDateData = self.flightInstance(flightNumber, attr(flightInfo, 'date'), true);
      if (flightDateData.cls !== FlightDateStatusAvailable)
        throw pyValueError(`Flight ${str(flightNumber)} not available on date ${str(attr(flightInfo, 'date'))}`);
      const seats = flightDateData.get('available_seats') as Map<string, PyValue>;
      if (compareLt(getItem(seats, cabin), len(passengers)))
        throw pyValueError(`Not enough seats on flight ${str(flightNumber)}`);
      const price = getItem(flightDateData.get('prices') as Map<string, PyValue>, cabin);
      (reservation.get('flights') as PyValue[]).push(
        make(ReservationFlight, {
          origin: flight.get('origin'),
          destination: flight.get('destination'),
          flight_number: flightNumber,
          date: attr(flightInfo, 'date'),
          price,
        }),
      );
      allFlightsDateData.push(flightDateData);
      totalPrice = iadd(totalPrice, arith(price, len(passengers), '*'));
    }
    if (eq(insurance, 'yes')) totalPrice = iadd(totalPrice, arith(30, len(passengers), '*'));
    totalPrice = iadd(totalPrice, arith(50, a.get('nonfree_baggages') as PyValue, '*'));

    const methods = user.get('payment_methods') as Map<string, PyValue>;
    for (const pm of iterate(paymentMethods)) {
      const paymentId = attr(pm, 'payment_id');
      const amount = attr(pm, 'amount');
      if (!contains(methods, paymentId)) throw pyValueError(`Payment method ${str(paymentId)} not found`);
      const userMethod = getItem(methods, paymentId) as PyModel;
      const source = userMethod.get('source');
      if ((eq(source, 'gift_card') || eq(source, 'certificate')) && compareLt(userMethod.get('amount'), amount))
        throw pyValueError(`Not enough balance in payment method ${str(paymentId)}`);
    }
    const totalPayment = sum(iterate(paymentMethods).map((p) => attr(p, 'amount')));
    if (!eq(totalPayment, totalPrice))
      throw pyValueError(
        `Payment amount does not add up, total price is ${str(totalPrice)}, but paid ${str(totalPayment)}`,
      );
    for (const pm of iterate(paymentMethods)) {
      const paymentId = attr(pm, 'payment_id');
      const amount = attr(pm, 'amount');
      const userMethod = getItem(methods, paymentId) as PyModel;
      const source = userMethod.get('source');
      if (eq(source, 'gift_card')) userMethod.set('amount', isub(userMethod.get('amount'), amount));
      else if (eq(source, 'certificate')) methods.delete(dictKey(paymentId) as string);
    }
    for (const d of allFlightsDateData) {
      const seats = d.get('available_seats') as Map<string, PyValue>;
      seats.set(dictKey(cabin) as string, isub(getItem(seats, cabin), len(passengers)));
    }
    self.dbs.table('reservations').set(reservationId, reservation);
    self.dbs.adopt(reservation);
    (self.user(userId, true).get('reservations') as PyValue[]).push(reservationId);
    return reservation;
  },
);

const cancelReservation: Tool = tool('write', ['reservation_id'], (self, a) => {
  const reservation = self.reservation(a.get('reservation_id') as PyValue, true);
  const history = reservation.get('payment_history') as PyValue[];
  const refunds = iterate(history).map((p) =>
    make(Payment, { payment_id: attr(p, 'payment_id'), amount: neg(attr(p, 'amount')) }),
  );
  history.push(...refunds);
  reservation.set('status', 'cancelled');
  return reservation;
});

const updateBaggages: Tool = tool(
  'write',
  ['reservation_id', 'total_baggages', 'nonfree_baggages', 'payment_id'],
  (self, a) => {
    const reservation = self.reservation(a.get('reservation_id') as PyValue, true);
    const user = self.user(reservation.get('user_id'), true);
    const nonfree = a.get('nonfree_baggages') as PyValue;
    const totalPrice = arith(50, max2(0, arith(nonfree, reservation.get('nonfree_baggages'), '-')), '*');
    const payment = self.paymentForUpdate(user, a.get('payment_id') as PyValue, totalPrice);
    if (payment !== null) (reservation.get('payment_history') as PyValue[]).push(payment);
    reservation.set('total_baggages', a.get('total_baggages') as PyValue);
    reservation.set('nonfree_baggages', nonfree);
    return reservation;
  },
);

const updateFlights: Tool = tool('write', ['reservation_id', 'cabin', 'flights', 'payment_id'], (self, a) => {
  const flights = modelsIfDicts(a.get('flights') as PyValue, FlightInfo);
  const cabin = a.get('cabin') as PyValue;
  const reservation = self.reservation(a.get('reservation_id') as PyValue, true);
  const user = self.user(reservation.get('user_id'), true);
  const passengers = () => len(reservation.get('passengers'));
  let totalPrice: PyValue = 0;
  const reservationFlights: PyValue[] = [];
  for (const flightInfo of iterate(flights)) {
    const matching = iterate(reservation.get('flights')).find(
      (rf) =>
        eq(attr(rf, 'flight_number'), attr(flightInfo, 'flight_number')) &&
        eq(attr(rf, 'date'), attr(flightInfo, 'date')) &&
        eq(cabin, reservation.get('cabin')),
    );
    if (matching !== undefined && truthy(matching)) {
      totalPrice = iadd(totalPrice, arith(attr(matching, 'price'), passengers(), '*'));
      reservationFlights.push(matching);
      continue;
    }
    const flightNumber = attr(flightInfo, 'flight_number');
    const date = attr(flightInfo, 'date');
    const flight = self.flight(flightNumber);
    const flightDateData = self.flightInstance(flightNumber, date);
    if (flightDateData.cls !== FlightDateStatusAvailable)
      throw pyValueError(`Flight ${str(flightNumber)} not available on date ${str(date)}`);
    if (compareLt(getItem(flightDateData.get('available_seats') as Map<string, PyValue>, cabin), passengers()))
      throw pyValueError(`Not enough seats on flight ${str(flightNumber)}`);
    const reservationFlight = make(ReservationFlight, {
      flight_number: flightNumber,
      date,
      price: getItem(flightDateData.get('prices') as Map<string, PyValue>, cabin),
      origin: flight.get('origin'),
      destination: flight.get('destination'),
    });
    totalPrice = iadd(totalPrice, arith(reservationFlight.get('price'), passengers(), '*'));
    reservationFlights.push(reservationFlight);
  }
  const paid = sum(iterate(reservation.get('flights')).map((f) => attr(f, 'price')));
  totalPrice = isub(totalPrice, arith(paid, passengers(), '*'));
  const payment = self.paymentForUpdate(user, a.get('payment_id') as PyValue, totalPrice);
  if (payment !== null) (reservation.get('payment_history') as PyValue[]).push(payment);
  reservation.set('flights', reservationFlights);
  reservation.set('cabin', cabin);
  return reservation;
});

const updatePassengers: Tool = tool('write', ['reservation_id', 'passengers'], (self, a) => {
  const passengers = modelsIfDicts(a.get('passengers') as PyValue, Passenger);
  const reservation = self.reservation(a.get('reservation_id') as PyValue, true);
  if (!eq(len(passengers), len(reservation.get('passengers'))))
    throw pyValueError('Number of passengers does not match');
  reservation.set('passengers', deepCopy(passengers));
  return reservation;
});

const sendCertificate: Tool = tool('write', ['user_id', 'amount'], (self, a) => {
  const userId = a.get('user_id') as PyValue;
  const amount = a.get('amount') as PyValue;
  const user = self.user(userId, true);
  const methods = user.get('payment_methods') as Map<string, PyValue>;
  for (const n of NEW_CERTIFICATE_NUMBERS) {
    const paymentId = `certificate_${n}`;
    if (contains(methods, paymentId)) continue;
    methods.set(paymentId, make(Certificate, { id: paymentId, amount, source: 'certificate' }));
    return `Certificate ${paymentId} added to user ${str(userId)} with amount ${str(amount)}.`;
  }
  throw pyValueError('Too many certificates');
});

/** `AirlineTools`' tools, named as in tools.json. */
export const airlineTools: Readonly<Record<string, Tool>> = {
  book_reservation: bookReservation,
  calculate: calculateTool(),
  cancel_reservation: cancelReservation,
  get_reservation_details: tool('read', ['reservation_id'], (self, a) =>
    self.reservation(a.get('reservation_id') as PyValue),
  ),
  get_user_details: tool('read', ['user_id'], (self, a) => self.user(a.get('user_id') as PyValue)),
  list_all_airports: tool('read', [], () => AIRPORTS.map(([iata, city]) => make(AirportCode, { iata, city }))),
  search_direct_flight: tool('read', ['origin', 'destination', 'date'], (self, a) =>
    self.searchDirect(a.get('date') as PyValue, a.get('origin') as PyValue, a.get('destination') as PyValue),
  ),
  search_onestop_flight: tool('read', ['origin', 'destination', 'date'], (self, a) => {
    const date = a.get('date') as PyValue;
    const results: PyValue[] = [];
    for (const result1 of self.searchDirect(date, a.get('origin') as PyValue, null)) {
      result1.set('date', date);
      const arrival = result1.get('scheduled_arrival_time_est');
      const date2 = contains(arrival, '+1') ? `2024-05-${Number.parseInt((date as string).slice(-2), 10) + 1}` : date;
      for (const result2 of self.searchDirect(
        date2,
        result1.get('destination'),
        a.get('destination') as PyValue,
        arrival,
      )) {
        result2.set('date', date2);
        results.push([result1, result2]);
      }
    }
    return results;
  }),
  send_certificate: sendCertificate,
  transfer_to_human_agents: tool('generic', ['summary'], () => 'Transfer successful'),
  update_reservation_baggages: updateBaggages,
  update_reservation_flights: updateFlights,
  update_reservation_passengers: updatePassengers,
  get_flight_status: tool('read', ['flight_number', 'date'], (self, a) =>
    self.flightInstance(a.get('flight_number') as PyValue, a.get('date') as PyValue).get('status'),
  ),
};

/** The airline's executable part: one toolkit over `db.json`. */
export const airlineDomainTools: DomainTools = defineTools({
  agent: {
    toolkit: { className: 'AirlineTools', tools: airlineTools },
    model: FlightDB,
    file: 'db.json',
    state: (dbs, ctx) => new AirlineTools(dbs, ctx),
  },
});
