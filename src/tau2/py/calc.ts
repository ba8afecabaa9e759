import { PyException, pyOverflow, pyTypeError, pyZeroDivision } from './errors.js';

/**
 * Python's `eval` of the expressions τ²'s `calculate` admits (digits, `+ - * / ( ) .` and spaces): Python's
 * tokenizer and grammar for them (`**`, `//`, unary signs, calls such as `2(3)`, `()` the empty tuple), its int
 * (arbitrary precision), float and complex arithmetic, and its SyntaxError texts for the malformed ones.
 */

type Complex = { re: number; im: number };
type Value = { t: 'int'; v: bigint } | { t: 'float'; v: number } | { t: 'complex'; v: Complex } | { t: 'tuple' };

const syntax = (msg: string, line = 1) => new PyException('SyntaxError', `${msg} (<string>, line ${line})`);
const typeOf = (x: Value) => x.t;

interface Token {
  kind: 'num' | 'op' | 'end';
  text: string;
  /** Parenthesis depth before this token. */
  level: number;
}

/** CPython's tokenizer over the admitted characters; a token is made only when the parser asks for it. */
function tokenizer(src: string) {
  let i = 0;
  let level = 0;
  return (): Token => {
    while (src[i] === ' ') i++;
    if (i >= src.length) return { kind: 'end', text: '', level };
    const c = src[i];
    const at = level;
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:\d*\.\d+|\d+\.?)/.exec(src.slice(i)) as RegExpExecArray;
      const text = m[0];
      if (/^0+[0-9]*[1-9]/.test(text) && !text.includes('.'))
        throw syntax(
          'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
        );
      i += text.length;
      return { kind: 'num', text, level: at };
    }
    for (const op of ['**', '//', '+', '-', '*', '/', '(', ')', '.']) {
      if (!src.startsWith(op, i)) continue;
      i += op.length;
      if (op === '(') level++;
      if (op === ')') {
        if (level === 0) throw syntax("unmatched ')'");
        level--;
      }
      return { kind: 'op', text: op, level: at };
    }
    throw syntax('invalid syntax');
  };
}

type Node =
  | { k: 'num'; text: string }
  | { k: 'tuple' }
  | { k: 'unary'; op: string; x: Node }
  | { k: 'bin'; op: string; a: Node; b: Node }
  | { k: 'call'; f: Node; args: Node[] };

function parse(src: string): Node {
  const next = tokenizer(src);
  let tok = next();
  const take = () => {
    const t = tok;
    tok = next();
    return t;
  };
  const isOp = (...ops: string[]) => tok.kind === 'op' && ops.includes(tok.text);
  const fail = (): never => {
    if (tok.kind === 'end' && tok.level > 0) throw syntax("'(' was never closed");
    throw syntax('invalid syntax');
  };
  const atom = (): Node => {
    if (tok.kind === 'num') return { k: 'num', text: take().text };
    if (isOp('(')) {
      take();
      if (isOp(')')) {
        take();
        return { k: 'tuple' };
      }
      const e = expr();
      if (!isOp(')')) juxtaposed();
      take();
      return e;
    }
    return fail();
  };
  const primary = (): Node => {
    let n = atom();
    while (isOp('(')) {
      take();
      const args: Node[] = [];
      if (!isOp(')')) {
        args.push(expr());
        if (!isOp(')')) juxtaposed();
      }
      take();
      n = { k: 'call', f: n, args };
    }
    return n;
  };
  const power = (): Node => {
    const base = primary();
    if (!isOp('**')) return base;
    take();
    return { k: 'bin', op: '**', a: base, b: factor() };
  };
  const factor = (): Node => {
    if (isOp('+', '-')) {
      const op = take().text;
      return { k: 'unary', op, x: factor() };
    }
    return power();
  };
  const term = (): Node => {
    let a = factor();
    while (isOp('*', '/', '//')) {
      const op = take().text;
      a = { k: 'bin', op, a, b: factor() };
    }
    return a;
  };
  const expr = (): Node => {
    let a = term();
    while (isOp('+', '-')) {
      const op = take().text;
      a = { k: 'bin', op, a, b: term() };
    }
    return a;
  };
  // Two expressions side by side: inside parentheses CPython 3.11 suggests the comma it expected.
  const juxtaposed = (): never => {
    if (tok.kind === 'num' && tok.level > 0) throw syntax('invalid syntax. Perhaps you forgot a comma?');
    return fail();
  };
  if (tok.kind === 'end') throw syntax('invalid syntax', 0);
  const e = expr();
  // expr() moved on; TypeScript cannot see that `tok` changed.
  if ((tok as Token).kind !== 'end') juxtaposed();
  return e;
}

