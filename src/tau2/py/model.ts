import { PyException } from './errors.js';
import { repr } from './repr.js';
import {
  PyDate,
  PyDateTime,
  PyEnumMember,
  PyFloat,
  PyModel,
  PyTuple,
  type PyValue,
  pyInt,
  typeName,
} from './values.js';

/**
 * The part of pydantic 2 that τ²'s data models use, in its lax (python) mode: field types, defaults, `extra`
 * ('ignore', or 'forbid' for `BaseModelNoExtra`), validation with pydantic's coercions and its error text, and
 * `model_dump`. Assignment is never validated (τ²'s models have no `validate_assignment`), so a field holds whatever
 * a tool stored in it, and `model_dump` passes it through as pydantic does.
 */

/** The pydantic minor version whose error URLs these texts carry (the one τ²'s reference runs with here). */
export const PYDANTIC_VERSION = '2.13';

/** A str `Enum` of τ²'s (`class LineStatus(str, Enum)`). */
export class PyEnum {
  readonly members: ReadonlyMap<string, PyEnumMember>;
  constructor(
    readonly name: string,
    values: Record<string, string>,
  ) {
    this.members = new Map(Object.entries(values).map(([k, v]) => [v, new PyEnumMember(name, k, v)]));
  }
  /** The member whose value is `value`; throws when there is none (a port bug, not an agent's). */
  of(value: string): PyEnumMember {
    const m = this.members.get(value);
    if (!m) throw new Error(`${this.name} has no member ${value}`);
    return m;
  }
}

export type FieldType =
  | { k: 'str' | 'int' | 'float' | 'bool' | 'any' | 'date' | 'datetime' }
  | { k: 'literal'; values: readonly string[] }
  | { k: 'optional'; t: FieldType }
  | { k: 'list'; t: FieldType }
  | { k: 'dict'; key: FieldType; val: FieldType }
  | { k: 'model'; cls: () => ModelSpec }
  | { k: 'union'; members: readonly FieldType[] }
  | { k: 'enum'; e: PyEnum };

/** Field type constructors, named as in τ²'s annotations. */
export const t = {
  str: { k: 'str' } as FieldType,
  int: { k: 'int' } as FieldType,
  float: { k: 'float' } as FieldType,
  bool: { k: 'bool' } as FieldType,
  any: { k: 'any' } as FieldType,
  date: { k: 'date' } as FieldType,
  datetime: { k: 'datetime' } as FieldType,
  lit: (...values: string[]): FieldType => ({ k: 'literal', values }),
  opt: (inner: FieldType): FieldType => ({ k: 'optional', t: inner }),
  list: (inner: FieldType): FieldType => ({ k: 'list', t: inner }),
  dict: (key: FieldType, val: FieldType): FieldType => ({ k: 'dict', key, val }),
  model: (cls: () => ModelSpec): FieldType => ({ k: 'model', cls }),
  union: (...members: FieldType[]): FieldType => ({ k: 'union', members }),
  enum: (e: PyEnum): FieldType => ({ k: 'enum', e }),
};

export interface FieldSpec {
  type: FieldType;
  /** A fresh default per instance (pydantic copies defaults); absent = required. */
  default?: () => PyValue;
  /** `validate_default=True`. */
  validateDefault?: boolean;
}

/** A pydantic model class. */
export class ModelSpec {
  readonly fieldNames: readonly string[];
  constructor(
    readonly name: string,
    readonly fields: Readonly<Record<string, FieldSpec>>,
    readonly extra: 'ignore' | 'forbid' = 'ignore',
  ) {
    this.fieldNames = Object.keys(fields);
  }
}

/** A model class: `fields` maps each name to its type, or to `[type, default]`. */
export function defineModel(
  name: string,
  fields: Record<string, FieldType | [FieldType, () => PyValue] | FieldSpec>,
  extra: 'ignore' | 'forbid' = 'ignore',
): ModelSpec {
  const specs: Record<string, FieldSpec> = {};
  for (const [n, f] of Object.entries(fields)) {
    specs[n] = Array.isArray(f) ? { type: f[0], default: f[1] } : 'type' in f ? (f as FieldSpec) : { type: f };
  }
  return new ModelSpec(name, specs, extra);
}

export interface LineError {
  loc: (string | number)[];
  type: string;
  msg: string;
  input: PyValue;
}

