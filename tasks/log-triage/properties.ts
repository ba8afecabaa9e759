/**
 * Declared properties of the log-triage commission (DESIGN §12): a generator of triage requests and logs in the
 * three formats of requirement/02_interface.md, the truth of each generated case computed from the events the
 * generator rendered, and invariants every correct delivery keeps on any such case.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { arbitraryFromZod, defineProperties, type Outputs } from 'heldout';

const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
type Level = (typeof LEVELS)[number];

// Spellings of each level a log may carry (FR-8: case-insensitive, with aliases).
const SPELLINGS: Record<Level, string[]> = {
  DEBUG: ['DEBUG', 'debug', 'TRACE', 'Debug', 'trace'],
  INFO: ['INFO', 'info', 'NOTICE', 'Info', 'notice'],
  WARN: ['WARN', 'warn', 'WARNING', 'Warning', 'warning'],
  ERROR: ['ERROR', 'error', 'ERR', 'Error', 'err'],
  FATAL: ['FATAL', 'fatal', 'CRITICAL', 'CRIT', 'ALERT', 'EMERG', 'EMERGENCY', 'critical'],
};
// Syslog severities (PRI mod 8) that map to each level.
const SEVERITIES: Record<Level, number[]> = { FATAL: [0, 1, 2], ERROR: [3], WARN: [4], INFO: [5, 6], DEBUG: [7] };

const MESSAGES = [
  'Upstream timeout after {n} ms',
  'Card {n} declined by issuer',
  'SMTP relay refused message {n}',
  'Settlement chunk {n} committed',
  'User {n} logged in',
  'Retrying request {n} (attempt 2)',
  'cache lookup key={n}',
  'Job {n} missed  its schedule',
  'Backup upload {n} failed: quota exceeded',
  'java.lang.IllegalStateException: order {n} has no payment',
];
const TRACE = [
  '\tat com.shop.orders.OrderService.place(OrderService.java:100)',
  '    at relay.send (relay.js:42)',
  'Caused by: java.sql.SQLTransientConnectionException: pool exhausted',
  '\t... 12 more',
];
const SERVICE_POOL = ['auth', 'payments', 'search', 'mailer', 'orders', 'ledger-sync', 'edge_proxy', 'cron'];
const TITLES = ['checkout errors after the deploy', 'overnight batch', 'pager went off at 3 am', 'weekly health check'];
const DAY0 = Date.UTC(2024, 0, 1) / 1000;
const SPAN = 6 * 3600;

const serviceName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,19}$/)
  .meta({ arbitrary: fc.constantFrom(...SERVICE_POOL) });

const eventSchema = z.object({
  /** Seconds after the start of the log. */
  at: z.int().min(0).max(SPAN),
  frac: z
    .string()
    .regex(/^[0-9]{1,6}$/)
    .optional(),
  /** How the timestamp is written: `local` has no offset (the request's Timezone applies). */
  zone: z.enum(['local', 'Z', '+01:00', '-05:00', '+05:30', '+0200']),
  level: z.enum(LEVELS),
  spelling: z.int().min(0).max(7),
  service: serviceName,
  message: z.int().min(0).max(MESSAGES.length - 1),
  n: z.int().min(0).max(99999),
  /** Stack-trace lines after the event (plain), or inside its message (jsonl); syslog has none. */
  trace: z.array(z.int().min(0).max(TRACE.length - 1)).max(3),
  /** Picks key names (jsonl), the timestamp separators (plain) and the facility (syslog). */
  style: z.int().min(0).max(11),
  blankBefore: z.boolean(),
});

const inputSchema = z.object({
  request: z.object({
    title: z.int().min(0).max(TITLES.length - 1),
    timezone: z.enum(['+02:00', '-05:00', '+05:30', 'Z', 'UTC']).optional(),
    services: z.array(serviceName).max(3).optional(),
    capitalize: z.boolean(),
    from: z.int().min(0).max(SPAN).optional(),
    to: z.int().min(0).max(SPAN).optional(),
    boundZone: z.enum(['local', 'Z', '+02:00']),
    bullets: z.boolean(),
  }),
  log: z.object({
    format: z.enum(['plain', 'jsonl', 'syslog']),
    /** Days after 2024-01-01. */
    day: z.int().min(0).max(400),
    events: z.array(eventSchema).max(16),
    /** Damaged lines, inserted before the event block `at` (mod the number of blocks). */
    malformed: z.array(z.object({ kind: z.int().min(0).max(4), at: z.int().min(0).max(64) })).max(3),
  }),
});

