// Dotted paths live in util: validation (the commission part) checks truth paths with the same reading.
export { getPath } from '../util/index.js';

/** Structural equality of JSON values; `loose` compares strings case-insensitively, ignoring surrounding space. */
export function jsonEqual(a: unknown, b: unknown, loose = false): boolean {
  if (typeof a === 'string' && typeof b === 'string')
    return loose ? a.trim().toLowerCase() === b.trim().toLowerCase() : a === b;
  if (loose && typeof a === 'number' && typeof b === 'string') return b.trim() !== '' && Number(b) === a;
  if (loose && typeof b === 'number' && typeof a === 'string') return a.trim() !== '' && Number(a) === b;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b) || a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i], loose));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b as object, k) && jsonEqual((a as any)[k], (b as any)[k], loose));
}

/** A short rendering of a value for evidence lines. */
export function show(value: unknown, max = 120): string {
  const s = value === undefined ? 'nothing' : JSON.stringify(value);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
