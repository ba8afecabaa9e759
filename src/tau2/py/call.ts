import { pyTypeError } from './errors.js';
import type { PyDict, PyValue } from './values.js';

/** One parameter of a τ² tool method (after `self`); `optional` when the signature gives it a default. */
export interface Param {
  name: string;
  optional?: boolean;
}

function nameList(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0];
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

/**
 * Binds `method(**kwargs)` as CPython 3.11 does for a bound method `qualname` (e.g. `RetailTools.get_item_details`):
 * keywords in order, the first unknown one a TypeError (`… got an unexpected keyword argument 'product_id'`), `self`
 * already bound, then the missing required ones (`… missing 2 required positional arguments: 'a' and 'b'`).
 * Returns the bound arguments by name (absent optional ones left out, for the port's default).
 */
export function bindKwargs(qualname: string, params: readonly Param[], kwargs: PyDict): Map<string, PyValue> {
  const known = new Set(params.map((p) => p.name));
  const bound = new Map<string, PyValue>();
  for (const [k, v] of kwargs) {
    if (k === 'self') throw pyTypeError(`${qualname}() got multiple values for argument 'self'`);
    if (!known.has(k)) throw pyTypeError(`${qualname}() got an unexpected keyword argument '${k}'`);
    bound.set(k, v);
  }
  const missing = params.filter((p) => !p.optional && !bound.has(p.name)).map((p) => p.name);
  if (missing.length)
    throw pyTypeError(
      `${qualname}() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${nameList(missing)}`,
    );
  return bound;
}
