import type { ToolArgs } from '../../data_model/types.js';
import { type CallNote, spoken, Unfit, type Walk, type WalkRules } from '../kit.js';
import type { AirlineDb, DirectFlight, Reservation, User } from './db.js';
import { BAG_FEE, DELAY_CERTIFICATE_PER_PASSENGER, FREE_BAGS, NEW_RESERVATION_IDS, NOW, TODAY } from './facts.js';

const RESERVATION_WRITES: ReadonlySet<string> = new Set([
  'cancel_reservation',
  'update_reservation_flights',
  'update_reservation_baggages',
  'update_reservation_passengers',
  'send_certificate',
]);
const NEW_PEOPLE = [
  { first_name: 'Nadia', last_name: 'Okafor', dob: '1988-02-14' },
  { first_name: 'Tomas', last_name: 'Lindqvist', dob: '1975-09-30' },
  { first_name: 'Priya', last_name: 'Raman', dob: '1993-06-07' },
  { first_name: 'Diego', last_name: 'Alvarez', dob: '1969-12-01' },
  { first_name: 'Hana', last_name: 'Sato', dob: '2001-03-22' },
];

interface Search {
  origin: string;
  destination: string;
  date: string;
  flights: DirectFlight[];
}

/** What an airline walk remembers besides its entities. */
export interface AirlineWalkState {
  user: User;
  lastSearch: Search | undefined;
  certificateSent: boolean;
  /** What the user asks the last calculation for (its words match what the expression adds up). */
  calculationIntent?: string;
}

type AirlineWalk = Walk<AirlineDb, Reservation, AirlineWalkState>;

const future = (r: Reservation) => r.flights.every((f) => f.date > TODAY);
const hoursSince = (iso: string) => (Date.parse(`${NOW}Z`) - Date.parse(`${iso}Z`)) / 3_600_000;
/** Policy: cancellable when booked within 24 h, business, or insured (the reason given is then health). */
const cancellable = (r: Reservation) =>
  r.status !== 'cancelled' &&
  future(r) &&
  (hoursSince(r.created_at) <= 24 || r.cabin === 'business' || r.insurance === 'yes');
const modifiable = (r: Reservation) => r.status !== 'cancelled' && future(r) && r.cabin !== 'basic_economy';
const open = (r: Reservation) => r.status !== 'cancelled' && future(r);

function route(r: Reservation): string {
  const f = r.flights[0];
  return `${r.origin} to ${r.destination} on ${f?.date ?? '?'}`;
}

/** The user's payment methods that can pay `amount`: credit cards, then gift cards holding it, by id. */
function payments(user: User, amount: number): string[] {
  const methods = Object.values(user.payment_methods);
  const cards = methods.filter((m) => m.source === 'credit_card').map((m) => m.id);
  const gifts = methods.filter((m) => m.source === 'gift_card' && m.amount >= amount).map((m) => m.id);
  return [...cards, ...gifts].sort();
}

function randomFlight(w: AirlineWalk, index: number): { origin: string; destination: string; date: string } {
  const flights = Object.values(w.ctx.base.flights);
  for (let tries = 0; tries < 200; tries++) {
    const f = flights[w.ctx.rng.int(flights.length)];
    const dates = Object.keys(f.dates).filter((d) => d > TODAY && f.dates[d].status === 'available');
    if (dates.length) return { origin: f.origin, destination: f.destination, date: dates[w.ctx.rng.int(dates.length)] };
  }
  throw new Unfit('search_direct_flight', index, 'no bookable flight found');
}

function oneStops(w: AirlineWalk, index: number): ToolArgs[] {
  const flights = Object.values(w.ctx.base.flights);
  const out: ToolArgs[] = [];
  for (let tries = 0; tries < 300 && out.length < 3; tries++) {
    const f1 = flights[w.ctx.rng.int(flights.length)];
    const date = Object.keys(f1.dates).find((d) => d > TODAY && f1.dates[d].status === 'available');
    if (!date) continue;
    const f2 = flights.find(
      (f) => f.origin === f1.destination && f.destination !== f1.origin && f.dates[date]?.status === 'available',
    );
    if (f2) out.push({ origin: f1.origin, destination: f2.destination, date });
  }
  if (!out.length) throw new Unfit('search_onestop_flight', index, 'no one-stop connection found');
  return out;
}

function flightStatus(w: AirlineWalk, index: number): ToolArgs[] {
  const r = w.focus ? w.entity(w.focus) : undefined;
  if (r) return r.flights.map((f) => ({ flight_number: f.flight_number, date: f.date }));
  const s = w.state.lastSearch;
  if (s?.flights.length) return [{ flight_number: s.flights[0].flight_number, date: s.date }];
  const q = randomFlight(w, index);
  const f = Object.values(w.ctx.base.flights).find(
    (x) => x.origin === q.origin && x.destination === q.destination && x.dates[q.date],
  );
  return [{ flight_number: f!.flight_number, date: q.date }];
}

