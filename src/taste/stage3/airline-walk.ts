import { type DomainInstantiator, type DomainWalk, Unfit, type WalkContext } from './types.js';

// τ²'s airline clock: flights on or before this date have (partly) flown.
const TODAY = '2024-05-15';
const NOW = '2024-05-15T15:00:00';
const MAX_NEW_RESERVATIONS = 3;
const RESERVATION_WRITES = new Set([
  'cancel_reservation',
  'update_reservation_flights',
  'update_reservation_baggages',
  'update_reservation_passengers',
  'send_certificate',
]);
const FREE_BAGS: Record<string, Record<string, number>> = {
  regular: { basic_economy: 0, economy: 1, business: 2 },
  silver: { basic_economy: 1, economy: 2, business: 3 },
  gold: { basic_economy: 2, economy: 3, business: 4 },
};
const NEW_PEOPLE = [
  { first_name: 'Nadia', last_name: 'Okafor', dob: '1988-02-14' },
  { first_name: 'Tomas', last_name: 'Lindqvist', dob: '1975-09-30' },
  { first_name: 'Priya', last_name: 'Raman', dob: '1993-06-07' },
  { first_name: 'Diego', last_name: 'Alvarez', dob: '1969-12-01' },
  { first_name: 'Hana', last_name: 'Sato', dob: '2001-03-22' },
];

const future = (r: any) => r.flights.every((f: any) => f.date > TODAY);
const hoursSince = (iso: string) => (Date.parse(`${NOW}Z`) - Date.parse(`${iso}Z`)) / 3_600_000;
/** Policy: cancellable when booked within 24 h, business, or insured (the reason given is then health). */
const cancellable = (r: any) =>
  r.status !== 'cancelled' &&
  future(r) &&
  (hoursSince(r.created_at) <= 24 || r.cabin === 'business' || r.insurance === 'yes');
const modifiable = (r: any) => r.status !== 'cancelled' && future(r) && r.cabin !== 'basic_economy';
const open = (r: any) => r.status !== 'cancelled' && future(r);

function route(r: any): string {
  const f = r.flights[0];
  return `${r.origin} to ${r.destination} on ${f?.date ?? '?'}`;
}

class AirlineWalk implements DomainWalk {
  private user: any;
  private focus: string | undefined;
  private looked = new Set<string>();
  private touched: Record<string, Set<string>> = {};
  private lastSearch: { origin: string; destination: string; date: string; flights: any[] } | undefined;
  private certificateSent = false;

  constructor(
    private ctx: WalkContext,
    private userId: string,
  ) {
    this.user = ctx.base.users[userId];
  }

  /** The reservation as the environment holds it now (created ones included). */
  private reservation(id: string): any {
    const r = this.ctx.env.call('get_reservation_details', { reservation_id: id });
    return r.ok ? r.result : undefined;
  }

  private reservationIds(): string[] {
    const u = this.ctx.env.call('get_user_details', { user_id: this.userId });
    return u.ok ? [...(u.result as any).reservations] : [];
  }

  private fits(tool: string, r: any): boolean {
    const done = this.touched[r.reservation_id] ?? new Set();
    if (tool === 'cancel_reservation') return cancellable(r);
    if (tool === 'update_reservation_flights') return modifiable(r);
    if (tool === 'update_reservation_baggages') return open(r) && !done.has(tool);
    if (tool === 'update_reservation_passengers') return open(r) && !done.has(tool);
    if (tool === 'send_certificate') return open(r);
    return true;
  }

  /** The reservation a write acts on: the focus when it fits, else a fitting one not yet used, else any fitting. */
  private target(tool: string, index: number): any {
    if (this.focus) {
      const r = this.reservation(this.focus);
      if (r && this.fits(tool, r)) return r;
    }
    const all = this.reservationIds()
      .map((id) => this.reservation(id))
      .filter((r) => r && this.fits(tool, r));
    const fresh = all.filter((r) => !this.touched[r.reservation_id]);
    const pick = fresh[0] ?? all[0];
    if (!pick) throw new Unfit(tool, index, `user ${this.userId} has no reservation that ${tool} may act on`);
    return pick;
  }

  private nextWrite(index: number): string | undefined {
    return this.ctx.sequence.slice(index + 1).find((t) => RESERVATION_WRITES.has(t));
  }

  private payments(amount: number): string[] {
    const methods = Object.values<any>(this.user.payment_methods);
    const cards = methods.filter((m) => m.source === 'credit_card').map((m) => m.id);
    const gifts = methods.filter((m) => m.source === 'gift_card' && m.amount >= amount).map((m) => m.id);
    return [...cards, ...gifts].sort();
  }

