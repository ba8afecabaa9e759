/** Dotted JSON paths (`a.b.0.c`) into parsed JSON; the empty path is the document itself. Pure. */
export function getPath(doc: unknown, dotted: string): { found: boolean; value: unknown } {
  if (dotted === '' || dotted === '.' || dotted === '$') return { found: true, value: doc };
  let cur: unknown = doc;
  for (const key of dotted.replace(/^\$\./, '').split('.')) {
    if (Array.isArray(cur)) {
      const i = Number(key);
      if (!Number.isInteger(i) || i < 0 || i >= cur.length) return { found: false, value: undefined };
      cur = cur[i];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, key)) {
      cur = (cur as Record<string, unknown>)[key];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: cur };
}

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
