import { pyFloatStr, pyRound2 } from './py-number.js';
import { ToolError } from './tool-error.js';

/**
 * τ²'s `calculate` tool without `eval`: numbers, + - * / (and Python's ** and //), unary signs, parentheses.
 * Returns the value rounded to 2 places as Python prints it.
 */
export function calculate(expression: string): string {
  if (typeof expression !== 'string') throw new ToolError('expression must be a string');
  if (![...expression].every((c) => '0123456789+-*/(). '.includes(c))) {
    throw new ToolError('Invalid characters in expression');
  }
  const tokens = expression.match(/\d+\.?\d*|\.\d+|\*\*|\/\/|[-+*/()]/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (): never => {
    throw new ToolError('Invalid expression');
  };
  const atom = (): number => {
    const t = tokens[pos++];
    if (t === undefined) return fail();
    if (t === '(') {
      const v = sum();
      if (tokens[pos++] !== ')') fail();
      return v;
    }
    if (t === '-' || t === '+') {
      const v = power();
      return t === '-' ? -v : v;
    }
    if (/^[\d.]/.test(t)) return Number(t);
    return fail();
  };
  const power = (): number => {
    const base = atom();
    if (peek() === '**') {
      pos++;
      return base ** unary();
    }
    return base;
  };
  const unary = (): number => {
    if (peek() === '-' || peek() === '+') {
      const t = tokens[pos++];
      const v = unary();
      return t === '-' ? -v : v;
    }
    return power();
  };
  const product = (): number => {
    let v = unary();
    for (let t = peek(); t === '*' || t === '/' || t === '//'; t = peek()) {
      pos++;
      const r = unary();
      if ((t === '/' || t === '//') && r === 0) throw new ToolError('division by zero');
      v = t === '*' ? v * r : t === '/' ? v / r : Math.floor(v / r);
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    for (let t = peek(); t === '+' || t === '-'; t = peek()) {
      pos++;
      const r = product();
      v = t === '+' ? v + r : v - r;
    }
    return v;
  };
  const value = sum();
  if (pos !== tokens.length || tokens.length === 0) fail();
  return pyFloatStr(pyRound2(value));
}