/** pydantic's `ValidationError`: `str(e)` is its multi-line text, as τ² hands it to the agent. */
export class ValidationError extends PyException {
  constructor(
    readonly title: string,
    readonly errors: LineError[],
  ) {
    super('ValidationError', validationText(title, errors));
  }
}

const utf8 = new TextEncoder();
const utf8Decode = new TextDecoder();

// pydantic-core shortens an input's repr longer than 50 bytes to its first 25 and last 24 bytes (on char bounds).
function shortRepr(v: PyValue): string {
  const r = repr(v);
  const bytes = utf8.encode(r);
  if (bytes.length <= 50) return r;
  let head = 25;
  while (head > 0 && (bytes[head] & 0xc0) === 0x80) head--;
  let tail = bytes.length - 24;
  while (tail < bytes.length && (bytes[tail] & 0xc0) === 0x80) tail++;
  return `${utf8Decode.decode(bytes.slice(0, head))}...${utf8Decode.decode(bytes.slice(tail))}`;
}

function validationText(title: string, errors: LineError[]): string {
  const n = errors.length;
  const lines = [`${n} validation error${n === 1 ? '' : 's'} for ${title}`];
  for (const e of errors) {
    lines.push(
      e.loc.join('.'),
      `  ${e.msg} [type=${e.type}, input_value=${shortRepr(e.input)}, input_type=${typeName(e.input)}]`,
      `    For further information visit https://errors.pydantic.dev/${PYDANTIC_VERSION}/v/${e.type}`,
    );
  }
  return lines.join('\n');
}

const FAIL = Symbol('fail');
/** A location, built lazily: only an error turns it into pydantic's `loc` list. */
type Loc = { up: Loc; key: string | number } | null;
const at = (up: Loc, key: string | number): Loc => ({ up, key });
function locList(loc: Loc): (string | number)[] {
  const out: (string | number)[] = [];
  for (let l = loc; l; l = l.up) out.push(l.key);
  return out.reverse();
}
const locOf = (keys: (string | number)[]): Loc => keys.reduce<Loc>((l, k) => at(l, k), null);
type Out = PyValue | typeof FAIL;

const quoteList = (values: readonly string[]) => {
  const q = values.map((v) => repr(v));
  return q.length === 1 ? q[0] : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
};

const INT_TEXT = /^[+-]?\d(?:_?\d)*(?:\.0*)?$/;
const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d+)?|\d(?:_?\d)*\.?(?:[eE][+-]?\d+)?)$/;
const BOOL_TEXT: Record<string, boolean> = {
  '0': false,
  off: false,
  f: false,
  false: false,
  n: false,
  no: false,
  '1': true,
  on: true,
  t: true,
  true: true,
  y: true,
  yes: true,
};
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z)?)?$/;

// A surrogate not in a pair: with the `u` flag a pair is one code point outside this range.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** The field kinds whose validation reads a str's text (a `str` field keeps the str as it is). */
const PARSES_STR: ReadonlySet<FieldType['k']> = new Set([
  'int',
  'float',
  'bool',
  'literal',
  'enum',
  'date',
  'datetime',
]);

