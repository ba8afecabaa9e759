import type { ToolSpec } from './types.js';

const TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  array: (v) => Array.isArray(v),
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
};

/**
 * Checks arguments against the top level of a tool's JSON schema (required names, primitive types, enums), the way
 * τ²'s pydantic signature check refuses a malformed call. Returns the problem, or undefined when the call fits.
 */
export function checkArguments(spec: ToolSpec, args: unknown): string | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'arguments must be a JSON object';
  const a = args as Record<string, unknown>;
  const props: Record<string, any> = spec.parameters?.properties ?? {};
  for (const name of spec.parameters?.required ?? []) {
    if (a[name] === undefined) return `missing required argument: ${name}`;
  }
  for (const [name, value] of Object.entries(a)) {
    const p = props[name];
    if (p === undefined) return `unexpected argument: ${name}`;
    const check = typeof p.type === 'string' ? TYPE_CHECKS[p.type] : undefined;
    if (check && !check(value)) return `argument ${name} must be of type ${p.type}`;
    if (Array.isArray(p.enum) && !p.enum.includes(value)) return `argument ${name} must be one of ${p.enum.join(', ')}`;
  }
  return undefined;
}
