// Properties of the gateway's pure bookkeeping: token reservations under any interleaving of calls starting and
// ending, the bounded trace line, and the nesting depth read from a body's bytes.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { jsonDepth, traceLine } from '../../src/gateway/bounds.js';
import { reservationFor, TokenMeter } from '../../src/gateway/budget.js';

/** A step: a call tries to start with this reservation, or the `pick`-th call in flight ends using `frac` of it. */
const step = fc.oneof(
  fc.record({ admit: fc.integer({ min: 0, max: 5000 }) }),
  fc.record({ pick: fc.nat(), frac: fc.double({ min: 0, max: 1, noNaN: true }) }),
);

describe('TokenMeter', () => {
  test.prop([fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }), fc.array(step, { maxLength: 300 })])(
    'any interleaving of admit and settle stays within the limit plus one reservation, refuses only for tokens used, and settles to what was used',
    (limit, steps) => {
      const m = new TokenMeter(limit);
      const inFlight: number[] = [];
      let used = 0;
      let biggest = 0;
      const check = () => {
        if (limit === null) return;
        expect(m.settled).toBeLessThanOrEqual(limit + biggest);
        expect(m.settled + m.reserved).toBeLessThanOrEqual(limit + biggest);
      };
      for (const s of steps) {
        if ('admit' in s) {
          const said = m.admission();
          // refused only for tokens used, never for tokens merely reserved (that call waits instead)
          if (said === 'refuse') expect(limit !== null && m.settled >= limit).toBe(true);
          if (said === 'wait') expect(limit !== null && m.settled < limit && m.reserved > 0).toBe(true);
          if (said !== 'start') continue;
          m.reserve(s.admit);
          biggest = Math.max(biggest, s.admit);
          inFlight.push(s.admit);
        } else if (inFlight.length > 0) {
          const [r] = inFlight.splice(s.pick % inFlight.length, 1);
          const u = Math.floor(r! * s.frac);
          m.settle(r!, u);
          used += u;
        }
        check();
      }
      for (const r of inFlight.splice(0)) {
        m.settle(r, r);
        used += r;
        check();
      }
      expect(m.reserved).toBe(0);
      expect(m.settled).toBe(used);
      if (limit === null) expect(m.hasRoom()).toBe(true);
    },
  );

  test('a limit of 0 admits nothing; an unlimited meter admits everything', () => {
    expect(new TokenMeter(0).admission()).toBe('refuse');
    const open = new TokenMeter(null);
    open.reserve(1e9);
    expect(open.hasRoom()).toBe(true);
  });
});

describe('reservationFor', () => {
  test.prop([
    fc.constantFrom('chat.completions' as const, 'responses' as const),
    fc.nat({ max: 1e7 }),
    fc.record(
      {
        max_tokens: fc.oneof(fc.integer({ min: -5, max: 100_000 }), fc.string(), fc.double()),
        max_output_tokens: fc.integer({ min: 1, max: 100_000 }),
        max_completion_tokens: fc.integer({ min: 1, max: 100_000 }),
      },
      { requiredKeys: [] },
    ),
  ])('the prompt at bytes / 4 plus the first usable output cap, else the default', (endpoint, bytes, body) => {
    const cap = [body.max_completion_tokens, body.max_output_tokens, body.max_tokens].find(
      (v) => Number.isSafeInteger(v) && (v as number) > 0,
    ) as number | undefined;
    expect(reservationFor(endpoint, body, bytes, 777)).toBe(Math.ceil(bytes / 4) + (cap ?? 777));
    expect(reservationFor('embeddings', body, bytes, 777)).toBe(Math.ceil(bytes / 4));
  });
});

/** Nesting depth of a parsed JSON value, the slow way. */
function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

describe('jsonDepth', () => {
  test.prop([fc.jsonValue({ maxDepth: 12 })])(
    'equals the nesting of the parsed value (brackets in strings aside)',
    (v) => {
      expect(jsonDepth(Buffer.from(JSON.stringify(v)))).toBe(depthOf(v));
    },
  );

  test('a 100,000-deep body is read in one pass, stopping once it passes the bound', () => {
    const deep = Buffer.from(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(jsonDepth(deep)).toBe(100_001);
    expect(jsonDepth(deep, 256)).toBe(257);
    expect(jsonDepth(Buffer.from('{"s":"[[[[\\"[[[["}'))).toBe(1);
  });
});

describe('traceLine', () => {
  // bodies from tiny to several times the bound, with characters JSON escapes (up to 6 bytes for one)
  const big = fc
    .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }), fc.integer({ min: 1, max: 3000 }))
    .map(([s, n]) => s.repeat(n));
  const body = fc.oneof(fc.jsonValue(), big, fc.array(big, { maxLength: 4 }));
  test.prop([body, body, fc.integer({ min: 4096, max: 30_000 })])(
    'is one JSON line within the bound, each body whole or cut to the beginning of its JSON text',
    (request, response, maxBytes) => {
      const head = JSON.stringify({ callId: 'call_x', time: 'T', role: 'runtime', endpoint: 'responses', status: 200 });
      const req = JSON.stringify(request);
      const resp = JSON.stringify(response);
      const line = traceLine(head, req, resp, maxBytes);
      expect(line).not.toMatch(/[\n\r]/);
      const whole = Buffer.byteLength(`${head.slice(0, -1)},"request":${req},"response":${resp}}`);
      const o = JSON.parse(line);
      expect(o.callId).toBe('call_x');
      if (whole <= maxBytes) expect([o.request, o.response]).toEqual(JSON.parse(`[${req},${resp}]`));
      else expect(Buffer.byteLength(line)).toBeLessThanOrEqual(maxBytes);
      for (const [got, text] of [
        [o.request, req],
        [o.response, resp],
      ] as const) {
        if (got?.truncated === true && typeof got.head === 'string' && JSON.stringify(got) !== text) {
          expect(got.bytes).toBe(Buffer.byteLength(text));
          expect(text.startsWith(got.head)).toBe(true);
        } else expect(got).toEqual(JSON.parse(text));
      }
    },
  );
});
