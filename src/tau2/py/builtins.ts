import { noAttribute, PyException, pyKeyError, pyOverflow, pyTypeError, pyValueError } from './errors.js';
import { roundFloat, roundToInt } from './number.js';
import { arith, compare, dictKey, eq } from './ops.js';
import { repr, strRepr } from './repr.js';
import { PyEnumMember, PyFloat, PyModel, PyTuple, type PyValue, pyInt, typeName } from './values.js';

/** Python's builtins over `PyValue`s (`len`, iteration, `in`, `count`, `sorted`, `round`, …), errors included. */

const text = (v: PyValue) => (v instanceof PyEnumMember ? v.value : v);

/** `iter(v)` materialised: list and tuple items, str code points, dict keys, a model's (name, value) pairs. */
export function iterate(v: PyValue): PyValue[] {
  const t = text(v);
  if (Array.isArray(t)) return [...t];
  if (t instanceof PyTuple) return [...t.items];
  if (typeof t === 'string') return [...t];
  if (t instanceof Map) return [...t.keys()];
  if (t instanceof PyModel) return t.cls.fieldNames.map((n) => new PyTuple([n, t.f[n] as PyValue]));
  throw pyTypeError(`'${typeName(v)}' object is not iterable`);
}

/** `len(v)`. */
export function len(v: PyValue): number {
  const t = text(v);
  if (Array.isArray(t)) return t.length;
  if (t instanceof PyTuple) return t.items.length;
  if (typeof t === 'string') return [...t].length;
  if (t instanceof Map) return t.size;
  throw pyTypeError(`object of type '${typeName(v)}' has no len()`);
}

/** `x in container`. */
export function contains(container: PyValue, x: PyValue): boolean {
  const c = text(container);
  if (c instanceof Map) {
    const k = dictKey(x);
    return k !== undefined && c.has(k);
  }
  if (typeof c === 'string') {
    const s = text(x);
    if (typeof s !== 'string') throw pyTypeError(`'in <string>' requires string as left operand, not ${typeName(x)}`);
    return c.includes(s);
  }
  if (Array.isArray(c) || c instanceof PyTuple || c instanceof PyModel)
    return iterate(c).some((item) => item === x || eq(item, x));
  throw pyTypeError(`argument of type '${typeName(container)}' is not iterable`);
}

/** `d[key]` for a dict with str keys; KeyError with the key's repr, TypeError for an unhashable key. */
export function getItem(d: Map<string, PyValue>, key: PyValue): PyValue {
  const k = dictKey(key);
  if (k === undefined || !d.has(k)) throw pyKeyError(repr(key));
  return d.get(k) as PyValue;
}

/** `seq[i]` of a list, tuple or str; IndexError as Python's. */
export function index(seq: PyValue, i: number): PyValue {
  const s = text(seq);
  const items = Array.isArray(s) ? s : s instanceof PyTuple ? s.items : typeof s === 'string' ? [...s] : undefined;
  if (!items) throw pyTypeError(`'${typeName(seq)}' object is not subscriptable`);
  const k = i < 0 ? items.length + i : i;
  if (k < 0 || k >= items.length)
    throw new PyException(
      'IndexError',
      `${Array.isArray(s) ? 'list' : s instanceof PyTuple ? 'tuple' : 'string'} index out of range`,
    );
  return items[k];
}

/** `obj.count(x)` for a list or a str. */
export function count(obj: PyValue, x: PyValue): number {
  if (Array.isArray(obj)) return obj.filter((item) => item === x || eq(item, x)).length;
  const s = text(obj);
  if (typeof s === 'string') {
    const sub = text(x);
    if (typeof sub !== 'string') throw pyTypeError(`must be str, not ${typeName(x)}`);
    if (sub === '') return [...s].length + 1;
    return s.split(sub).length - 1;
  }
  throw noAttribute(typeName(obj), 'count');
}

// CPython's list.sort: count_run, then binary insertion, so the comparisons made (and a TypeError's wording) are
// CPython's for the short lists τ²'s tools sort. Longer lists are merge-sorted (same result whenever items compare).
function shortSort<T>(a: T[], less: (x: T, y: T) => boolean): T[] {
  const n = a.length;
  if (n < 2) return a;
  let run = 2;
  if (less(a[1], a[0])) {
    while (run < n && less(a[run], a[run - 1])) run++;
    a.splice(0, run, ...a.slice(0, run).reverse());
  } else while (run < n && !less(a[run], a[run - 1])) run++;
  for (let s = run; s < n; s++) {
    const pivot = a[s];
    let l = 0;
    let r = s;
    while (l < r) {
      const p = l + ((r - l) >> 1);
      if (less(pivot, a[p])) r = p;
      else l = p + 1;
    }
    for (let k = s; k > l; k--) a[k] = a[k - 1];
    a[l] = pivot;
  }
  return a;
}

function mergeSort<T>(a: T[], less: (x: T, y: T) => boolean): T[] {
  if (a.length < 2) return a;
  const mid = a.length >> 1;
  const left = mergeSort(a.slice(0, mid), less);
  const right = mergeSort(a.slice(mid), less);
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) out.push(less(right[j], left[i]) ? right[j++] : left[i++]);
  return [...out, ...left.slice(i), ...right.slice(j)];
}