/** An expression summing amounts as a person writes it (`330 + 330 - 50`). */
const sumOf = (amounts: number[]) =>
  amounts.map((a, k) => (k === 0 ? String(a) : a < 0 ? `- ${-a}` : `+ ${a}`)).join(' ');

function calculation(w: AirlineWalk): ToolArgs[] {
  const r = w.focus ? w.entity(w.focus) : undefined;
  if (r?.payment_history.length) {
    // What the user paid is what the payment history adds up to (fare, insurance and bags, less refunds).
    w.state.calculationIntent = `You want to know how much you paid in total for your reservation for ${route(r)}, as one number.`;
    return [{ expression: sumOf(r.payment_history.map((p) => p.amount)) }];
  }
  const f = w.state.lastSearch?.flights[0];
  if (f) {
    w.state.calculationIntent = `You want to know what an economy seat and a business seat on flight ${f.flight_number} cost together, as one number.`;
    return [{ expression: `${f.prices.economy} + ${f.prices.business}` }];
  }
  const fare = 50 + w.ctx.rng.int(10) * 10;
  w.state.calculationIntent = `You want to know what two tickets at $${fare} each cost together, as one number.`;
  return [{ expression: `${fare} * 2` }];
}

function bookings(w: AirlineWalk, index: number): ToolArgs[] {
  const { base } = w.ctx;
  const { user, lastSearch } = w.state;
  const self = { first_name: user.name.first_name, last_name: user.name.last_name, dob: user.dob };
  const options: { flight_number: string; date: string; origin: string; destination: string }[] = [];
  if (lastSearch)
    for (const f of lastSearch.flights)
      options.push({
        flight_number: f.flight_number,
        date: lastSearch.date,
        origin: f.origin,
        destination: f.destination,
      });
  for (let k = 0; k < 4; k++) {
    const q = randomFlight(w, index);
    const f = Object.values(base.flights).find(
      (x) => x.origin === q.origin && x.destination === q.destination && x.dates[q.date]?.status === 'available',
    );
    if (f) options.push({ flight_number: f.flight_number, date: q.date, origin: f.origin, destination: f.destination });
  }
  const out: ToolArgs[] = [];
  for (const o of options) {
    const inst = base.flights[o.flight_number]?.dates[o.date];
    // Every option was bookable on that date (a search result or a flight just checked).
    if (inst?.status !== 'available') continue;
    const cabin = inst.available_seats.economy > 2 ? 'economy' : 'business';
    const price = inst.prices[cabin];
    for (const p of payments(user, price)) {
      out.push({
        user_id: w.subject,
        origin: o.origin,
        destination: o.destination,
        flight_type: 'one_way',
        cabin,
        flights: [{ flight_number: o.flight_number, date: o.date }],
        passengers: [self],
        payment_methods: [{ payment_id: p, amount: price }],
        total_baggages: 0,
        nonfree_baggages: 0,
        insurance: 'no',
      });
    }
  }
  if (!out.length) throw new Unfit('book_reservation', index, `user ${w.subject} cannot pay for any flight`);
  return out;
}

function flightChanges(w: AirlineWalk, index: number): ToolArgs[] {
  const r = w.target('update_reservation_flights', index);
  const keep = r.flights.map((f) => ({ flight_number: f.flight_number, date: f.date }));
  const variants: { cabin: string; flights: { flight_number: string; date: string }[] }[] = [];
  const s = w.state.lastSearch;
  if (s) {
    r.flights.forEach((seg, k) => {
      if (seg.origin !== s.origin || seg.destination !== s.destination || seg.date !== s.date) return;
      for (const alt of s.flights) {
        if (alt.flight_number === seg.flight_number || (alt.available_seats[r.cabin] ?? 0) < r.passengers.length)
          continue;
        const flights = keep.map((f, j) => (j === k ? { flight_number: alt.flight_number, date: s.date } : f));
        variants.push({ cabin: r.cabin, flights });
      }
    });
  }
  variants.push({ cabin: r.cabin === 'business' ? 'economy' : 'business', flights: keep });
  const out: ToolArgs[] = [];
  const methods = payments(w.state.user, Number.POSITIVE_INFINITY).concat(payments(w.state.user, 0));
  for (const v of variants)
    for (const p of methods)
      out.push({ reservation_id: r.reservation_id, cabin: v.cabin, flights: v.flights, payment_id: p });
  const unique = new Map(out.map((a) => [JSON.stringify(a), a]));
  return [...unique.values()];
}

