import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { arbitraryFromZod } from '../../src/propgen/index.js';
import triage from '../../tasks/log-triage/properties.js';

// The promise of arbitraryFromZod: every generated value parses with the schema it was derived from — for any
// schema of the supported constructs, not only the ones a test happens to write down.

/** A schema as plain data (so a counterexample prints readably), built into zod by `build`. */
type Desc =
  | { t: 'string'; min: number; max: number }
  | { t: 'pattern' }
  | { t: 'int'; min: number; max: number }
  | { t: 'number'; gt: number }
  | { t: 'boolean' }
  | { t: 'enum'; values: string[] }
  | { t: 'literal'; value: string | number }
  | { t: 'null' }
  | { t: 'object'; shape: [string, Desc][] }
  | { t: 'array'; of: Desc; max: number }
  | { t: 'optional'; of: Desc }
  | { t: 'nullable'; of: Desc }
  | { t: 'union'; of: [Desc, Desc] }
  | { t: 'record'; keys: string[]; of: Desc; partial: boolean }
  | { t: 'dictionary'; of: Desc };

function build(d: Desc): z.ZodType {
  switch (d.t) {
    case 'string':
      return z.string().min(d.min).max(d.max);
    case 'pattern':
      return z.string().regex(/^[a-z][a-z0-9-]{0,6}$/);
    case 'int':
      return z.int().min(d.min).max(d.max);
    case 'number':
      return z.number().gt(d.gt);
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum(d.values as [string, ...string[]]);
    case 'literal':
      return z.literal(d.value);
    case 'null':
      return z.null();
    case 'object':
      return z.object(Object.fromEntries(d.shape.map(([k, v]) => [k, build(v)])));
    case 'array':
      return z.array(build(d.of)).max(d.max);
    case 'optional':
      return build(d.of).optional();
    case 'nullable':
      return build(d.of).nullable();
    case 'union':
      return z.union([build(d.of[0]), build(d.of[1])]);
    case 'record': {
      const keys = z.enum(d.keys as [string, ...string[]]);
      return d.partial ? z.partialRecord(keys, build(d.of)) : z.record(keys, build(d.of));
    }
    case 'dictionary':
      return z.record(z.string().max(4), build(d.of));
  }
}

const key = fc.stringMatching(/^[a-z]{1,6}$/);
const keys = fc.uniqueArray(key, { minLength: 1, maxLength: 5 });
const desc: fc.Arbitrary<Desc> = fc.letrec<{ d: Desc }>((tie) => ({
  d: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .integer({ min: 0, max: 4 })
      .chain((min) => fc.integer({ min, max: min + 6 }).map((max) => ({ t: 'string' as const, min, max }))),
    fc.constant({ t: 'pattern' as const }),
    fc
      .integer({ min: -50, max: 50 })
      .chain((min) => fc.integer({ min, max: min + 100 }).map((max) => ({ t: 'int' as const, min, max }))),
    fc.integer({ min: -10, max: 10 }).map((gt) => ({ t: 'number' as const, gt })),
    fc.constant({ t: 'boolean' as const }),
    keys.map((values) => ({ t: 'enum' as const, values })),
    fc.oneof(key, fc.integer()).map((value) => ({ t: 'literal' as const, value })),
    fc.constant({ t: 'null' as const }),
    fc
      .uniqueArray(fc.tuple(key, tie('d')), { maxLength: 4, selector: ([k]) => k })
      .map((shape) => ({ t: 'object' as const, shape })),
    fc.record({ t: fc.constant('array' as const), of: tie('d'), max: fc.integer({ min: 0, max: 4 }) }),
    tie('d').map((of) => ({ t: 'optional' as const, of })),
    tie('d').map((of) => ({ t: 'nullable' as const, of })),
    fc.tuple(tie('d'), tie('d')).map((of) => ({ t: 'union' as const, of })),
    fc.record({ t: fc.constant('record' as const), keys, of: tie('d'), partial: fc.boolean() }),
    tie('d').map((of) => ({ t: 'dictionary' as const, of })),
  ),
})).d;

describe('values derived from a zod schema parse with it', () => {
  fcTest.prop([desc, fc.integer()], { numRuns: 150 })('for any schema of the supported constructs', (d, seed) => {
    const schema = build(d);
    for (const value of fc.sample(arbitraryFromZod(schema), { numRuns: 15, seed })) {
      const parsed = schema.safeParse(value);
      expect(parsed.success, `${JSON.stringify(value)}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  test('a record keyed by an enum has every key (z.partialRecord: any subset of them)', () => {
    const levels = z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);
    const full = fc.sample(arbitraryFromZod(z.record(levels, z.int().min(0))), { numRuns: 50, seed: 7 });
    for (const v of full) expect(Object.keys(v).sort()).toEqual(['DEBUG', 'ERROR', 'FATAL', 'INFO', 'WARN']);
    const partial = fc.sample(arbitraryFromZod(z.partialRecord(levels, z.int())), { numRuns: 50, seed: 7 });
    expect(partial.some((v) => Object.keys(v).length < 5)).toBe(true);
    for (const v of partial) expect(z.partialRecord(levels, z.int()).safeParse(v).success).toBe(true);
  });

  fcTest.prop([fc.integer()], { numRuns: 20 })(
    "log-triage's generated inputs (its own overrides included) satisfy its input schema",
    (seed) => {
      const arb = arbitraryFromZod(triage.input, { overrides: triage.arbitraries });
      for (const input of fc.sample(arb, { numRuns: 10, seed }))
        expect(triage.input.safeParse(input).success, JSON.stringify(input)).toBe(true);
    },
  );
});