const listSort = <T>(a: T[], less: (x: T, y: T) => boolean) =>
  a.length >= 64 ? mergeSort(a, less) : shortSort(a, less);

/** `sorted(iterable, key=key, reverse=reverse)`: stable; `reverse` reverses before and after, as CPython does. */
export function sorted(
  iterable: PyValue,
  options: { key?: (v: PyValue) => PyValue; reverse?: boolean } = {},
): PyValue[] {
  const items = iterate(iterable);
  const keys = options.key ? items.map(options.key) : items;
  let order = items.map((_, k) => k);
  if (options.reverse) order.reverse();
  order = listSort(order, (x, y) => compare(keys[x], keys[y], '<'));
  if (options.reverse) order.reverse();
  return order.map((k) => items[k]);
}

/** `round(v, n)` (n given) or `round(v)`. */
export function round(v: PyValue, n?: number): PyValue {
  if (v instanceof PyFloat) {
    if (n !== undefined) return new PyFloat(roundFloat(v.v, n));
    if (Number.isNaN(v.v)) throw pyValueError('cannot convert float NaN to integer');
    if (!Number.isFinite(v.v)) throw pyOverflow('cannot convert float infinity to integer');
    return roundToInt(v.v);
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || typeof v === 'bigint') {
    if (n === undefined || n >= 0) return v;
    const p = 10n ** BigInt(-n);
    const x = BigInt(v);
    let q = x / p;
    let r = x % p;
    if (r < 0n) {
      q -= 1n;
      r += p;
    }
    if (2n * r > p || (2n * r === p && (q & 1n) === 1n)) q += 1n;
    return pyInt(q * p);
  }
  throw pyTypeError(`type ${typeName(v)} doesn't define __round__ method`);
}

/** `abs(v)`. */
export function abs(v: PyValue): PyValue {
  if (v instanceof PyFloat) return new PyFloat(Math.abs(v.v));
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Math.abs(v);
  if (typeof v === 'bigint') return pyInt(v < 0n ? -v : v);
  throw pyTypeError(`bad operand type for abs(): '${typeName(v)}'`);
}

/** `max(a, b)`: the first of the largest, compared `b > a` as CPython does. */
export function max2(a: PyValue, b: PyValue): PyValue {
  return compare(b, a, '>') ? b : a;
}

/** `sum(iterable)` (start 0). */
export function sum(iterable: PyValue): PyValue {
  let total: PyValue = 0;
  for (const v of iterate(iterable)) total = arith(total, v, '+');
  return total;
}

const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.|inf|infinity|nan)$/i;

/** `float(v)`. */
export function toPyFloat(v: PyValue): PyFloat {
  if (v instanceof PyFloat) return v;
  if (typeof v === 'boolean') return new PyFloat(v ? 1 : 0);
  if (typeof v === 'number') return new PyFloat(v);
  if (typeof v === 'bigint') {
    const f = Number(v);
    if (!Number.isFinite(f)) throw pyOverflow('int too large to convert to float');
    return new PyFloat(f);
  }
  const s = text(v);
  if (typeof s === 'string') {
    const t = s.trim();
    if (!FLOAT_TEXT.test(t)) throw pyValueError(`could not convert string to float: ${strRepr(s)}`);
    const u = t.replace(/_/g, '').toLowerCase();
    const sign = u.startsWith('-') ? -1 : 1;
    const body = u.replace(/^[+-]/, '');
    if (body === 'inf' || body === 'infinity') return new PyFloat(sign * Number.POSITIVE_INFINITY);
    if (body === 'nan') return new PyFloat(Number.NaN);
    return new PyFloat(Number(u));
  }
  throw pyTypeError(`float() argument must be a string or a real number, not '${typeName(v)}'`);
}

/** A str method on `v`: `v` must be a str (a str enum member acts as its value), else AttributeError. */
export function strOf(v: PyValue, method: string): string {
  const s = text(v);
  if (typeof s !== 'string') throw noAttribute(typeName(v), method);
  return s;
}

/** `v.lower()`. */
export const lower = (v: PyValue) => strOf(v, 'lower').toLowerCase();

/** `v.startswith(prefix)`. */
export const startsWith = (v: PyValue, prefix: string) => strOf(v, 'startswith').startsWith(prefix);

/** `obj.name = value`: a model's field (assigned as is, as τ²'s models do), else Python's error. */
export function setAttr(obj: PyValue, name: string, value: PyValue): void {
  if (obj instanceof PyModel) {
    if (!obj.cls.fieldNames.includes(name)) throw pyValueError(`"${obj.cls.name}" object has no field "${name}"`);
    obj.set(name, value);
    return;
  }
  throw noAttribute(typeName(obj), name);
}

/** `obj.name` where `obj` may be anything an agent passed: a model's field, or AttributeError. */
export function attr(obj: PyValue, name: string): PyValue {
  if (obj instanceof PyModel && obj.cls.fieldNames.includes(name)) return obj.f[name] as PyValue;
  if (obj instanceof PyEnumMember && name === 'value') return obj.value;
  throw noAttribute(typeName(obj), name);
}
