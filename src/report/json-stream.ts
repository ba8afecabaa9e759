/**
 * `JSON.stringify(value, null, indent)` in pieces: arrays of more than `SPLIT` elements, and the objects on the way
 * to them, are written element by element, everything else in one `JSON.stringify` call re-indented to its depth.
 * The pieces concatenate to exactly the bytes `JSON.stringify` gives (plain data: no `toJSON`, no cycles), so a
 * summary of 100,000 cases is written as a stream without ever holding one string of its whole size.
 */

/** Arrays longer than this are streamed element by element; shorter values go through one JSON.stringify. */
const SPLIT = 64;

function skipped(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** Whether a value holds an array long enough to be worth streaming (checked two levels deep, where summaries have them). */
function large(v: unknown, depth = 0): boolean {
  if (Array.isArray(v)) return v.length > SPLIT || (depth < 2 && v.some((x) => large(x, depth + 1)));
  if (v === null || typeof v !== 'object') return false;
  if (depth >= 2) return false;
  for (const k in v) if (large((v as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}

/** The pieces of `JSON.stringify(value, null, indent)` (indent 0 or undefined: compact). */
export function* jsonChunks(value: unknown, indent?: number): Generator<string> {
  yield* chunksAt(value, indent && indent > 0 ? ' '.repeat(indent) : '', 0);
}

function* chunksAt(value: unknown, unit: string, depth: number): Generator<string> {
  const pad = unit.repeat(depth);
  if (!large(value)) {
    const s = JSON.stringify(value, null, unit || undefined);
    // JSON text has no raw newline inside strings, so every newline is a line break to re-indent.
    yield unit && depth > 0 ? s.replaceAll('\n', `\n${pad}`) : s;
    return;
  }
  const inner = unit ? `\n${pad}${unit}` : '';
  const close = unit ? `\n${pad}` : '';
  const colon = unit ? ': ' : ':';
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield '[]';
      return;
    }
    yield '[';
    for (let i = 0; i < value.length; i++) {
      yield i === 0 ? inner : `,${inner}`;
      const v = value[i];
      if (skipped(v)) yield 'null';
      else yield* chunksAt(v, unit, depth + 1);
    }
    yield `${close}]`;
    return;
  }
  const obj = value as Record<string, unknown>;
  let first = true;
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    if (skipped(v)) continue;
    yield `${first ? '{' : ','}${inner}${JSON.stringify(k)}${colon}`;
    first = false;
    yield* chunksAt(v, unit, depth + 1);
  }
  yield first ? '{}' : `${close}}`;
}