  private randomFlight(index: number): { origin: string; destination: string; date: string } {
    const flights = Object.values<any>(this.ctx.base.flights);
    for (let tries = 0; tries < 200; tries++) {
      const f = flights[this.ctx.rng.int(flights.length)];
      const dates = Object.keys(f.dates).filter((d) => d > TODAY && f.dates[d].status === 'available');
      if (dates.length)
        return { origin: f.origin, destination: f.destination, date: dates[this.ctx.rng.int(dates.length)] };
    }
    throw new Unfit('search_direct_flight', index, 'no bookable flight found');
  }

  candidates(index: number): Record<string, any>[] {
    const tool = this.ctx.sequence[index];
    const rng = this.ctx.rng;
    switch (tool) {
      case 'get_user_details':
        return [{ user_id: this.userId }];
      case 'list_all_airports':
        return [{}];
      case 'get_reservation_details': {
        const ids = this.reservationIds();
        const write = this.nextWrite(index);
        const rs = ids.map((id) => this.reservation(id)).filter(Boolean);
        const unseen = rs.filter((r) => !this.looked.has(r.reservation_id));
        const order = [
          ...unseen.filter((r) => !write || this.fits(write, r)),
          ...unseen,
          ...rs.filter((r) => !write || this.fits(write, r)),
          ...rs,
        ];
        if (!order.length) throw new Unfit(tool, index, `user ${this.userId} has no reservation`);
        return [{ reservation_id: order[0].reservation_id }];
      }
      case 'search_direct_flight': {
        const write = this.nextWrite(index);
        const r = this.focus ? this.reservation(this.focus) : undefined;
        if (r && write === 'update_reservation_flights' && modifiable(r)) {
          const seg = r.flights[0];
          return [{ origin: seg.origin, destination: seg.destination, date: seg.date }];
        }
        return [this.randomFlight(index)];
      }
      case 'search_onestop_flight': {
        const flights = Object.values<any>(this.ctx.base.flights);
        const out: Record<string, any>[] = [];
        for (let tries = 0; tries < 300 && out.length < 3; tries++) {
          const f1 = flights[rng.int(flights.length)];
          const date = Object.keys(f1.dates).find((d) => d > TODAY && f1.dates[d].status === 'available');
          if (!date) continue;
          const f2 = flights.find(
            (f) => f.origin === f1.destination && f.destination !== f1.origin && f.dates[date]?.status === 'available',
          );
          if (f2) out.push({ origin: f1.origin, destination: f2.destination, date });
        }
        if (!out.length) throw new Unfit(tool, index, 'no one-stop connection found');
        return out;
      }
      case 'get_flight_status': {
        const r = this.focus ? this.reservation(this.focus) : undefined;
        if (r) return r.flights.map((f: any) => ({ flight_number: f.flight_number, date: f.date }));
        if (this.lastSearch?.flights.length)
          return [{ flight_number: this.lastSearch.flights[0].flight_number, date: this.lastSearch.date }];
        const any = this.randomFlight(index);
        const f = Object.values<any>(this.ctx.base.flights).find(
          (x) => x.origin === any.origin && x.destination === any.destination && x.dates[any.date],
        );
        return [{ flight_number: f.flight_number, date: any.date }];
      }
      case 'calculate': {
        const r = this.focus ? this.reservation(this.focus) : undefined;
        if (r) {
          const prices = r.flights.map((f: any) => f.price).join(' + ');
          return [{ expression: r.passengers.length > 1 ? `(${prices}) * ${r.passengers.length}` : prices }];
        }
        const f = this.lastSearch?.flights[0];
        if (f) return [{ expression: `${f.prices.economy} + ${f.prices.business}` }];
        return [{ expression: `${50 + rng.int(10) * 10} * 2` }];
      }
      case 'book_reservation':
        return this.bookings(index);
      case 'cancel_reservation':
        return [{ reservation_id: this.target(tool, index).reservation_id }];
      case 'update_reservation_baggages': {
        const r = this.target(tool, index);
        const membership = this.user.membership ?? 'regular';
        const free = (FREE_BAGS[membership]?.[r.cabin] ?? 0) * r.passengers.length;
        const total = r.total_baggages + 1 + rng.int(2);
        const nonfree = Math.max(r.nonfree_baggages, total - free);
        const cost = 50 * Math.max(0, nonfree - r.nonfree_baggages);
        return this.payments(cost).map((p) => ({
          reservation_id: r.reservation_id,
          total_baggages: total,
          nonfree_baggages: nonfree,
          payment_id: p,
        }));
      }
      case 'update_reservation_passengers': {
        const r = this.target(tool, index);
        const who = NEW_PEOPLE[rng.int(NEW_PEOPLE.length)];
        const passengers = r.passengers.map((p: any) => ({
          first_name: p.first_name,
          last_name: p.last_name,
          dob: p.dob,
        }));
        passengers[passengers.length - 1] = { ...who };
        return [{ reservation_id: r.reservation_id, passengers }];
      }
      case 'update_reservation_flights':
        return this.flightChanges(index);
      case 'send_certificate': {
        if (this.certificateSent) throw new Unfit(tool, index, 'a second certificate breaks policy');
        const r = this.target(tool, index);
        return [{ user_id: this.userId, amount: 50 * r.passengers.length }];
      }
      case 'transfer_to_human_agents':
        return [
          { summary: `User ${this.userId} asks for help the policy does not allow an agent to give; transferring.` },
        ];
      default:
        throw new Unfit(tool, index, 'no instantiation rule for this tool');
    }
  }