export type TriageInput = z.output<typeof inputSchema>;
type Event = TriageInput['log']['events'][number];

const pad = (n: number) => String(n).padStart(2, '0');
function offsetMinutes(zone: string | undefined): number {
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone ?? '');
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}
function offsetText(min: number): string {
  if (min === 0) return 'Z';
  const a = Math.abs(min);
  return `${min < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}
/** `YYYY-MM-DDTHH:MM:SS` of an epoch second seen at `offset` minutes east of UTC. */
function wallClock(sec: number, offset: number): string {
  return new Date((sec + offset * 60) * 1000).toISOString().slice(0, 19);
}
const isoUtc = (sec: number) => `${wallClock(sec, 0)}Z`;

function eventSecond(input: TriageInput, e: Event): number {
  return DAY0 + input.log.day * 86400 + e.at;
}
/** The event's instant in microseconds (fractions count for ordering and the window). */
function eventMicros(input: TriageInput, e: Event): number {
  return eventSecond(input, e) * 1e6 + (e.frac ? Number(e.frac.padEnd(6, '0').slice(0, 6)) : 0);
}

function timestamp(input: TriageInput, e: Event): string {
  const fmt = input.log.format;
  const tz = offsetMinutes(input.request.timezone);
  let offset: number;
  let suffix: string;
  if (e.zone === 'local') {
    offset = tz;
    suffix = fmt === 'syslog' ? offsetText(tz) : ''; // RFC 5424 timestamps always carry their offset
  } else {
    offset = offsetMinutes(e.zone);
    suffix = e.zone === 'Z' ? 'Z' : fmt === 'plain' ? e.zone : offsetText(offset);
  }
  let text = wallClock(eventSecond(input, e), offset);
  if (fmt === 'plain' && e.style % 2 === 1) text = text.replace('T', ' ');
  if (e.frac) text += `${fmt === 'plain' && e.style % 3 === 0 ? ',' : '.'}${e.frac}`;
  return text + suffix;
}

const messageOf = (e: Event) => MESSAGES[e.message]!.replace('{n}', String(e.n));

function eventLines(input: TriageInput, e: Event): string[] {
  const ts = timestamp(input, e);
  const spellings = SPELLINGS[e.level];
  const out: string[] = e.blankBefore ? [''] : [];
  switch (input.log.format) {
    case 'plain':
      out.push(`${ts} ${spellings[e.spelling % spellings.length]} [${e.service}] ${messageOf(e)}`);
      out.push(...e.trace.map((t) => TRACE[t]!));
      break;
    case 'jsonl': {
      const tsKey = ['ts', 'time', 'timestamp'][e.style % 3]!;
      const levelKey = ['level', 'severity'][e.style % 2]!;
      const serviceKey = ['service', 'app'][Math.floor(e.style / 2) % 2]!;
      const msgKey = ['msg', 'message'][Math.floor(e.style / 4) % 2]!;
      const msg = [messageOf(e), ...e.trace.map((t) => TRACE[t]!)].join('\n');
      const level = spellings[e.spelling % spellings.length];
      out.push(JSON.stringify({ [tsKey]: ts, [levelKey]: level, [serviceKey]: e.service, [msgKey]: msg, host: `node-${e.style}` }));
      break;
    }
    case 'syslog': {
      const sevs = SEVERITIES[e.level];
      const pri = ((e.style * 2) % 24) * 8 + sevs[e.spelling % sevs.length]!;
      out.push(`<${pri}>1 ${ts} host-${e.style} ${e.service} ${1000 + (e.n % 1000)} - - ${messageOf(e)}`);
      break;
    }
  }
  return out;
}

function malformedLine(input: TriageInput, kind: number): string {
  const ts = `${wallClock(DAY0 + input.log.day * 86400, 0)}Z`;
  // Every kind keeps the file's format: none of them changes what the first non-blank line says (FR-2).
  const kinds: Record<TriageInput['log']['format'], string[]> = {
    plain: [
      'garbage: ERROR ERROR ERROR',
      '#### log rotated ####',
      `${ts} NOTALEVEL [search] hm`,
      `${ts} INFO no service given`,
      'yesterday 10:00 INFO [auth] lost',
    ],
    jsonl: [
      `{"ts": "${ts}", "level": "info", "service": "auth"`,
      `{"ts": "${ts}", "level": "info", "msg": "no service"}`,
      `{"ts": "${ts}", "level": "LOUD", "service": "auth", "msg": "x"}`,
      '{"ts": "yesterday", "level": "info", "service": "auth", "msg": "x"}',
      '{broken',
    ],
    syslog: [
      '<11>1 yesterday host-1 auth 1001 - - lost',
      `<14>1 ${ts} host-1`,
      '<13>1 - host-1 auth 1001 - - no timestamp',
      `<12>1 ${ts}`,
      '<11>1 garbage',
    ],
  };
  const list = kinds[input.log.format];
  return list[kind % list.length]!;
}

/** The log's lines: event blocks in order, damaged lines inserted between them. */
function logLines(input: TriageInput): string[] {
  const blocks = input.log.events.map((e) => eventLines(input, e));
  const before = new Map<number, string[]>();
  for (const m of input.log.malformed) {
    const at = m.at % (blocks.length + 1);
    before.set(at, [...(before.get(at) ?? []), malformedLine(input, m.kind)]);
  }
  const out: string[] = [];
  for (let i = 0; i <= blocks.length; i++) {
    out.push(...(before.get(i) ?? []));
    if (i < blocks.length) out.push(...blocks[i]!);
  }
  return out;
}

const LOG_NAMES = { plain: 'app.log', jsonl: 'events.jsonl', syslog: 'host.syslog' } as const;

/** The request's service filter as written: unique case-insensitively, optionally capitalised. */
function filterNames(input: TriageInput): string[] | null {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const s of input.request.services ?? []) {
    if (seen.has(s.toLowerCase())) continue;
    seen.add(s.toLowerCase());
    out.push(input.request.capitalize ? s[0]!.toUpperCase() + s.slice(1) : s);
  }
  return out.length ? out : null;
}

function boundText(input: TriageInput, at: number): string {
  const sec = DAY0 + input.log.day * 86400 + at;
  const z = input.request.boundZone;
  if (z === 'local') return wallClock(sec, offsetMinutes(input.request.timezone));
  return wallClock(sec, offsetMinutes(z)) + (z === 'Z' ? 'Z' : z);
}

function render(input: TriageInput): Record<string, string> {
  const r = input.request;
  const name = LOG_NAMES[input.log.format];
  const key = (k: string, v: string) => `${r.bullets ? '- ' : ''}${k}: ${v}`;
  const lines = [`# Triage request: ${TITLES[r.title]}`, '', 'Please triage the attached log for the on-call review.', ''];
  lines.push(key('Log', `assets/${name}`));
  if (r.timezone) lines.push(key('Timezone', r.timezone));
  const names = filterNames(input);
  if (names) lines.push(key('Services', names.join(', ')));
  if (r.from !== undefined) lines.push(key('From', boundText(input, r.from)));
  if (r.to !== undefined) lines.push(key('To', boundText(input, r.to)));
  const log = logLines(input);
  return { 'input.md': `${lines.join('\n')}\n`, [`assets/${name}`]: log.length ? `${log.join('\n')}\n` : '' };
}

const signature = (e: Event) => messageOf(e).replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();

/** The expected report.json, computed from the events the generator rendered (FR-2 … FR-10). */
function truth(input: TriageInput): Record<string, unknown> {
  const { events, malformed } = input.log;
  const names = filterNames(input);
  const wanted = names ? new Set(names.map((s) => s.toLowerCase())) : null;
  const dayStart = DAY0 + input.log.day * 86400;
  const from = input.request.from === undefined ? null : (dayStart + input.request.from) * 1e6;
  const to = input.request.to === undefined ? null : (dayStart + input.request.to) * 1e6;
  const sel = events.filter((e) => {
    const t = eventMicros(input, e);
    return (!wanted || wanted.has(e.service.toLowerCase())) && (from === null || t >= from) && (to === null || t < to);
  });
  const levels = Object.fromEntries(LEVELS.map((l) => [l, sel.filter((e) => e.level === l).length]));
  const errors = sel.filter((e) => e.level === 'ERROR' || e.level === 'FATAL');
  const byService: Record<string, number> = {};
  for (const e of [...errors].sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0)))
    byService[e.service] = (byService[e.service] ?? 0) + 1;
  const counts = new Map<string, number>();
  for (const e of errors) counts.set(signature(e), (counts.get(signature(e)) ?? 0) + 1);
  let top: { signature: string; count: number } | null = null;
  for (const [sig, count] of counts) if (!top || count > top.count) top = { signature: sig, count };
  const micros = errors.map((e) => eventMicros(input, e));
  const second = (us: number) => isoUtc(Math.floor(us / 1e6));
  return {
    log_format: events.length + malformed.length === 0 ? 'empty' : input.log.format,
    total_events: sel.length,
    malformed_lines: malformed.length,
    levels,
    errors_by_service: byService,
    first_error: micros.length ? second(Math.min(...micros)) : null,
    last_error: micros.length ? second(Math.max(...micros)) : null,
    top_error: top,
    services_seen: [...new Set(sel.map((e) => e.service))].sort(),
    filter: {
      services: names ? [...names].sort() : null,
      from: input.request.from === undefined ? null : isoUtc(dayStart + input.request.from),
      to: input.request.to === undefined ? null : isoUtc(dayStart + input.request.to),
    },
  };
}