const INT_MAX_EXACT = 2n ** 53n;
const abs = (x: bigint) => (x < 0n ? -x : x);

function intToFloat(x: bigint): number {
  const f = Number(x);
  if (!Number.isFinite(f)) throw pyOverflow('int too large to convert to float');
  return f;
}

/** int / int as Python computes it: the double nearest the exact quotient. */
function intDivide(a: bigint, b: bigint): number {
  if (b === 0n) throw pyZeroDivision('division by zero');
  if (abs(a) <= INT_MAX_EXACT && abs(b) <= INT_MAX_EXACT) return Number(a) / Number(b);
  const neg = a < 0n !== b < 0n;
  let n = abs(a);
  const d = abs(b);
  let shift = 0;
  const bits = (x: bigint) => x.toString(2).length;
  shift = 60 - (bits(n) - bits(d));
  n = shift >= 0 ? n << BigInt(shift) : n >> BigInt(-shift);
  const q = Number(n / d) * 2 ** -shift;
  if (!Number.isFinite(q)) throw pyOverflow('integer division result too large for a float');
  return neg ? -q : q;
}

function floatPow(x: number, y: number): Value {
  if (x === 0 && y < 0) throw pyZeroDivision('0.0 cannot be raised to a negative power');
  if (x < 0 && Number.isFinite(y) && !Number.isInteger(y)) return complexPow({ re: x, im: 0 }, { re: y, im: 0 });
  const r = x ** y;
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y))
    throw pyOverflow("(34, 'Numerical result out of range')");
  return { t: 'float', v: r };
}

function complexPow(a: Complex, b: Complex): Value {
  if (a.re === 0 && a.im === 0) {
    if (b.re < 0 || b.im !== 0) throw pyZeroDivision('0.0 to a negative or complex power');
    return { t: 'complex', v: { re: b.re === 0 ? 1 : 0, im: 0 } };
  }
  const r = Math.hypot(a.re, a.im);
  const th = Math.atan2(a.im, a.re);
  const mag = r ** b.re * Math.exp(-b.im * th);
  const ang = b.im * Math.log(r) + b.re * th;
  return { t: 'complex', v: { re: mag * Math.cos(ang), im: mag * Math.sin(ang) } };
}

const asComplex = (x: Value): Complex =>
  x.t === 'complex' ? x.v : { re: x.t === 'int' ? intToFloat(x.v) : (x as { v: number }).v, im: 0 };
const asFloat = (x: Value) => (x.t === 'int' ? intToFloat(x.v) : (x as { v: number }).v);

