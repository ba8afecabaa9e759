/**
 * Parsing a package's YAML and JSON documents into plain values without letting a hostile one through: YAML syntax
 * and alias errors (an unset anchor, an alias bomb) become problems with their line and column, and nesting is
 * bounded — before YAML parsing (a deep enough flow collection exhausts the parser's stack, and after that the
 * process itself has been seen to die) and after it (an alias inside its own anchor makes a cycle, which nothing
 * downstream could serialise).
 */
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';

/** One problem of a document: the field (or `line L, column C`) and what is wrong. */
export interface DocProblem {
  path: string;
  message: string;
}

/** How deep a package document may nest; real ones stay well under 20. */
export const MAX_DEPTH = 100;

/** Alias expansions one YAML document may make (the yaml library's own default, named here). */
const MAX_ALIASES = 100;

/** Values one document may hold in all, aliases counted at each use. */
const MAX_NODES = 1_000_000;

/**
 * An upper bound on a YAML text's nesting and the line where it passes `MAX_DEPTH`, without parsing: block
 * indentation levels plus `- ` entries opening a line plus open flow brackets (quotes and comments are not
 * told apart, which can only over-count).
 */
export function yamlDepthBound(text: string): { depth: number; line: number } {
  const indents: number[] = [];
  let flow = 0;
  let max = { depth: 0, line: 0 };
  const lines = text.split(/\r\n|\n|\r/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    let i = 0;
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
    if (i < line.length && line[i] !== '#' && flow === 0) {
      while (indents.length > 0 && indents[indents.length - 1]! >= i) indents.pop();
      indents.push(i);
    }
    let compact = 0;
    for (let j = i; j + 1 < line.length && (line[j] === '-' || line[j] === '?') && line[j + 1] === ' '; ) {
      compact++;
      j += 2;
      while (j < line.length && line[j] === ' ') j++;
    }
    let peak = flow;
    for (let j = i; j < line.length; j++) {
      const c = line[j];
      if (c === '[' || c === '{') peak = Math.max(peak, ++flow);
      else if ((c === ']' || c === '}') && flow > 0) flow--;
    }
    const depth = indents.length + compact + peak;
    if (depth > max.depth) max = { depth, line: n + 1 };
  }
  return max;
}

/** A YAML mapping (or list) as plain values, or the problems that keep it from being one. */
export function parseYaml(text: string): { value: unknown } | { problems: DocProblem[] } {
  const bound = yamlDepthBound(text);
  if (bound.depth > MAX_DEPTH) {
    return { problems: [{ path: `line ${bound.line}`, message: `nests deeper than ${MAX_DEPTH} levels` }] };
  }
  const lineCounter = new LineCounter();
  let problems: DocProblem[];
  try {
    const doc = parseDocument(text, { lineCounter, prettyErrors: false });
    problems = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return { path: `line ${pos.line}, column ${pos.col}`, message: e.message.split('\n')[0]! };
    });
    if (problems.length === 0) {
      if (!isMap(doc.contents) && !isSeq(doc.contents))
        return { problems: [{ path: '', message: 'must be a YAML mapping' }] };
      // toJS resolves aliases: an unset anchor or an alias bomb throws here.
      const value = doc.toJS({ maxAliasCount: MAX_ALIASES });
      const shape = shapeProblem(value);
      return shape ? { problems: [shape] } : { value };
    }
  } catch (err) {
    problems = [{ path: '', message: `cannot be read as YAML: ${firstLine(err)}` }];
  }
  return { problems };
}

/** A JSON document as plain values, or the problem that keeps it from being one. */
export function parseJson(text: string): { value: unknown } | { problems: DocProblem[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problems: [{ path: '', message: `invalid JSON (${firstLine(err)}); fix it` }] };
  }
  const shape = shapeProblem(value);
  return shape ? { problems: [shape] } : { value };
}

/**
 * Walks a parsed value without recursion: a cycle (an alias inside its own anchor), nesting past `MAX_DEPTH` or
 * more than `MAX_NODES` values is a problem at the field where it shows.
 */
export function shapeProblem(root: unknown): DocProblem | null {
  type Frame = { v: unknown; at: string[]; exit?: true };
  const stack: Frame[] = [{ v: root, at: [] }];
  const onPath = new Set<object>();
  let nodes = 0;
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (f.exit) {
      onPath.delete(f.v as object);
      continue;
    }
    if (++nodes > MAX_NODES) return { path: shown(f.at), message: `holds more than ${MAX_NODES} values` };
    if (f.v === null || typeof f.v !== 'object') continue;
    if (onPath.has(f.v)) return { path: shown(f.at), message: 'refers to itself (an alias inside its own anchor)' };
    if (f.at.length >= MAX_DEPTH) return { path: shown(f.at), message: `nests deeper than ${MAX_DEPTH} levels` };
    onPath.add(f.v);
    stack.push({ v: f.v, at: f.at, exit: true });
    const entries: [string, unknown][] =
      f.v instanceof Map
        ? [...f.v.entries()].map(([k, v]) => [String(k), v])
        : f.v instanceof Set
          ? [...f.v].map((v, i) => [String(i), v])
          : Object.entries(f.v);
    for (const [k, v] of entries) stack.push({ v, at: [...f.at, k] });
  }
  return null;
}

/** A field path short enough to print: the first few keys, then an ellipsis. */
function shown(at: string[]): string {
  return at.length <= 6 ? at.join('.') : `${at.slice(0, 6).join('.')}.…`;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!;
}

/** zod issues as `file: field: problem` lines (zod-problems.ts: unions resolved, bounds and keys said plainly). */
export { zodProblems } from './zod-problems.js';
