import { pyTypeError } from './errors.js';
import { floatRepr } from './number.js';
import { str } from './repr.js';
import { PyEnumMember, PyFloat, PyTuple, type PyValue, pyInt, typeName } from './values.js';

/** A text Python's `json.loads` refuses. */
export class PyJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PyJsonError';
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

/**
 * Python's `json.loads`: a number with a fraction or exponent is a float (`2.0` stays one), any other an int (a bigint
 * beyond 2^53); objects become dicts in key order (a repeated key keeps its first place and its last value); `NaN`,
 * `Infinity` and `-Infinity` are accepted, as Python accepts them.
 */
export function pyJsonParse(text: string): PyValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new PyJsonError(`${what} at char ${i}`);
  };
  const ws = () => {
    while (i < text.length && WS.has(text[i])) i++;
  };
  const string = (): string => {
    i++;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= text.length) fail('Unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('Invalid control character');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(start, i);
      const e = text[i + 1];
      i += 2;
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      if (e in simple) out += simple[e];
      else if (e === 'u') {
        const h = text.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(h)) fail('Invalid \\uXXXX escape');
        out += String.fromCharCode(Number.parseInt(h, 16));
        i += 4;
      } else fail('Invalid \\escape');
      start = i;
    }
  };
  const value = (): PyValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const m = new Map<string, PyValue>();
      ws();
      if (text[i] === '}') {
        i++;
        return m;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
        const k = string();
        ws();
        if (text[i] !== ':') fail("Expecting ':' delimiter");
        i++;
        m.set(k, value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return m;
        }
        fail("Expecting ',' delimiter");
      }
    }
    if (c === '[') {
      i++;
      const a: PyValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return a;
        }
        fail("Expecting ',' delimiter");
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [
      ['null', null],
      ['true', true],
      ['false', false],
      ['NaN', new PyFloat(Number.NaN)],
      ['Infinity', new PyFloat(Number.POSITIVE_INFINITY)],
      ['-Infinity', new PyFloat(Number.NEGATIVE_INFINITY)],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const n = NUMBER.exec(text);
    if (!n) return fail('Expecting value');
    i += n[0].length;
    if (n[1] !== undefined || n[2] !== undefined) return new PyFloat(Number(n[0]));
    return n[0].length < 16 ? pyInt(Number(n[0])) : pyInt(BigInt(n[0]));
  };
  const v = value();
  ws();
  if (i < text.length) fail('Extra data');
  return v;
}

/** A JSON string literal as Python's `json.dumps` writes it with `ensure_ascii=True`. */
export function jsonString(s: string): string {
  let out = '"';
  let start = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, k);
    start = k + 1;
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out + s.slice(start)}"`;
}

/** The JSON text of a float: `repr`, but `NaN`, `Infinity`, `-Infinity` for the non-finite ones. */
export function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return floatRepr(x);
}

/** Python's order of two str (by code point; JavaScript's `<` compares UTF-16 units, which differs past the BMP). */
export function strCompare(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    let x = a.charCodeAt(k);
    let y = b.charCodeAt(k);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

export interface DumpOptions {
  sortKeys?: boolean;
  /** `default=str`: what JSON cannot hold (models, dates) is written as its `str()`; otherwise a TypeError. */
  defaultStr?: boolean;
}

/** Python's `json.dumps(v)` with the default separators (', ', ': ') and `ensure_ascii=True`. */
export function pyJsonDumps(v: PyValue, options: DumpOptions = {}): string {
  const parts: string[] = [];
  const write = (x: PyValue): void => {
    if (x === null) parts.push('null');
    else if (x === true) parts.push('true');
    else if (x === false) parts.push('false');
    else if (typeof x === 'number' || typeof x === 'bigint') parts.push(String(x));
    else if (typeof x === 'string') parts.push(jsonString(x));
    else if (x instanceof PyFloat) parts.push(jsonFloat(x.v));
    else if (x instanceof PyEnumMember) parts.push(jsonString(x.value));
    else if (Array.isArray(x) || x instanceof PyTuple) {
      const items = Array.isArray(x) ? x : x.items;
      parts.push('[');
      items.forEach((item, k) => {
        if (k) parts.push(', ');
        write(item);
      });
      parts.push(']');
    } else if (x instanceof Map) {
      let keys = [...x.keys()];
      if (options.sortKeys) keys = keys.sort(strCompare);
      parts.push('{');
      keys.forEach((k, n) => {
        if (n) parts.push(', ');
        parts.push(jsonString(k), ': ');
        write(x.get(k) as PyValue);
      });
      parts.push('}');
    } else if (options.defaultStr) parts.push(jsonString(str(x)));
    else throw pyTypeError(`Object of type ${typeName(x)} is not JSON serializable`);
  };
  write(v);
  return parts.join('');
}
