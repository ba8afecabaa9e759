import fc, { type Arbitrary } from 'fast-check';
import type { z } from 'zod';

/** What a zod 3 schema is told: the derivation reads zod 4's structure, and how to get it without leaving zod 3. */
export const ZOD3 =
  "input: a zod 3 schema; heldout derives inputs from zod 4 schemas: import { z } from 'zod/v4' (zod 3.25 and later ship it) or install zod 4";

/** 4 for a zod 4 schema (its structure in `_zod`), 3 for a zod 3 one (`_def` only), null for neither. */
export function zodMajor(schema: unknown): 3 | 4 | null {
  if (!schema || typeof schema !== 'object') return null;
  if ('_zod' in schema) return 4;
  return '_def' in schema ? 3 : null;
}

/** Thrown when a schema uses a zod construct the derivation does not cover; names the dotted path. */
export class UnsupportedSchemaError extends Error {
  constructor(path: string, what: string) {
    super(`arbitraryFromZod: ${path || '(root)'}: ${what} is not supported; give an arbitrary for it (meta or map)`);
    this.name = 'UnsupportedSchemaError';
  }
}

export interface ArbitraryOptions {
  /** Arbitraries at dotted paths (array items take their array's path), overriding the derived ones. */
  overrides?: Record<string, Arbitrary<unknown>>;
}

// zod 4 keeps a schema's structure in `_zod.def`; reading it structurally works across module instances.
interface Def {
  type: string;
  checks?: { _zod: { def: Record<string, unknown> } }[];
  [k: string]: unknown;
}
type Node = {
  _zod: { def: Def; values?: Set<PropertyKey> };
  meta?: () => Record<string, unknown> | undefined;
  safeParse(v: unknown): { success: boolean };
};

/**
 * Derives a fast-check arbitrary whose every value parses with `schema`. Covers the zod 4 subset commissions need:
 * object, string (min/max/length, regex, common formats), enum, literal, number/int ranges, boolean, array
 * (min/max), union, optional, nullable, record, default. A schema node with `.meta({ arbitrary })`, or a path in
 * `overrides`, uses that arbitrary instead; constraints it cannot derive are enforced by filtering with the schema.
 */
export function arbitraryFromZod<S extends z.ZodType>(
  schema: S,
  options: ArbitraryOptions = {},
): Arbitrary<z.output<S>> {
  // A zod 3 schema has no `_zod`: say so in one line rather than fail on a property read deep in the walk.
  if (zodMajor(schema) === 3) {
    const err = new UnsupportedSchemaError('', 'zod 3');
    err.message = `arbitraryFromZod: ${ZOD3.replace(/^input: /, '')}`;
    throw err;
  }
  return derive(schema as unknown as Node, '', options.overrides ?? {}) as Arbitrary<z.output<S>>;
}

