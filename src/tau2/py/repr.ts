import { pyTypeError, pyValueError } from './errors.js';
import { fixedText, floatRepr } from './number.js';
import { PyDate, PyDateTime, PyEnumMember, PyFloat, PyModel, PyTuple, type PyValue, typeName } from './values.js';

// Python's str.isprintable: everything but these categories (the space excepted) is escaped by repr.
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** `repr(s)` of a Python str: single quotes unless only double quotes avoid escaping, non-printables escaped. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || !NOT_PRINTABLE.test(ch) || ch === ' ') out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

const two = (n: number) => String(n).padStart(2, '0');

/** `date.isoformat()`. */
export function dateText(d: PyDate | PyDateTime): string {
  return `${String(d.y).padStart(4, '0')}-${two(d.m)}-${two(d.d)}`;
}

/** `str(datetime)`: the date, a space, the time, microseconds and offset when present. */
export function dateTimeText(d: PyDateTime, sep = ' '): string {
  const us = d.us ? `.${String(d.us).padStart(6, '0')}` : '';
  return `${dateText(d)}${sep}${two(d.hh)}:${two(d.mm)}:${two(d.ss)}${us}${d.utc ? '+00:00' : ''}`;
}

/** `repr(v)`. */
export function repr(v: PyValue): string {
  if (v === null) return 'None';
  switch (typeof v) {
    case 'boolean':
      return v ? 'True' : 'False';
    case 'number':
    case 'bigint':
      return String(v);
    case 'string':
      return strRepr(v);
  }
  if (v instanceof PyFloat) return floatRepr(v.v);
  if (Array.isArray(v)) return `[${v.map(repr).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${strRepr(k)}: ${repr(x)}`).join(', ')}}`;
  if (v instanceof PyTuple)
    return v.items.length === 1 ? `(${repr(v.items[0])},)` : `(${v.items.map(repr).join(', ')})`;
  if (v instanceof PyModel)
    return `${v.cls.name}(${v.cls.fieldNames.map((n) => `${n}=${repr(v.f[n] as PyValue)}`).join(', ')})`;
  if (v instanceof PyEnumMember) return `<${v.enumName}.${v.name}: ${strRepr(v.value)}>`;
  if (v instanceof PyDateTime) {
    const parts = [v.y, v.m, v.d, v.hh, v.mm];
    if (v.ss || v.us) parts.push(v.ss);
    if (v.us) parts.push(v.us);
    return `datetime.datetime(${parts.join(', ')}${v.utc ? ', tzinfo=TzInfo(0)' : ''})`;
  }
  if (v instanceof PyDate) return `datetime.date(${v.y}, ${v.m}, ${v.d})`;
  return '<object>';
}

/** `str(v)`, as f-strings and `Error: {e}` render values (Python 3.11: a str enum member prints as `Cls.NAME`). */
export function str(v: PyValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof PyEnumMember) return `${v.enumName}.${v.name}`;
  if (v instanceof PyModel) return v.cls.fieldNames.map((n) => `${n}=${repr(v.f[n] as PyValue)}`).join(' ');
  if (v instanceof PyDateTime) return dateTimeText(v);
  if (v instanceof PyDate) return dateText(v);
  return repr(v);
}

/**
 * `format(v, spec)` for the specs τ²'s tools use: '' (str) and '.{n}f'; anything else is refused loudly, so a port
 * never silently formats differently.
 */
export function format(v: PyValue, spec: string): string {
  if (spec === '') return str(v);
  const m = /^\.(\d+)f$/.exec(spec);
  if (!m) throw new Error(`format spec ${spec} is not implemented`);
  const n = Number(m[1]);
  if (typeof v === 'number' || typeof v === 'boolean') return fixedText(Number(v), n);
  if (typeof v === 'bigint') return fixedText(Number(v), n);
  if (v instanceof PyFloat) return fixedText(v.v, n);
  if (typeof v === 'string' || v instanceof PyEnumMember)
    throw pyValueError(`Unknown format code 'f' for object of type 'str'`);
  throw pyTypeError(`unsupported format string passed to ${typeName(v)}.__format__`);
}