function baggages(w: AirlineWalk, index: number): ToolArgs[] {
  const r = w.target('update_reservation_baggages', index);
  const membership = w.state.user.membership ?? 'regular';
  const free = (FREE_BAGS[membership]?.[r.cabin] ?? 0) * r.passengers.length;
  const total = r.total_baggages + 1 + w.ctx.rng.int(2);
  const nonfree = Math.max(r.nonfree_baggages, total - free);
  const cost = BAG_FEE * Math.max(0, nonfree - r.nonfree_baggages);
  return payments(w.state.user, cost).map((p) => ({
    reservation_id: r.reservation_id,
    total_baggages: total,
    nonfree_baggages: nonfree,
    payment_id: p,
  }));
}

function candidates(w: AirlineWalk, tool: string, index: number): ToolArgs[] {
  switch (tool) {
    case 'get_user_details':
      return [{ user_id: w.subject }];
    case 'list_all_airports':
      return [{}];
    case 'search_direct_flight': {
      const write = w.nextWrite(index);
      const r = w.focus ? w.entity(w.focus) : undefined;
      if (r && write === 'update_reservation_flights' && modifiable(r)) {
        const seg = r.flights[0];
        return [{ origin: seg.origin, destination: seg.destination, date: seg.date }];
      }
      return [randomFlight(w, index)];
    }
    case 'search_onestop_flight':
      return oneStops(w, index);
    case 'get_flight_status':
      return flightStatus(w, index);
    case 'calculate':
      return calculation(w);
    case 'book_reservation':
      return bookings(w, index);
    case 'cancel_reservation':
      return [{ reservation_id: w.target(tool, index).reservation_id }];
    case 'update_reservation_baggages':
      return baggages(w, index);
    case 'update_reservation_passengers': {
      const r = w.target(tool, index);
      const who = NEW_PEOPLE[w.ctx.rng.int(NEW_PEOPLE.length)];
      const passengers = r.passengers.map((p) => ({ first_name: p.first_name, last_name: p.last_name, dob: p.dob }));
      passengers[passengers.length - 1] = { ...who };
      return [{ reservation_id: r.reservation_id, passengers }];
    }
    case 'update_reservation_flights':
      return flightChanges(w, index);
    case 'send_certificate': {
      if (w.state.certificateSent) throw new Unfit(tool, index, 'a second certificate breaks policy');
      const r = w.target(tool, index);
      return [{ user_id: w.subject, amount: DELAY_CERTIFICATE_PER_PASSENGER * r.passengers.length }];
    }
    case 'transfer_to_human_agents':
      return [{ summary: `User ${w.subject} asks for help the policy does not allow an agent to give; transferring.` }];
    default:
      throw new Unfit(tool, index, 'no instantiation rule for this tool');
  }
}