function derive(node: Node, path: string, overrides: Record<string, Arbitrary<unknown>>): Arbitrary<unknown> {
  const given = overrides[path] ?? metaArbitrary(node);
  if (given) return given;
  const def = node._zod.def;
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const known = new Set<string>();
  const check = (name: string) => {
    known.add(name);
    return checks.filter((c) => c.check === name);
  };
  const join = (key: string) => (path ? `${path}.${key}` : key);
  let arb: Arbitrary<unknown>;
  switch (def.type) {
    case 'string': {
      const min = Math.max(0, ...check('min_length').map((c) => c.minimum as number));
      const maxes = check('max_length').map((c) => c.maximum as number);
      const exact = check('length_equals').map((c) => c.length as number);
      const max = exact.length ? exact[0]! : maxes.length ? Math.min(...maxes) : undefined;
      const lo = exact.length ? exact[0]! : min;
      const formats = check('string_format');
      const regex = formats.find((c) => c.format === 'regex')?.pattern as RegExp | undefined;
      const format =
        (def.format as string | undefined) ?? formats.find((c) => BASE_FORMATS.has(String(c.format)))?.format;
      const formatPattern = (def.pattern ?? formats.find((c) => c.format === format)?.pattern) as RegExp | undefined;
      let base = regex
        ? fc.stringMatching(regex)
        : format
          ? formatArbitrary(String(format), path, formatPattern).filter((v) => node.safeParse(v).success)
          : null;
      // Affixes and case are imposed on whatever the base generates; the schema filter below checks the rest.
      const affix = (f: string) => formats.find((c) => c.format === f);
      if (affix('starts_with') || affix('ends_with') || affix('includes') || affix('lowercase') || affix('uppercase')) {
        const inner = base ?? fc.string({ maxLength: max === undefined ? 10 : Math.max(0, max - 2) });
        base = inner.map((s0) => {
          let s1 = `${(affix('starts_with')?.prefix as string) ?? ''}${s0}${(affix('includes')?.includes as string) ?? ''}${(affix('ends_with')?.suffix as string) ?? ''}`;
          if (affix('lowercase')) s1 = s1.toLowerCase();
          if (affix('uppercase')) s1 = s1.toUpperCase();
          return s1;
        });
      }
      arb = base
        ? base.filter((s) => s.length >= lo && (max === undefined || s.length <= max))
        : fc.string({ minLength: lo, ...(max === undefined ? {} : { maxLength: max }) });
      for (const f of formats) known.add(`format:${String(f.format)}`);
      break;
    }
    case 'number':
      arb = numberArbitrary(def, checks, known);
      break;
    case 'boolean':
      arb = fc.boolean();
      break;
    case 'enum':
      arb = fc.constantFrom(...Object.values(def.entries as Record<string, string | number>));
      break;
    case 'literal':
      arb = fc.constantFrom(...(def.values as unknown[]));
      break;
    case 'null':
      arb = fc.constant(null);
      break;
    case 'undefined':
      arb = fc.constant(undefined);
      break;
    case 'optional':
      arb = fc.option(derive(def.innerType as Node, path, overrides), { nil: undefined });
      break;
    case 'nullable':
      arb = fc.option(derive(def.innerType as Node, path, overrides), { nil: null });
      break;
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      arb = derive(def.innerType as Node, path, overrides);
      break;
    case 'pipe':
      arb = derive(def.in as Node, path, overrides);
      break;
    case 'array': {
      const min = Math.max(0, ...check('min_length').map((c) => c.minimum as number));
      const maxes = check('max_length').map((c) => c.maximum as number);
      const exact = check('length_equals').map((c) => c.length as number);
      const max = exact.length ? exact[0]! : maxes.length ? Math.min(...maxes) : undefined;
      arb = fc.array(derive(def.element as Node, path, overrides), {
        minLength: exact.length ? exact[0]! : min,
        ...(max === undefined ? {} : { maxLength: max }),
      });
      break;
    }
    case 'object': {
      const shape = def.shape as Record<string, Node>;
      const model: Record<string, Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [key, child] of Object.entries(shape)) {
        model[key] = derive(child, join(key), overrides);
        if (child._zod.def.type !== 'optional') required.push(key);
      }
      arb = fc.record(model, { requiredKeys: required });
      break;
    }
    case 'record': {
      const value = derive(def.valueType as Node, path, overrides);
      // An enum or literal key type names the keys: zod then demands every one of them (z.partialRecord: any
      // subset, z.looseRecord: others too), so each is generated, as an object's required keys are.
      const keys = (def.keyType as Node)._zod.values as Set<PropertyKey> | undefined;
      if (keys && keys.size > 0) {
        const model = Object.fromEntries([...keys].map((k) => [String(k), value]));
        arb = fc.record(model, { requiredKeys: def.partial ? [] : Object.keys(model) });
      } else {
        const keyArb = derive(def.keyType as Node, path, overrides).map(String);
        arb = fc.dictionary(keyArb, value, { maxKeys: 5 });
      }
      break;
    }
    case 'union':
      arb = fc.oneof(...(def.options as Node[]).map((o) => derive(o, path, overrides)));
      break;
    default:
      throw new UnsupportedSchemaError(path, `zod type "${def.type}"`);
  }
  // Checks not understood above (refinements, startsWith, multipleOf, …) are kept by filtering with the schema.
  const unknownChecks = checks.some((c) => !known.has(String(c.check)) && !known.has(`format:${String(c.format)}`));
  return unknownChecks ? arb.filter((v) => node.safeParse(v).success) : arb;
}

const BASE_FORMATS = new Set([
  'email',
  'uuid',
  'guid',
  'url',
  'datetime',
  'date',
  'cuid',
  'cuid2',
  'ulid',
  'ipv4',
  'ipv6',
  'base64',
  'e164',
]);

function metaArbitrary(node: Node): Arbitrary<unknown> | undefined {
  const m = typeof node.meta === 'function' ? node.meta() : undefined;
  const a = m?.arbitrary;
  return a && typeof (a as Arbitrary<unknown>).generate === 'function' ? (a as Arbitrary<unknown>) : undefined;
}

function numberArbitrary(def: Def, checks: Record<string, unknown>[], known: Set<string>): Arbitrary<number> {
  let min = -Number.MAX_VALUE;
  let max = Number.MAX_VALUE;
  let minExcluded = false;
  let maxExcluded = false;
  let integer = typeof def.format === 'string' && /int/.test(def.format);
  for (const c of checks) {
    if (c.check === 'greater_than') {
      known.add('greater_than');
      const v = c.value as number;
      if (v > min || (v === min && !c.inclusive)) [min, minExcluded] = [v, !c.inclusive];
    } else if (c.check === 'less_than') {
      known.add('less_than');
      const v = c.value as number;
      if (v < max || (v === max && !c.inclusive)) [max, maxExcluded] = [v, !c.inclusive];
    } else if (c.check === 'number_format') {
      known.add('number_format');
      if (/int/.test(String(c.format))) integer = true;
    }
  }
  if (integer) {
    const lo = Math.max(Number.MIN_SAFE_INTEGER, minExcluded ? Math.floor(min) + 1 : Math.ceil(min));
    const hi = Math.min(Number.MAX_SAFE_INTEGER, maxExcluded ? Math.ceil(max) - 1 : Math.floor(max));
    // Unbounded ints stay in the 32-bit range, where shrinking is quick and every value is a safe integer.
    return fc.integer({ min: Math.max(lo, -0x80000000), max: Math.min(hi, 0x7fffffff) });
  }
  return fc.double({ min, max, minExcluded, maxExcluded, noNaN: true, noDefaultInfinity: true });
}

function formatArbitrary(format: string, path: string, pattern: RegExp | undefined): Arbitrary<string> {
  switch (format) {
    case 'uuid':
    case 'guid':
      return fc.uuid();
    case 'url':
      return fc.webUrl();
    case 'datetime':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    default:
      // zod's own pattern for the format (email, cuid, ipv4, …) generates values it accepts.
      if (pattern instanceof RegExp) return fc.stringMatching(pattern);
      throw new UnsupportedSchemaError(path, `string format "${format}"`);
  }
}
