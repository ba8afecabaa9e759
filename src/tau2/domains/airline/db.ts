/** The airline database as τ²'s `FlightDB` defines it (`db.json`: flights, users, reservations, keyed by id). */
export interface AirlineDb {
  flights: Record<string, Flight>;
  users: Record<string, User>;
  reservations: Record<string, Reservation>;
}

export type Cabin = 'business' | 'economy' | 'basic_economy';
export type Membership = 'gold' | 'silver' | 'regular';
/** Seats or prices per cabin. */
export type PerCabin = Record<Cabin, number>;

export interface Name {
  first_name: string;
  last_name: string;
}

export interface Address {
  address1: string;
  address2?: string | null;
  city: string;
  country: string;
  state: string;
  zip: string;
}

export interface Passenger {
  first_name: string;
  last_name: string;
  dob: string;
}

export type PaymentMethod =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'gift_card'; id: string; amount: number }
  | { source: 'certificate'; id: string; amount: number };

export interface User {
  user_id: string;
  name: Name;
  address: Address;
  email: string;
  dob: string;
  payment_methods: Record<string, PaymentMethod>;
  saved_passengers: Passenger[];
  membership: Membership;
  reservations: string[];
}

/** A flight on one date: bookable ("available") with seats and prices, or past/underway with its times. */
export type FlightDate =
  | { status: 'available'; available_seats: PerCabin; prices: PerCabin }
  | { status: 'cancelled' }
  | { status: 'on time' | 'delayed'; estimated_departure_time_est: string; estimated_arrival_time_est: string }
  | { status: 'flying'; actual_departure_time_est: string; estimated_arrival_time_est: string }
  | { status: 'landed'; actual_departure_time_est: string; actual_arrival_time_est: string };

/** What every view of a flight names (τ²'s `FlightBase`). */
export interface FlightBase {
  flight_number: string;
  origin: string;
  destination: string;
}

export interface Flight extends FlightBase {
  /** `HH:MM:SS`, with `+1` when the flight lands the next day. */
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  /** By date, `YYYY-MM-DD`. */
  dates: Record<string, FlightDate>;
}

export interface ReservationFlight extends FlightBase {
  date: string;
  price: number;
}

export interface Payment {
  payment_id: string;
  amount: number;
}

export interface Reservation {
  reservation_id: string;
  user_id: string;
  origin: string;
  destination: string;
  flight_type: 'round_trip' | 'one_way';
  cabin: Cabin;
  flights: ReservationFlight[];
  passengers: Passenger[];
  payment_history: Payment[];
  created_at: string;
  total_baggages: number;
  nonfree_baggages: number;
  insurance: 'yes' | 'no';
  status?: 'cancelled' | null;
}

/** A bookable flight as the search tools return it (τ²'s `DirectFlight`). */
export interface DirectFlight extends FlightBase {
  status: 'available';
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  /** Set by the one-stop search only. */
  date: string | null;
  available_seats: PerCabin;
  prices: PerCabin;
}
