import { type ToolDef, tool } from '../environment/toolkit.js';
import { contains, iterate } from '../py/builtins.js';
import { evalFloat } from '../py/calc.js';
import { pyTypeError, pyValueError } from '../py/errors.js';
import { floatRepr, roundFloat } from '../py/number.js';
import { PyEnumMember, type PyValue } from '../py/values.js';

const ALLOWED = '0123456789+-*/(). ';

/**
 * τ²'s `calculate(expression)`: `str(round(float(eval(expression)), 2))` after its character check, with Python's
 * own errors (`Error: division by zero`, `invalid syntax (<string>, line 1)`, …).
 */
export function calculate(expression: PyValue): string {
  for (const ch of iterate(expression))
    if (!contains(ALLOWED, ch)) throw pyValueError('Invalid characters in expression');
  const src = expression instanceof PyEnumMember ? expression.value : expression;
  if (typeof src !== 'string') throw pyTypeError('eval() arg 1 must be a string, bytes or code object');
  return floatRepr(roundFloat(evalFloat(src), 2));
}

/** The `calculate` tool airline and retail share (type GENERIC). */
export function calculateTool<S>(): ToolDef<S> {
  return tool('generic', ['expression'], (_self, a) => calculate(a.get('expression') as PyValue));
}
