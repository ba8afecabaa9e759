import { floatRepr } from './number.js';
import { dateText, dateTimeText, str } from './repr.js';
import { PyDate, PyDateTime, PyEnumMember, PyFloat, PyModel, PyTuple, type PyValue, pyInt } from './values.js';

/**
 * Between the Python world and heldout's plain JSON values. `toPlain` is what `JSON.parse` of the value's τ² text
 * gives (`json.dumps(v, default=str)`); `fromPlain` reads a plain value back as Python would have parsed its JSON: an
 * integral number is an int, any other a float, and a `PyFloat` kept in a plain structure stays a float.
 */

function plainObject(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    if (k === '__proto__')
      Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    else o[k] = v;
  }
  return o;
}

export interface PlainOptions {
  /** Keep an integral float boxed (`PyFloat`), so a task's `2.0` survives the plain world (default: a number). */
  keepFloats?: boolean;
}

/** The plain JSON view of a Python value. */
export function toPlain(v: PyValue, options: PlainOptions = {}): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PyFloat) return options.keepFloats && Number.isInteger(v.v) ? v : v.v;
  if (Array.isArray(v)) return v.map((x) => toPlain(x, options));
  if (v instanceof PyTuple) return v.items.map((x) => toPlain(x, options));
  if (v instanceof Map) return plainObject([...v].map(([k, x]) => [k, toPlain(x, options)]));
  if (v instanceof PyModel) return plainObject(v.cls.fieldNames.map((n) => [n, toPlain(v.f[n] as PyValue, options)]));
  if (v instanceof PyEnumMember) return v.value;
  if (v instanceof PyDateTime) return dateTimeText(v);
  if (v instanceof PyDate) return dateText(v);
  return str(v);
}

/** A plain JSON value (numbers, objects, arrays) as the Python value its JSON text parses to. */
export function fromPlain(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'bigint':
      return pyInt(v);
    case 'number':
      return Number.isInteger(v) && !Object.is(v, -0) ? pyInt(v) : new PyFloat(v);
  }
  if (
    v instanceof PyFloat ||
    v instanceof PyModel ||
    v instanceof PyEnumMember ||
    v instanceof PyDate ||
    v instanceof PyTuple
  )
    return v;
  if (Array.isArray(v)) return v.map(fromPlain);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [String(k), fromPlain(x)]));
  return new Map(Object.keys(v as object).map((k) => [k, fromPlain((v as Record<string, unknown>)[k])]));
}

const MARK = '\u0000pyfloat:';
const MARKED = /"\\u0000pyfloat:([^"]*)"/g;

/**
 * `JSON.stringify` that writes a boxed float as Python does (`2.0`), so a task's floats survive a truth.json or a
 * protocol message. Everything else is JSON.stringify's.
 */
export function plainJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(
    value,
    function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = key === '' ? value : this[key];
      if (raw instanceof PyFloat) return `${MARK}${Number.isFinite(raw.v) ? floatRepr(raw.v) : 'null'}`;
      return v;
    },
    indent,
  );
  return text.replace(MARKED, '$1');
}
