import { pyOverflow, pyTypeError, pyZeroDivision } from './errors.js';
import { strCompare } from './json.js';
import { intToFloat } from './number.js';
import {
  isNumber,
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
 * Python's operators over `PyValue`s, with Python's results and Python's exact TypeError texts: what τ²'s tools do
 * when an agent passes "2" or 2.0 or a list where an int was meant.
 */

type Num = number | bigint | boolean | PyFloat;

/** `bool(v)`. */
export function truthy(v: PyValue): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    case 'string':
      return v.length > 0;
  }
  if (v instanceof PyFloat) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof PyEnumMember) return v.value.length > 0;
  return true;
}

const intOf = (v: number | bigint | boolean): number | bigint => (typeof v === 'boolean' ? (v ? 1 : 0) : v);

/** The float of an int operand; OverflowError as Python's when it has no double. */
function toFloat(v: Num): number {
  if (v instanceof PyFloat) return v.v;
  const f = intToFloat(intOf(v));
  if (f === undefined) throw pyOverflow('int too large to convert to float');
  return f;
}

function intArith(a: number | bigint, b: number | bigint, op: '+' | '-' | '*'): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = op === '+' ? a + b : op === '-' ? a - b : a * b;
    if (Number.isSafeInteger(r)) return pyInt(r);
  }
  const x = BigInt(a);
  const y = BigInt(b);
  return pyInt(op === '+' ? x + y : op === '-' ? x - y : x * y);
}

/** Numeric result of `a op b` for int/float/bool operands. */
function numArith(a: Num, b: Num, op: '+' | '-' | '*' | '/'): PyValue {
  if (op === '/') {
    const bf = toFloat(b);
    if (bf === 0)
      throw pyZeroDivision(
        a instanceof PyFloat || b instanceof PyFloat ? 'float division by zero' : 'division by zero',
      );
    return new PyFloat(toFloat(a) / bf);
  }
  if (a instanceof PyFloat || b instanceof PyFloat) {
    const x = toFloat(a);
    const y = toFloat(b);
    return new PyFloat(op === '+' ? x + y : op === '-' ? x - y : x * y);
  }
  return intArith(intOf(a), intOf(b), op);
}

const isSeq = (v: PyValue): v is string | PyValue[] | PyTuple =>
  typeof v === 'string' || Array.isArray(v) || v instanceof PyTuple || v instanceof PyEnumMember;
const seqText = (v: PyValue) => (v instanceof PyEnumMember ? v.value : v);

function repeat(seq: PyValue, times: number | bigint | boolean): PyValue {
  const n = Number(intOf(times));
  const s = seqText(seq);
  if (typeof s === 'string') return n > 0 ? s.repeat(n) : '';
  const items = Array.isArray(s) ? s : (s as PyTuple).items;
  const out: PyValue[] = [];
  for (let k = 0; k < n; k++) out.push(...items);
  return Array.isArray(s) ? out : new PyTuple(out);
}

const isIntLike = (v: PyValue): v is number | bigint | boolean =>
  typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';

/**
 * `a op b` for + - * /; `opText` is what TypeErrors name ('+=' for an in-place operator on an immutable value,
 * which Python reports under the augmented operator).
 */
export function arith(a: PyValue, b: PyValue, op: '+' | '-' | '*' | '/', opText: string = op): PyValue {
  if (isNumber(a) && isNumber(b)) return numArith(a, b, op);
  if (op === '+') {
    const x = seqText(a);
    const y = seqText(b);
    if (typeof x === 'string') {
      if (typeof y === 'string') return x + y;
      throw pyTypeError(`can only concatenate str (not "${typeName(b)}") to str`);
    }
    if (Array.isArray(x)) {
      if (Array.isArray(y)) return [...x, ...y];
      throw pyTypeError(`can only concatenate list (not "${typeName(b)}") to list`);
    }
    if (x instanceof PyTuple) {
      if (y instanceof PyTuple) return new PyTuple([...x.items, ...y.items]);
      throw pyTypeError(`can only concatenate tuple (not "${typeName(b)}") to tuple`);
    }
  }
  if (op === '*') {
    if (isSeq(a) && isIntLike(b)) return repeat(a, b);
    if (isSeq(b) && isIntLike(a)) return repeat(b, a);
    if (isSeq(a)) throw pyTypeError(`can't multiply sequence by non-int of type '${typeName(b)}'`);
    if (isSeq(b)) throw pyTypeError(`can't multiply sequence by non-int of type '${typeName(a)}'`);
  }
  throw pyTypeError(`unsupported operand type(s) for ${opText}: '${typeName(a)}' and '${typeName(b)}'`);
}

/** `a += b` / `a -= b` where the target holds an immutable value (numbers, str), as τ²'s tools use them. */
export const iadd = (a: PyValue, b: PyValue) => arith(a, b, '+', '+=');
export const isub = (a: PyValue, b: PyValue) => arith(a, b, '-', '-=');

/** `-v`. */
export function neg(v: PyValue): PyValue {
  if (v instanceof PyFloat) return new PyFloat(-v.v);
  if (isIntLike(v)) {
    const i = intOf(v);
    return typeof i === 'bigint' ? pyInt(-i) : pyInt(-i);
  }
  throw pyTypeError(`bad operand type for unary -: '${typeName(v)}'`);
}

