import { test as fcTest } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { arbitraryFromZod, UnsupportedSchemaError } from '../../src/propgen/index.js';

const schemas = {
  strings: z.object({
    plain: z.string(),
    bounded: z.string().min(2).max(5),
    exact: z.string().length(3),
    pattern: z.string().regex(/^[a-z][a-z0-9-]{1,8}$/),
    email: z.email(),
    uuid: z.uuid(),
    stamp: z.iso.datetime(),
    refined: z.string().startsWith('x'),
  }),
  numbers: z.object({
    any: z.number(),
    int: z.int(),
    range: z.int().min(-3).max(9),
    open: z.number().gt(0).lt(1),
    closed: z.number().min(-2.5).max(2.5),
    positive: z.number().int().positive(),
  }),
  shapes: z.object({
    flag: z.boolean(),
    tags: z.array(z.string().max(3)).min(1).max(4),
    level: z.enum(['DEBUG', 'INFO', 'ERROR']),
    kind: z.literal('event'),
    either: z.union([z.int().min(0).max(3), z.literal('none'), z.object({ a: z.boolean() })]),
    maybe: z.string().optional(),
    nothing: z.int().nullable(),
    counts: z.record(z.string().min(1).max(4), z.int().min(0)),
    nested: z.array(z.object({ at: z.int().min(0).max(60), note: z.string().optional() })).max(3),
    withDefault: z.int().min(1).max(2).default(1),
  }),
};

describe('arbitraryFromZod', () => {
  for (const [name, schema] of Object.entries(schemas)) {
    fcTest.prop([arbitraryFromZod(schema)], { numRuns: 200 })(`every generated ${name} value parses`, (value) => {
      const parsed = schema.safeParse(value);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    });
  }

  test('optional keys are sometimes absent and nullable values sometimes null', () => {
    const values = fc.sample(arbitraryFromZod(schemas.shapes), { numRuns: 200, seed: 3 });
    expect(values.some((v) => !('maybe' in v))).toBe(true);
    expect(values.some((v) => typeof v.maybe === 'string')).toBe(true);
    expect(values.some((v) => v.nothing === null)).toBe(true);
  });

  test('a .meta({ arbitrary }) and an overrides path replace the derived arbitrary', () => {
    const schema = z.object({
      service: z
        .string()
        .regex(/^[a-z]+$/)
        .meta({ arbitrary: fc.constantFrom('auth', 'mailer') }),
      lines: z.array(z.object({ text: z.string() })).max(3),
    });
    const arb = arbitraryFromZod(schema, { overrides: { 'lines.text': fc.constant('2024-01-01 INFO [a] b') } });
    for (const v of fc.sample(arb, { numRuns: 100, seed: 1 })) {
      expect(['auth', 'mailer']).toContain(v.service);
      for (const l of v.lines) expect(l.text).toBe('2024-01-01 INFO [a] b');
    }
  });

  test('the same seed gives the same values', () => {
    const arb = arbitraryFromZod(schemas.shapes);
    expect(fc.sample(arb, { numRuns: 20, seed: 99 })).toEqual(fc.sample(arb, { numRuns: 20, seed: 99 }));
  });

  test('a zod 3 schema is refused in one line that says how to get zod 4', () => {
    const schema = z3.object({ text: z3.string() });
    expect(() => arbitraryFromZod(schema as never)).toThrow(UnsupportedSchemaError);
    expect(() => arbitraryFromZod(schema as never)).toThrow(
      /^arbitraryFromZod: a zod 3 schema; heldout derives inputs from zod 4 schemas: import \{ z \} from 'zod\/v4'/,
    );
  });

  test('an unsupported construct is refused with its path', () => {
    expect(() => arbitraryFromZod(z.object({ when: z.date() }))).toThrow(UnsupportedSchemaError);
    expect(() => arbitraryFromZod(z.object({ when: z.date() }))).toThrow(/when: zod type "date"/);
  });
});
