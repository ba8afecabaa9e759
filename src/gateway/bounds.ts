/**
 * What keeps an odd request from costing more than it is worth: how deep a JSON body may nest (JSON.stringify
 * overflows the stack on a body JSON.parse accepts), and how large one trace line may grow. Pure functions.
 */

/** Deepest nesting of arrays and objects accepted in a request body; a tool schema needs a few dozen at most. */
export const MAX_JSON_DEPTH = 256;

/**
 * The deepest nesting of `[`/`{` in JSON text, read byte by byte (strings skipped), stopping as soon as it passes
 * `stopAbove`: no recursion, so a 100,000-deep body costs one pass and no stack.
 */
export function jsonDepth(text: Buffer, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Default bounds of the trace: one line, and all the lines of one (case, trial) written by one gateway. */
export const DEFAULT_TRACE_LINE_BYTES = 1024 * 1024;
export const DEFAULT_TRACE_CASE_BYTES = 32 * 1024 * 1024;
/** The smallest line bound honoured (`traceLine` needs room for a call's fields and two cut bodies' sizes). */
export const MIN_TRACE_LINE_BYTES = 4096;

/** The JSON string of the longest prefix of `text` whose JSON form takes at most `maxBytes` bytes. */
function headWithin(text: string, maxBytes: number): string {
  let k = Math.min(text.length, maxBytes);
  for (;;) {
    const s = JSON.stringify(text.slice(0, k));
    const bytes = Buffer.byteLength(s);
    if (bytes <= maxBytes || k === 0) return s;
    k = Math.max(0, Math.min(k - 1, Math.floor((k * maxBytes) / bytes) - 1));
  }
}

/** A body too large for its line: its size and the beginning of its JSON text. */
function cut(text: string, maxBytes: number): string {
  const skeleton = `{"truncated":true,"bytes":${Buffer.byteLength(text)},"head":`;
  return `${skeleton}${headWithin(text, Math.max(2, maxBytes - skeleton.length - 1))}}`;
}

/**
 * One trace line: `head` (a JSON object's text, the call's fields) with `request` and `response` (JSON texts) added,
 * of at most `maxBytes` bytes. A body that does not fit is replaced by `{"truncated":true,"bytes","head"}` (the
 * beginning of its JSON text); the smaller body keeps its whole share when it fits in half the room.
 */
export function traceLine(head: string, request: string, response: string, maxBytes: number): string {
  const open = `${head.slice(0, -1)},"request":`;
  const whole = `${open}${request},"response":${response}}`;
  const total = Buffer.byteLength(whole);
  if (total <= maxBytes) return whole;
  const room = maxBytes - Buffer.byteLength(open) - ',"response":}'.length;
  const reqBytes = Buffer.byteLength(request);
  const respBytes = Buffer.byteLength(response);
  const half = Math.floor(room / 2);
  let req = request;
  let resp = response;
  if (reqBytes <= half) resp = cut(response, room - reqBytes);
  else if (respBytes <= half) req = cut(request, room - respBytes);
  else {
    req = cut(request, half);
    resp = cut(response, room - Buffer.byteLength(req));
  }
  return `${open}${req},"response":${resp}}`;
}