/** Validates `v` against `type` (lax mode), pushing pydantic's errors under `loc`. */
function check(type: FieldType, v: PyValue, loc: Loc, errs: LineError[]): Out {
  const fail = (t: string, msg: string): Out => {
    errs.push({ loc: locList(loc), type: t, msg, input: v });
    return FAIL;
  };
  // pydantic-core reads a str it must parse (a number, a literal, a date) as UTF-8 first: a lone surrogate fails there.
  if (typeof v === 'string' && PARSES_STR.has(type.k) && LONE_SURROGATE.test(v))
    return fail('string_unicode', 'Input should be a valid string, unable to parse raw data as a unicode string');
  switch (type.k) {
    case 'any':
      return v;
    case 'str':
      if (typeof v === 'string') return v;
      if (v instanceof PyEnumMember) return v.value;
      return fail('string_type', 'Input should be a valid string');
    case 'int': {
      if (typeof v === 'number' || typeof v === 'bigint') return v;
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (v instanceof PyFloat) {
        if (!Number.isFinite(v.v)) return fail('finite_number', 'Input should be a finite number');
        if (Math.abs(v.v) >= 2 ** 63)
          return fail('int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size');
        if (!Number.isInteger(v.v))
          return fail('int_from_float', 'Input should be a valid integer, got a number with a fractional part');
        return pyInt(v.v);
      }
      if (typeof v === 'string') {
        const s = v.trim();
        if (!INT_TEXT.test(s))
          return fail('int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
        return pyInt(BigInt(s.replace(/_/g, '').replace(/\.0*$/, '')));
      }
      return fail('int_type', 'Input should be a valid integer');
    }
    case 'float': {
      if (v instanceof PyFloat) return v;
      if (typeof v === 'number' || typeof v === 'boolean') return new PyFloat(Number(v));
      if (typeof v === 'bigint') {
        const f = Number(v);
        return Number.isFinite(f) ? new PyFloat(f) : fail('float_type', 'Input should be a valid number');
      }
      if (typeof v === 'string') {
        const s = v.trim();
        const low = s.toLowerCase().replace(/^[+-]/, '');
        if (low === 'inf' || low === 'infinity' || low === 'nan') {
          const x = low === 'nan' ? Number.NaN : Number.POSITIVE_INFINITY;
          return new PyFloat(s.startsWith('-') ? -x : x);
        }
        if (!FLOAT_TEXT.test(s))
          return fail('float_parsing', 'Input should be a valid number, unable to parse string as a number');
        return new PyFloat(Number(s.replace(/_/g, '')));
      }
      return fail('float_type', 'Input should be a valid number');
    }
    case 'bool': {
      if (typeof v === 'boolean') return v;
      const n = typeof v === 'number' || typeof v === 'bigint' ? Number(v) : v instanceof PyFloat ? v.v : undefined;
      if (n !== undefined) {
        if (n === 0 || n === 1) return n === 1;
        if (v instanceof PyFloat && !Number.isInteger(n)) return fail('bool_type', 'Input should be a valid boolean');
        return fail('bool_parsing', 'Input should be a valid boolean, unable to interpret input');
      }
      if (typeof v === 'string') {
        const b = BOOL_TEXT[v.toLowerCase()];
        return b ?? fail('bool_parsing', 'Input should be a valid boolean, unable to interpret input');
      }
      return fail('bool_type', 'Input should be a valid boolean');
    }
    case 'literal': {
      const s = v instanceof PyEnumMember ? v.value : v;
      if (typeof s === 'string' && type.values.includes(s)) return s;
      return fail('literal_error', `Input should be ${quoteList(type.values)}`);
    }
    case 'enum': {
      if (v instanceof PyEnumMember && v.enumName === type.e.name) return v;
      const s = v instanceof PyEnumMember ? v.value : v;
      const m = typeof s === 'string' ? type.e.members.get(s) : undefined;
      return m ?? fail('enum', `Input should be ${quoteList([...type.e.members.keys()])}`);
    }
    case 'optional':
      return v === null ? null : check(type.t, v, loc, errs);
    case 'list': {
      const items = Array.isArray(v) ? v : v instanceof PyTuple ? v.items : undefined;
      if (!items) return fail('list_type', 'Input should be a valid list');
      let bad = false;
      const out = items.map((x, k) => {
        const r = check(type.t, x, at(loc, k), errs);
        if (r === FAIL) bad = true;
        return r as PyValue;
      });
      return bad ? FAIL : out;
    }
    case 'dict': {
      if (!(v instanceof Map)) return fail('dict_type', 'Input should be a valid dictionary');
      let bad = false;
      const out = new Map<string, PyValue>();
      for (const [k, x] of v) {
        const key = check(type.key, k, at(at(loc, k), '[key]'), errs);
        const val = check(type.val, x, at(loc, k), errs);
        if (key === FAIL || val === FAIL) bad = true;
        else out.set(key instanceof PyEnumMember ? key.value : (key as string), val);
      }
      return bad ? FAIL : out;
    }
    case 'model': {
      const cls = type.cls();
      if (v instanceof PyModel && v.cls === cls) return v;
      if (!(v instanceof Map))
        return fail('model_type', `Input should be a valid dictionary or instance of ${cls.name}`);
      return fields(cls, v, loc, errs);
    }
    case 'union': {
      for (const m of type.members) if (m.k === 'model' && v instanceof PyModel && v.cls === m.cls()) return v;
      const all: LineError[] = [];
      for (const m of type.members) {
        const mine: LineError[] = [];
        const tag = m.k === 'model' ? m.cls().name : m.k;
        const r = check(m, v, at(loc, tag), mine);
        if (r !== FAIL) return r;
        all.push(...mine);
      }
      errs.push(...all);
      return FAIL;
    }
    case 'date': {
      if (v instanceof PyDate && !(v instanceof PyDateTime)) return v;
      const m = typeof v === 'string' ? (DATE_TEXT.exec(v) ?? DATETIME_TEXT.exec(v)) : null;
      if (m && !(m[4] && (Number(m[4]) || Number(m[5]) || Number(m[6] ?? 0))))
        return new PyDate(Number(m[1]), Number(m[2]), Number(m[3]));
      return fail('date_from_datetime_parsing', 'Input should be a valid date or datetime');
    }
    case 'datetime': {
      if (v instanceof PyDateTime) return v;
      if (v instanceof PyDate) return new PyDateTime(v.y, v.m, v.d);
      const m = typeof v === 'string' ? DATETIME_TEXT.exec(v) : null;
      if (m) {
        const us = m[7] ? Number(m[7].padEnd(6, '0')) : 0;
        const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((k) => Number(m[k] ?? 0));
        return new PyDateTime(y, mo, d, h, mi, s, us, m[8] === 'Z');
      }
      return fail('datetime_from_date_parsing', 'Input should be a valid datetime or date');
    }
  }
}

function fields(cls: ModelSpec, input: Map<string, PyValue>, loc: Loc, errs: LineError[]): Out {
  const f: Record<string, PyValue> = {};
  let bad = false;
  for (const name of cls.fieldNames) {
    const spec = cls.fields[name];
    let r: Out;
    if (input.has(name)) r = check(spec.type, input.get(name) as PyValue, at(loc, name), errs);
    else if (spec.default) {
      const d = spec.default();
      r = spec.validateDefault ? check(spec.type, d, at(loc, name), errs) : d;
    } else {
      errs.push({ loc: locList(at(loc, name)), type: 'missing', msg: 'Field required', input });
      r = FAIL;
    }
    if (r === FAIL) bad = true;
    else f[name] = r;
  }
  if (cls.extra === 'forbid')
    for (const [k, x] of input) {
      if (Object.hasOwn(cls.fields, k)) continue;
      errs.push({ loc: locList(at(loc, k)), type: 'extra_forbidden', msg: 'Extra inputs are not permitted', input: x });
      bad = true;
    }
  return bad ? FAIL : new PyModel(cls, f);
}

/** `Cls(**data)` / `Cls.model_validate(data)`: the instance, or pydantic's ValidationError. */
export function construct(cls: ModelSpec, data: Map<string, PyValue>): PyModel {
  const errs: LineError[] = [];
  const r = fields(cls, data, null, errs);
  if (r === FAIL) throw new ValidationError(cls.name, errs);
  return r as PyModel;
}

/** Validates one value against a field type (e.g. a record of a dict field), errors under `loc`, titled `title`. */
export function validateAs(type: FieldType, v: PyValue, title: string, loc: (string | number)[] = []): PyValue {
  const errs: LineError[] = [];
  const r = check(type, v, locOf(loc), errs);
  if (r === FAIL) throw new ValidationError(title, errs);
  return r as PyValue;
}

/** `Cls(field=value, …)` with the keywords given as an object (in the order the Python call names them). */
export const make = (cls: ModelSpec, data: Record<string, PyValue>) => construct(cls, new Map(Object.entries(data)));

/** `model_dump()` (python mode): models become dicts in field order, containers are copied, everything else as is. */
export function modelDump(v: PyValue): PyValue {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof PyModel) {
    const out = new Map<string, PyValue>();
    for (const n of v.cls.fieldNames) out.set(n, modelDump(v.f[n] as PyValue));
    return out;
  }
  if (Array.isArray(v)) return v.map(modelDump);
  if (v instanceof Map) {
    const out = new Map<string, PyValue>();
    for (const [k, x] of v) out.set(k, modelDump(x));
    return out;
  }
  if (v instanceof PyTuple) return new PyTuple(v.items.map(modelDump));
  return v;
}