function accept(w: AirlineWalk, tool: string, args: ToolArgs, result: unknown): CallNote | undefined {
  switch (tool) {
    case 'get_user_details': {
      const { unknown } = w.ctx.notes;
      if (!unknown.length) unknown.push('You do not remember your reservation ids.');
      return undefined;
    }
    case 'get_reservation_details':
      return { intent: `You want to go over your reservation for ${route(result as Reservation)}.` };
    case 'search_direct_flight':
    case 'search_onestop_flight': {
      if (tool === 'search_direct_flight')
        w.state.lastSearch = { ...(args as Search), flights: result as DirectFlight[] };
      const kind = tool === 'search_onestop_flight' ? 'one-stop' : 'direct';
      return {
        intent: `You want to know which ${kind} flights go from ${args.origin} to ${args.destination} on ${args.date}.`,
      };
    }
    case 'get_flight_status':
      return {
        intent: `You want to know the status of flight ${args.flight_number} on ${args.date}.`,
        tell: spoken(String(result)),
      };
    case 'calculate':
      return { intent: w.state.calculationIntent ?? 'You want a total, as one number.', tell: spoken(String(result)) };
    case 'list_all_airports':
      return { intent: 'You want to know which airports the airline serves.' };
    case 'book_reservation': {
      const f = args.flights[0];
      w.focus = (result as Reservation).reservation_id;
      return {
        intent: `You want to book a one-way ${args.cabin.replace('_', ' ')} flight from ${args.origin} to ${args.destination} on ${f.date} (flight ${f.flight_number}) for yourself only, without bags or insurance, paying the full price with ${args.payment_methods[0].payment_id}.`,
        purpose: 'booking',
      };
    }
    case 'cancel_reservation': {
      w.mark(args.reservation_id, tool);
      const r = result as Reservation;
      const reason = r.insurance === 'yes' ? 'a health problem' : 'a change of plans';
      return {
        intent: `You want to cancel reservation ${args.reservation_id} (${route(r)}); if asked, the reason is ${reason}.`,
        purpose: 'cancellation',
      };
    }
    case 'update_reservation_baggages':
      w.mark(args.reservation_id, tool);
      return {
        intent: `You want reservation ${args.reservation_id} to have ${args.total_baggages} checked bags in total; any fee goes on ${args.payment_id}.`,
        purpose: 'baggage change',
      };
    case 'update_reservation_passengers': {
      w.mark(args.reservation_id, tool);
      const p = args.passengers[args.passengers.length - 1];
      return {
        intent: `On reservation ${args.reservation_id}, you want the last passenger replaced by ${p.first_name} ${p.last_name}, born ${p.dob}; the number of passengers stays the same.`,
        purpose: 'passenger change',
      };
    }
    case 'update_reservation_flights': {
      w.mark(args.reservation_id, tool);
      const flights = args.flights.map((f: ToolArgs) => `${f.flight_number} on ${f.date}`).join(', ');
      return {
        intent: `You want reservation ${args.reservation_id} to fly ${args.cabin.replace('_', ' ')} on ${flights}; pay any difference with ${args.payment_id}.`,
        purpose: 'flight change',
      };
    }
    case 'send_certificate':
      w.state.certificateSent = true;
      return {
        intent: `Your flight was delayed and you expect a gesture: accept a certificate of $${args.amount} if offered.`,
        purpose: 'compensation',
      };
    case 'transfer_to_human_agents':
      return { intent: 'If the agent cannot help, you want to be transferred to a human agent.', purpose: 'hand-off' };
  }
  return undefined;
}

/** Airline: a user is a subject; users with more open, modifiable reservations and a credit card come first. */
export const airlineWalk: WalkRules<AirlineDb, Reservation, AirlineWalkState> = {
  writes: RESERVATION_WRITES,
  impossible(_base, sequence) {
    // τ² airline hands out the new reservation ids HATHAT, HATHAU, HATHAV and refuses a fourth booking.
    const books = sequence.filter((t) => t === 'book_reservation').length;
    const most = NEW_RESERVATION_IDS.length;
    return books > most
      ? `${books} bookings, but τ² airline allows at most ${most} new reservations per task`
      : undefined;
  },
  subjects(base, sequence, rng) {
    const writes = sequence.filter((t) => RESERVATION_WRITES.has(t)).length;
    const cancels = sequence.filter((t) => t === 'cancel_reservation').length;
    const scored = Object.values(base.users)
      .map((u) => {
        const rs = u.reservations.map((id) => base.reservations[id]).filter(Boolean);
        const cards = Object.values(u.payment_methods).some((m) => m.source === 'credit_card');
        const fit =
          Math.min(rs.filter(modifiable).length, writes) +
          Math.min(rs.filter(cancellable).length, cancels) +
          (cards ? 2 : 0);
        return { id: u.user_id, fit };
      })
      .filter((s) => s.fit > 0);
    const best = Math.max(0, ...scored.map((s) => s.fit));
    const top = scored.filter((s) => s.fit >= best - 1).map((s) => s.id);
    return rng.shuffle(top.sort());
  },
  start: (ctx, subject) => ({ user: ctx.base.users[subject], lastSearch: undefined, certificateSent: false }),
  ids(w) {
    // The live list: reservations booked earlier in the walk are the user's too.
    const u = w.ctx.env.call('get_user_details', { user_id: w.subject });
    return u.ok ? [...(u.result as User).reservations] : [];
  },
  fits(tool, r, done) {
    if (tool === 'cancel_reservation') return cancellable(r);
    if (tool === 'update_reservation_flights') return modifiable(r);
    if (tool === 'update_reservation_baggages') return open(r) && !done.has(tool);
    if (tool === 'update_reservation_passengers') return open(r) && !done.has(tool);
    if (tool === 'send_certificate') return open(r);
    return true;
  },
  candidates,
  accept,
  finish(w) {
    const n = w.ctx.notes;
    const { user } = w.state;
    n.known.unshift(`Your name is ${user.name.first_name} ${user.name.last_name}.`, `Your user id is ${w.subject}.`);
    const ids = [...new Set([...w.looked, ...w.touchedIds()])].filter((id) => w.ctx.base.reservations[id]);
    if (!w.ctx.sequence.includes('get_user_details') && ids.length)
      n.known.push(`Your reservation ids: ${ids.join(', ')}.`);
  },
};