type Report = Record<string, unknown> & { top_error: { signature: string; count: number } | null };
const same = (a: unknown, b: unknown) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));
function canon(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]));
  return v;
}
const short = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? 'missing' : s.length > 120 ? `${s.slice(0, 117)}...` : s;
};

/** Fields of two reports that differ, as `field: a → b`; `fields` names the ones compared. */
function differences(a: Report | null, b: Report | null, fields: string[]): string[] {
  if (!a || !b) return [`report.json ${!a ? 'of the first run' : 'of the second run'} is missing or not JSON`];
  return fields.filter((f) => !same(a[f], b[f])).map((f) => `${f}: ${short(a[f])} → ${short(b[f])}`);
}

const COUNT_FIELDS = ['log_format', 'total_events', 'malformed_lines', 'levels', 'first_error', 'last_error', 'filter'];
const reportOf = (o: Outputs) => o.readJson<Report>('report.json');

/** Absent three times in four: most generated requests ask about the whole log. */
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });

export default defineProperties({
  input: inputSchema,
  // Logs of a realistic length, and filters that are the exception rather than the rule.
  arbitraries: {
    'log.events': fc.array(arbitraryFromZod(eventSchema), { maxLength: 16, size: 'medium' }),
    'request.services': sometimes(fc.array(fc.constantFrom(...SERVICE_POOL, 'unknown-svc'), { minLength: 1, maxLength: 3 })),
    'request.from': sometimes(fc.integer({ min: 0, max: SPAN / 2 })),
    'request.to': sometimes(fc.integer({ min: SPAN / 4, max: SPAN })),
  },
  render,
  truth,
  properties: [
    {
      id: 'report-matches-events',
      title: 'every report.json field equals what the generated events imply (an oracle from the structured input)',
      check: ({ input, readJson }) => {
        const expected = truth(input) as Report;
        const diff = differences(expected, readJson<Report>('report.json'), Object.keys(expected));
        return diff.length === 0 || `expected → got: ${diff.join('; ')}`;
      },
    },
    {
      id: 'summary-sections',
      title: 'summary.md has the sections of 02_interface.md in order and names the top error (FR-11)',
      check: ({ input, readText }) => {
        const md = readText('summary.md') ?? '';
        const want = ['## Counts', ...(input.request.services?.length || input.request.from !== undefined || input.request.to !== undefined ? ['## Filter'] : []), '## Top error', '## Errors by service'];
        const found = want.map((h) => md.search(new RegExp(`^${h}\\s*$`, 'm')));
        if (found.some((i) => i < 0)) return `missing section ${want[found.findIndex((i) => i < 0)]}`;
        if (found.some((i, k) => k > 0 && i < found[k - 1]!)) return `sections out of order: ${want.join(', ')}`;
        const top = (truth(input) as Report).top_error;
        const named = top ? top.signature : 'No errors.';
        return md.includes(named) || `summary.md does not name ${JSON.stringify(named)}`;
      },
    },
    {
      id: 'run-report-honest',
      title: 'run_report.json, when written, lists only artifacts that exist (FR-12)',
      check: ({ readJson, exists }) => {
        if (!exists('run_report.json')) return true;
        const listed = readJson<{ artifacts?: unknown }>('run_report.json')?.artifacts;
        const missing = (Array.isArray(listed) ? listed : []).filter((a) => typeof a !== 'string' || !exists(a));
        return missing.length === 0 || `claims artifacts that do not exist: ${missing.join(', ')}`;
      },
    },
  ],
  metamorphic: [
    {
      id: 'reorder-lines',
      title: "reordering the log's lines (events with their traces, damaged lines) leaves the counts unchanged",
      transform: (input, rng) => {
        const events = [...input.log.events];
        for (let i = events.length - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          [events[i], events[j]] = [events[j]!, events[i]!];
        }
        const malformed = input.log.malformed.map((m) => ({ ...m, at: rng.int(events.length + 1) }));
        return { ...input, log: { ...input.log, events, malformed } };
      },
      relation: (a, b) => {
        const ra = reportOf(a);
        const rb = reportOf(b);
        const diff = differences(ra, rb, [...COUNT_FIELDS, 'errors_by_service', 'services_seen']);
        // Ties for the top error go to the first seen in the file, so only its count is order-free.
        if (ra && rb && ra.top_error?.count !== rb.top_error?.count)
          diff.push(`top_error.count: ${ra.top_error?.count ?? null} → ${rb.top_error?.count ?? null}`);
        return diff.length === 0 || `after reordering: ${diff.join('; ')}`;
      },
    },
    {
      id: 'rename-service',
      title: 'renaming a service in the log (and the request) renames it in the report and changes nothing else',
      transform: (input, rng) => {
        const present = [...new Set(input.log.events.map((e) => e.service))].sort();
        if (present.length === 0) return input;
        const old = present[rng.int(present.length)]!;
        const taken = new Set([...present, ...(input.request.services ?? [])].map((s) => s.toLowerCase()));
        let k = 0;
        while (taken.has(`renamed-${k}`)) k++;
        const name = `renamed-${k}`;
        const swap = (s: string) => (s.toLowerCase() === old ? name : s);
        return {
          ...input,
          request: { ...input.request, ...(input.request.services ? { services: input.request.services.map(swap) } : {}) },
          log: { ...input.log, events: input.log.events.map((e) => ({ ...e, service: swap(e.service) })) },
        };
      },
      relation: (a, b, inputA, inputB) => {
        const ra = reportOf(a);
        const rb = reportOf(b);
        if (!ra || !rb) return differences(ra, rb, []).join('; ');
        const renamed = new Map<string, string>();
        inputA.log.events.forEach((e, i) => renamed.set(e.service, inputB.log.events[i]!.service));
        const map = (s: string) => renamed.get(s) ?? s;
        const expected: Report = {
          ...ra,
          errors_by_service: Object.fromEntries(
            Object.entries((ra.errors_by_service ?? {}) as Record<string, number>).map(([s, n]) => [map(s), n]),
          ),
          services_seen: Array.isArray(ra.services_seen) ? (ra.services_seen as string[]).map(map).sort() : ra.services_seen,
        };
        const diff = differences(expected, rb, [...COUNT_FIELDS.filter((f) => f !== 'filter'), 'errors_by_service', 'services_seen', 'top_error']);
        return diff.length === 0 || `after renaming (expected → got): ${diff.join('; ')}`;
      },
    },
  ],
});
