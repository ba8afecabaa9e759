import { defineModel, t } from '../../py/model.js';

/** τ²'s airline data model (`tau2/domains/airline/data_model.py`), field by field in its order. */

const cabin = t.lit('business', 'economy', 'basic_economy');
const perCabin = t.dict(cabin, t.int);

export const AirportCode = defineModel('AirportCode', { iata: t.str, city: t.str });
export const Name = defineModel('Name', { first_name: t.str, last_name: t.str });
export const Address = defineModel('Address', {
  address1: t.str,
  address2: [t.opt(t.str), () => null],
  city: t.str,
  country: t.str,
  state: t.str,
  zip: t.str,
});
export const Payment = defineModel('Payment', { payment_id: t.str, amount: t.int });
// A subclass keeps its base's field order (source, id), whichever fields it redeclares.
export const CreditCard = defineModel('CreditCard', {
  source: t.lit('credit_card'),
  id: t.str,
  brand: t.str,
  last_four: t.str,
});
export const GiftCard = defineModel('GiftCard', { source: t.lit('gift_card'), id: t.str, amount: t.float });
export const Certificate = defineModel('Certificate', { source: t.lit('certificate'), id: t.str, amount: t.float });
export const Passenger = defineModel('Passenger', { first_name: t.str, last_name: t.str, dob: t.str });

export const FlightDateStatusAvailable = defineModel('FlightDateStatusAvailable', {
  status: t.lit('available'),
  available_seats: perCabin,
  prices: perCabin,
});
const FlightDataStatusOnTime = defineModel('FlightDataStatusOnTime', {
  status: t.lit('on time'),
  estimated_departure_time_est: t.str,
  estimated_arrival_time_est: t.str,
});
const FlightDataStatusFlying = defineModel('FlightDataStatusFlying', {
  status: t.lit('flying'),
  actual_departure_time_est: t.str,
  estimated_arrival_time_est: t.str,
});
const FlightDateStatusLanded = defineModel('FlightDateStatusLanded', {
  status: t.lit('landed'),
  actual_departure_time_est: t.str,
  actual_arrival_time_est: t.str,
});
const FlightDateStatusCancelled = defineModel('FlightDateStatusCancelled', { status: t.lit('cancelled') });
const FlightDateStatusDelayed = defineModel('FlightDateStatusDelayed', {
  status: t.lit('delayed'),
  estimated_departure_time_est: t.str,
  estimated_arrival_time_est: t.str,
});
const flightDateStatus = t.union(
  t.model(() => FlightDateStatusAvailable),
  t.model(() => FlightDateStatusLanded),
  t.model(() => FlightDateStatusCancelled),
  t.model(() => FlightDateStatusDelayed),
  t.model(() => FlightDataStatusFlying),
  t.model(() => FlightDataStatusOnTime),
);

const flightBase = { flight_number: t.str, origin: t.str, destination: t.str };
export const Flight = defineModel('Flight', {
  ...flightBase,
  scheduled_departure_time_est: t.str,
  scheduled_arrival_time_est: t.str,
  dates: t.dict(t.str, flightDateStatus),
});
export const DirectFlight = defineModel('DirectFlight', {
  ...flightBase,
  status: t.lit('available'),
  scheduled_departure_time_est: t.str,
  scheduled_arrival_time_est: t.str,
  date: [t.opt(t.str), () => null],
  available_seats: perCabin,
  prices: perCabin,
});
export const ReservationFlight = defineModel('ReservationFlight', { ...flightBase, date: t.str, price: t.int });
export const FlightInfo = defineModel('FlightInfo', { flight_number: t.str, date: t.str });

export const User = defineModel('User', {
  user_id: t.str,
  name: t.model(() => Name),
  address: t.model(() => Address),
  email: t.str,
  dob: t.str,
  payment_methods: t.dict(
    t.str,
    t.union(
      t.model(() => CreditCard),
      t.model(() => GiftCard),
      t.model(() => Certificate),
    ),
  ),
  saved_passengers: t.list(t.model(() => Passenger)),
  membership: t.lit('gold', 'silver', 'regular'),
  reservations: t.list(t.str),
});

export const Reservation = defineModel('Reservation', {
  reservation_id: t.str,
  user_id: t.str,
  origin: t.str,
  destination: t.str,
  flight_type: t.lit('round_trip', 'one_way'),
  cabin,
  flights: t.list(t.model(() => ReservationFlight)),
  passengers: t.list(t.model(() => Passenger)),
  payment_history: t.list(t.model(() => Payment)),
  created_at: t.str,
  total_baggages: t.int,
  nonfree_baggages: t.int,
  insurance: t.lit('yes', 'no'),
  status: [t.opt(t.lit('cancelled')), () => null],
});

/** `FlightDB` (a `DB`: extra fields forbidden). */
export const FlightDB = defineModel(
  'FlightDB',
  {
    flights: t.dict(
      t.str,
      t.model(() => Flight),
    ),
    users: t.dict(
      t.str,
      t.model(() => User),
    ),
    reservations: t.dict(
      t.str,
      t.model(() => Reservation),
    ),
  },
  'forbid',
);