function binary(op: string, a: Value, b: Value): Value {
  if (a.t === 'tuple' || b.t === 'tuple') {
    if (op === '+' && a.t === 'tuple' && b.t === 'tuple') return { t: 'tuple' };
    if (op === '*' && ((a.t === 'tuple' && b.t === 'int') || (b.t === 'tuple' && a.t === 'int'))) return { t: 'tuple' };
    if (op === '+' && a.t === 'tuple') throw pyTypeError(`can only concatenate tuple (not "${typeOf(b)}") to tuple`);
    if (op === '*')
      throw pyTypeError(`can't multiply sequence by non-int of type '${a.t === 'tuple' ? typeOf(b) : typeOf(a)}'`);
    throw pyTypeError(`unsupported operand type(s) for ${op}: '${typeOf(a)}' and '${typeOf(b)}'`);
  }
  if (a.t === 'complex' || b.t === 'complex') {
    if (op === '//') throw pyTypeError(`unsupported operand type(s) for //: '${typeOf(a)}' and '${typeOf(b)}'`);
    const x = asComplex(a);
    const y = asComplex(b);
    if (op === '+') return { t: 'complex', v: { re: x.re + y.re, im: x.im + y.im } };
    if (op === '-') return { t: 'complex', v: { re: x.re - y.re, im: x.im - y.im } };
    if (op === '*') return { t: 'complex', v: { re: x.re * y.re - x.im * y.im, im: x.re * y.im + x.im * y.re } };
    if (op === '/') {
      const d = y.re * y.re + y.im * y.im;
      if (d === 0) throw pyZeroDivision('complex division by zero');
      return { t: 'complex', v: { re: (x.re * y.re + x.im * y.im) / d, im: (x.im * y.re - x.re * y.im) / d } };
    }
    return complexPow(x, y);
  }
  if (a.t === 'int' && b.t === 'int') {
    switch (op) {
      case '+':
        return { t: 'int', v: a.v + b.v };
      case '-':
        return { t: 'int', v: a.v - b.v };
      case '*':
        return { t: 'int', v: a.v * b.v };
      case '/':
        return { t: 'float', v: intDivide(a.v, b.v) };
      case '//': {
        if (b.v === 0n) throw pyZeroDivision('integer division or modulo by zero');
        let q = a.v / b.v;
        if (a.v % b.v !== 0n && a.v < 0n !== b.v < 0n) q -= 1n;
        return { t: 'int', v: q };
      }
      default:
        if (b.v < 0n) return floatPow(intToFloat(a.v), intToFloat(b.v));
        // Python would work on such a power for hours and then fail to make it a float; heldout fails at once.
        if (abs(a.v) > 1n && BigInt(abs(a.v).toString(2).length) * b.v > 1n << 26n)
          throw new PyException('MemoryError', '');
        return { t: 'int', v: a.v ** b.v };
    }
  }
  const x = asFloat(a);
  const y = asFloat(b);
  switch (op) {
    case '+':
      return { t: 'float', v: x + y };
    case '-':
      return { t: 'float', v: x - y };
    case '*':
      return { t: 'float', v: x * y };
    case '/':
      if (y === 0) throw pyZeroDivision('float division by zero');
      return { t: 'float', v: x / y };
    case '//':
      if (y === 0) throw pyZeroDivision('float floor division by zero');
      return { t: 'float', v: Math.floor(x / y) };
    default:
      return floatPow(x, y);
  }
}

function evaluate(n: Node): Value {
  switch (n.k) {
    case 'num':
      return n.text.includes('.') ? { t: 'float', v: Number(n.text) } : { t: 'int', v: BigInt(n.text) };
    case 'tuple':
      return { t: 'tuple' };
    case 'unary': {
      const x = evaluate(n.x);
      if (x.t === 'tuple') throw pyTypeError(`bad operand type for unary ${n.op}: 'tuple'`);
      if (n.op === '+') return x;
      if (x.t === 'int') return { t: 'int', v: -x.v };
      if (x.t === 'float') return { t: 'float', v: -x.v };
      return { t: 'complex', v: { re: -x.v.re, im: -x.v.im } };
    }
    case 'bin':
      return binary(n.op, evaluate(n.a), evaluate(n.b));
    case 'call': {
      const f = evaluate(n.f);
      for (const a of n.args) evaluate(a);
      throw pyTypeError(`'${typeOf(f)}' object is not callable`);
    }
  }
}

/**
 * `float(eval(expression))` for a str expression: the value as a JS number, or Python's exception (SyntaxError,
 * ZeroDivisionError, OverflowError, TypeError for a tuple or complex result).
 */
export function evalFloat(expression: string): number {
  // eval strips the spaces around its source; the line is counted from there.
  const v = evaluate(parse(expression.trim()));
  if (v.t === 'int') return intToFloat(v.v);
  if (v.t === 'float') return v.v;
  throw pyTypeError(`float() argument must be a string or a real number, not '${v.t}'`);
}