/** Three-way comparison of two numbers, exact between ints and floats; NaN when either is NaN. */
function numCompare(a: Num, b: Num): number {
  if (!(a instanceof PyFloat) && !(b instanceof PyFloat)) {
    const x = intOf(a as number | bigint | boolean);
    const y = intOf(b as number | bigint | boolean);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  const x = a instanceof PyFloat ? a.v : intOf(a);
  const y = b instanceof PyFloat ? b.v : intOf(b);
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : x === y ? 0 : Number.NaN;
  // A bigint against a float: exact, via the float's integer part.
  const f = (typeof x === 'number' ? x : y) as number;
  if (Number.isNaN(f)) return Number.NaN;
  if (!Number.isFinite(f)) return typeof x === 'number' ? (f > 0 ? 1 : -1) : f > 0 ? -1 : 1;
  const fi = BigInt(Math.trunc(f));
  const big = (typeof x === 'bigint' ? x : y) as bigint;
  const c = big === fi ? (Number.isInteger(f) ? 0 : f > 0 ? -1 : 1) : big < fi ? -1 : 1;
  return typeof x === 'bigint' ? c : -c;
}

/** `a == b` (Python's value equality: 1 == 1.0 == True, an enum member equals its value, models by class and fields). */
export function eq(a: PyValue, b: PyValue): boolean {
  if (a === b) return !(a instanceof PyFloat && Number.isNaN(a.v));
  if (isNumber(a) && isNumber(b)) return numCompare(a, b) === 0;
  const x = a instanceof PyEnumMember ? a.value : a;
  const y = b instanceof PyEnumMember ? b.value : b;
  if (typeof x === 'string' || typeof y === 'string') return x === y;
  if (Array.isArray(x) && Array.isArray(y)) return sameItems(x, y);
  if (x instanceof PyTuple && y instanceof PyTuple) return sameItems(x.items, y.items);
  if (x instanceof Map && y instanceof Map) {
    if (x.size !== y.size) return false;
    for (const [k, v] of x) {
      if (!y.has(k)) return false;
      const w = y.get(k) as PyValue;
      if (v !== w && !eq(v, w)) return false;
    }
    return true;
  }
  if (x instanceof PyModel && y instanceof PyModel) {
    if (x.cls !== y.cls) return false;
    return x.cls.fieldNames.every((n) => x.f[n] === y.f[n] || eq(x.f[n] as PyValue, y.f[n] as PyValue));
  }
  if (x instanceof PyDateTime || y instanceof PyDateTime) {
    return x instanceof PyDateTime && y instanceof PyDateTime && dateCompare(x, y) === 0 && x.utc === y.utc;
  }
  if (x instanceof PyDate && y instanceof PyDate) return dateCompare(x, y) === 0;
  return false;
}

// Containers compare items by identity first, as CPython does (a NaN equals itself inside a list).
function sameItems(x: PyValue[], y: PyValue[]): boolean {
  return x.length === y.length && x.every((v, k) => v === y[k] || eq(v, y[k]));
}

function dateCompare(a: PyDate | PyDateTime, b: PyDate | PyDateTime): number {
  const key = (d: PyDate | PyDateTime) =>
    d instanceof PyDateTime ? [d.y, d.m, d.d, d.hh, d.mm, d.ss, d.us] : [d.y, d.m, d.d, 0, 0, 0, 0];
  const ka = key(a);
  const kb = key(b);
  for (let k = 0; k < ka.length; k++) if (ka[k] !== kb[k]) return ka[k] < kb[k] ? -1 : 1;
  return 0;
}

export type CompareOp = '<' | '<=' | '>' | '>=';

const verdict = (c: number, op: CompareOp) =>
  Number.isNaN(c) ? false : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;

/** `a < b` and its siblings; TypeError `'<' not supported between instances of 'str' and 'int'` as Python's. */
export function compare(a: PyValue, b: PyValue, op: CompareOp): boolean {
  if (isNumber(a) && isNumber(b)) return verdict(numCompare(a, b), op);
  const x = a instanceof PyEnumMember ? a.value : a;
  const y = b instanceof PyEnumMember ? b.value : b;
  if (typeof x === 'string' && typeof y === 'string') return verdict(strCompare(x, y), op);
  const seqs =
    (Array.isArray(x) && Array.isArray(y)) || (x instanceof PyTuple && y instanceof PyTuple)
      ? [Array.isArray(x) ? x : (x as PyTuple).items, Array.isArray(y) ? y : (y as PyTuple).items]
      : undefined;
  if (seqs) {
    const [p, q] = seqs;
    const n = Math.min(p.length, q.length);
    for (let k = 0; k < n; k++) if (p[k] !== q[k] && !eq(p[k], q[k])) return compare(p[k], q[k], op);
    return verdict(p.length - q.length, op);
  }
  const dx = x instanceof PyDate || x instanceof PyDateTime;
  const dy = y instanceof PyDate || y instanceof PyDateTime;
  if (dx && dy) {
    if (x instanceof PyDateTime !== y instanceof PyDateTime)
      throw pyTypeError(`can't compare datetime.${typeName(a)} to datetime.${typeName(b)}`);
    return verdict(dateCompare(x as PyDate, y as PyDate), op);
  }
  throw pyTypeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python's hash rule: lists, dicts and (non-frozen) models cannot be dict keys. */
export function assertHashable(v: PyValue): void {
  if (Array.isArray(v) || v instanceof Map || v instanceof PyModel)
    throw pyTypeError(`unhashable type: '${typeName(v)}'`);
  if (v instanceof PyTuple) v.items.forEach(assertHashable);
}

/** The str key a hashable value would be found under in a dict with str keys, or undefined (it cannot be there). */
export function dictKey(v: PyValue): string | undefined {
  assertHashable(v);
  if (typeof v === 'string') return v;
  if (v instanceof PyEnumMember) return v.value;
  return undefined;
}