  private bookings(index: number): Record<string, any>[] {
    const base = this.ctx.base;
    const self = { first_name: this.user.name.first_name, last_name: this.user.name.last_name, dob: this.user.dob };
    const options: { flight_number: string; date: string; origin: string; destination: string }[] = [];
    if (this.lastSearch)
      for (const f of this.lastSearch.flights)
        options.push({
          flight_number: f.flight_number,
          date: this.lastSearch.date,
          origin: f.origin,
          destination: f.destination,
        });
    for (let k = 0; k < 4; k++) {
      const q = this.randomFlight(index);
      const f = Object.values<any>(base.flights).find(
        (x) => x.origin === q.origin && x.destination === q.destination && x.dates[q.date]?.status === 'available',
      );
      if (f)
        options.push({ flight_number: f.flight_number, date: q.date, origin: f.origin, destination: f.destination });
    }
    const out: Record<string, any>[] = [];
    for (const o of options) {
      const inst = base.flights[o.flight_number]?.dates[o.date];
      if (!inst) continue;
      const cabin = inst.available_seats.economy > 2 ? 'economy' : 'business';
      const price = inst.prices[cabin];
      for (const p of this.payments(price)) {
        out.push({
          user_id: this.userId,
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
    if (!out.length) throw new Unfit('book_reservation', index, `user ${this.userId} cannot pay for any flight`);
    return out;
  }

  private flightChanges(index: number): Record<string, any>[] {
    const r = this.target('update_reservation_flights', index);
    const keep = r.flights.map((f: any) => ({ flight_number: f.flight_number, date: f.date }));
    const variants: { cabin: string; flights: any[] }[] = [];
    const s = this.lastSearch;
    if (s) {
      r.flights.forEach((seg: any, k: number) => {
        if (seg.origin !== s.origin || seg.destination !== s.destination || seg.date !== s.date) return;
        for (const alt of s.flights) {
          if (alt.flight_number === seg.flight_number || (alt.available_seats[r.cabin] ?? 0) < r.passengers.length)
            continue;
          const flights = keep.map((f: any, j: number) =>
            j === k ? { flight_number: alt.flight_number, date: s.date } : f,
          );
          variants.push({ cabin: r.cabin, flights });
        }
      });
    }
    variants.push({ cabin: r.cabin === 'business' ? 'economy' : 'business', flights: keep });
    const out: Record<string, any>[] = [];
    for (const v of variants)
      for (const p of this.payments(Number.POSITIVE_INFINITY).concat(this.payments(0)))
        out.push({ reservation_id: r.reservation_id, cabin: v.cabin, flights: v.flights, payment_id: p });
    const unique = new Map(out.map((a) => [JSON.stringify(a), a]));
    return [...unique.values()];
  }

  accept(index: number, args: Record<string, any>, result: any): void {
    const tool = this.ctx.sequence[index];
    const n = this.ctx.notes;
    const mark = (id: string) => {
      const set = this.touched[id] ?? new Set<string>();
      set.add(tool);
      this.touched[id] = set;
      this.focus = id;
    };
    switch (tool) {
      case 'get_user_details':
        if (!n.unknown.length) n.unknown.push('You do not remember your reservation ids.');
        break;
      case 'get_reservation_details':
        this.looked.add(args.reservation_id);
        this.focus = args.reservation_id;
        n.intents.push(`You want to go over your reservation for ${route(result)}.`);
        break;
      case 'search_direct_flight':
      case 'search_onestop_flight':
        if (tool === 'search_direct_flight') this.lastSearch = { ...(args as any), flights: result as any[] };
        n.intents.push(
          `You want to know which ${tool === 'search_onestop_flight' ? 'one-stop' : 'direct'} flights go from ${args.origin} to ${args.destination} on ${args.date}.`,
        );
        break;
      case 'get_flight_status':
        n.intents.push(`You want to know the status of flight ${args.flight_number} on ${args.date}.`);
        n.communicate.push(String(result));
        break;
      case 'calculate':
        n.intents.push('You want to know the total you paid for those flights, as one number.');
        n.communicate.push(String(result));
        break;
      case 'list_all_airports':
        n.intents.push('You want to know which airports the airline serves.');
        break;
      case 'book_reservation': {
        const f = args.flights[0];
        n.intents.push(
          `You want to book a one-way ${args.cabin.replace('_', ' ')} flight from ${args.origin} to ${args.destination} on ${f.date} (flight ${f.flight_number}) for yourself only, without bags or insurance, paying the full price with ${args.payment_methods[0].payment_id}.`,
        );
        this.focus = (result as any).reservation_id;
        n.purpose.push('booking');
        break;
      }
      case 'cancel_reservation':
        mark(args.reservation_id);
        n.intents.push(
          `You want to cancel reservation ${args.reservation_id} (${route(result)}); if asked, the reason is ${result.insurance === 'yes' ? 'a health problem' : 'a change of plans'}.`,
        );
        n.purpose.push('cancellation');
        break;
      case 'update_reservation_baggages':
        mark(args.reservation_id);
        n.intents.push(
          `You want reservation ${args.reservation_id} to have ${args.total_baggages} checked bags in total; any fee goes on ${args.payment_id}.`,
        );
        n.purpose.push('baggage change');
        break;
      case 'update_reservation_passengers': {
        mark(args.reservation_id);
        const p = args.passengers[args.passengers.length - 1];
        n.intents.push(
          `On reservation ${args.reservation_id}, you want the last passenger replaced by ${p.first_name} ${p.last_name}, born ${p.dob}; the number of passengers stays the same.`,
        );
        n.purpose.push('passenger change');
        break;
      }
      case 'update_reservation_flights': {
        mark(args.reservation_id);
        const flights = args.flights.map((f: any) => `${f.flight_number} on ${f.date}`).join(', ');
        n.intents.push(
          `You want reservation ${args.reservation_id} to fly ${args.cabin.replace('_', ' ')} on ${flights}; pay any difference with ${args.payment_id}.`,
        );
        n.purpose.push('flight change');
        break;
      }
      case 'send_certificate':
        this.certificateSent = true;
        n.intents.push(
          `Your flight was delayed and you expect a gesture: accept a certificate of $${args.amount} if offered.`,
        );
        n.purpose.push('compensation');
        break;
      case 'transfer_to_human_agents':
        n.intents.push('If the agent cannot help, you want to be transferred to a human agent.');
        n.purpose.push('hand-off');
        break;
    }
  }

  finish(): void {
    const n = this.ctx.notes;
    const name = `${this.user.name.first_name} ${this.user.name.last_name}`;
    n.known.unshift(`Your name is ${name}.`, `Your user id is ${this.userId}.`);
    const ids = [...new Set([...this.looked, ...Object.keys(this.touched)])].filter(
      (id) => this.ctx.base.reservations[id],
    );
    if (!this.ctx.sequence.includes('get_user_details') && ids.length)
      n.known.push(`Your reservation ids: ${ids.join(', ')}.`);
  }
}

/** Airline: a user is a subject; users with more open, modifiable reservations and a credit card come first. */
export const airlineInstantiator: DomainInstantiator = {
  impossible(_base, sequence) {
    // τ² airline hands out the new reservation ids HATHAT, HATHAU, HATHAV and refuses a fourth booking.
    const books = sequence.filter((t) => t === 'book_reservation').length;
    return books > MAX_NEW_RESERVATIONS
      ? `${books} bookings, but τ² airline allows at most ${MAX_NEW_RESERVATIONS} new reservations per task`
      : undefined;
  },
  subjects(base, sequence, rng) {
    const writes = sequence.filter((t) => RESERVATION_WRITES.has(t)).length;
    const cancels = sequence.filter((t) => t === 'cancel_reservation').length;
    const scored = Object.values<any>(base.users)
      .map((u) => {
        const rs = u.reservations.map((id: string) => base.reservations[id]).filter(Boolean);
        const cards = Object.values<any>(u.payment_methods).some((m) => m.source === 'credit_card');
        const fit =
          Math.min(rs.filter(modifiable).length, writes) +
          Math.min(rs.filter(cancellable).length, cancels) +
          (cards ? 2 : 0);
        return { id: u.user_id as string, fit };
      })
      .filter((s) => s.fit > 0);
    const best = Math.max(0, ...scored.map((s) => s.fit));
    const top = scored.filter((s) => s.fit >= best - 1).map((s) => s.id);
    return rng.shuffle(top.sort());
  },
  begin: (ctx, subject) => new AirlineWalk(ctx, subject),
};
