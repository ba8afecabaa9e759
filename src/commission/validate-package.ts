import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { closest, dottedPathProblem, getPath } from '../util/index.js';
import { importTypeScript } from './import-ts.js';
import { COMMAND_PLACEHOLDERS, ENTRY_PLACEHOLDERS, placeholdersIn } from './placeholders.js';

/**
 * What validation can find out without running a delivery (a dry run of grading's reading of the package): every
 * placeholder is one the sandbox fills, every `truth:` path is in every case's truth.json, every file path, glob,
 * JSON path, pattern and JSON Schema is well-formed, and the τ² domain is there. It reads the raw documents
 * defensively, so it reports alongside the schema's problems rather than after they are fixed.
 */

type Key = string | number;
type Line = { file: string; path: string; message: string };

/** A case as the loader read it: where it is and its parsed truth.json (null when it has none). */
export interface DraftCase {
  id: string;
  split: 'dev' | 'heldout';
  truth: Record<string, unknown> | null;
}

/** The package as read so far: raw documents (possibly invalid) and the cases found. */
export interface PackageDraft {
  dir: string;
  config: unknown;
  configFile: string;
  rubric: unknown;
  rubricFile: string;
  /** Where the rubric sits in its file (`['rubric']` inside commission.ts). */
  rubricPrefix: Key[];
  cases: DraftCase[];
}

const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const at = (...keys: Key[]) => keys.map(String).join('.');

/** Every problem the dry run finds, as `file: field: problem` lines. Never throws on a malformed draft. */
export function dryRunProblems(d: PackageDraft): Line[] {
  const out: Line[] = [];
  const inConfig = (field: string, message: string) => out.push({ file: d.configFile, path: field, message });
  const inRubric = (keys: Key[], message: string) =>
    out.push({ file: d.rubricFile, path: at(...d.rubricPrefix, ...keys), message });

  const c = obj(d.config) ?? {};
  const entry = str(c.entry);
  if (entry) for (const m of placeholderProblems(entry, ENTRY_PLACEHOLDERS)) inConfig('entry', m);
  list(c.artifacts).forEach((a, i) => {
    const p = str(obj(a)?.path);
    const problem = p === null ? null : relativePathProblem(p, 'artifact paths');
    if (problem) inConfig(at('artifacts', i, 'path'), problem);
    const schema = obj(a)?.schema;
    const sp = schema === undefined ? null : jsonSchemaProblem(schema);
    if (sp) inConfig(at('artifacts', i, 'schema'), sp);
  });
  const editing = obj(c.editing) ?? {};
  for (const key of ['allowedPaths', 'forbiddenPaths'] as const) {
    list(editing[key]).forEach((g, i) => {
      const problem = typeof g === 'string' ? globProblem(g) : null;
      if (problem) inConfig(at('editing', key, i), problem);
    });
  }
  const regression = str(obj(editing.regression)?.command);
  if (regression)
    for (const m of placeholderProblems(regression, COMMAND_PLACEHOLDERS)) inConfig('editing.regression.command', m);
  const domain = str(obj(c.toolAgent)?.domain);
  if (domain) {
    const abs = path.resolve(d.dir, domain);
    if (!existsSync(abs) || !statSync(abs).isDirectory())
      inConfig(
        'toolAgent.domain',
        `${domain} is not a directory; point it at a τ² domain (tools.json, db.json, policy.md)`,
      );
    else if (!existsSync(path.join(abs, 'tools.json')))
      inConfig('toolAgent.domain', `${domain} has no tools.json; point it at a τ² domain directory`);
  }

  const r = obj(d.rubric) ?? {};
  list(r.forbiddenOutputs).forEach((g, i) => {
    const problem = typeof g === 'string' ? globProblem(g) : null;
    if (problem) inRubric(['forbiddenOutputs', i], problem);
  });
  for (const { keys, check } of rubricChecks(r)) {
    for (const [field, message] of checkProblems(check, d.cases)) inRubric([...keys, ...field], message);
  }
  return out;
}

/** Every check-shaped object of a raw rubric with where it is: items, outcome and safety conditions, ceilings. */
export function rubricChecks(rubric: Record<string, unknown>): { keys: Key[]; check: Record<string, unknown> }[] {
  const found: { keys: Key[]; check: Record<string, unknown> }[] = [];
  const visit = (v: unknown, keys: Key[]) => {
    const o = obj(v);
    if (o && typeof o.check === 'string') found.push({ keys, check: o });
  };
  list(rubric.dimensions).forEach((dim, i) => {
    list(obj(dim)?.items).forEach((item, j) => {
      visit(item, ['dimensions', i, 'items', j]);
    });
  });
  list(rubric.outcomes).forEach((o, i) => {
    visit(obj(o)?.when, ['outcomes', i, 'when']);
    visit(obj(obj(o)?.safety)?.when, ['outcomes', i, 'safety', 'when']);
  });
  list(rubric.ceilings).forEach((ceiling, i) => {
    visit(obj(ceiling)?.unless, ['ceilings', i, 'unless']);
  });
  return found;
}

function checkProblems(check: Record<string, unknown>, cases: DraftCase[]): [Key[], string][] {
  const out: [Key[], string][] = [];
  const file = str(check.file);
  if (file !== null) {
    const p = relativePathProblem(file, 'check files');
    if (p) out.push([['file'], p]);
  }
  const jsonPath = str(check.path);
  if (jsonPath !== null) {
    const p = dottedPathProblem(jsonPath);
    if (p) out.push([['path'], `${JSON.stringify(jsonPath)} ${p}`]);
  }
  const truth = str(obj(check.expected)?.truth);
  if (truth !== null) {
    const p = dottedPathProblem(truth);
    if (p) out.push([['expected', 'truth'], `${JSON.stringify(truth)} ${p}`]);
    else {
      const m = truthCoverage(truth, cases);
      if (m) out.push([['expected', 'truth'], m]);
      // A number check compares numbers: a truth value that is none makes that case an infrastructure error.
      const notNumbers =
        check.check === 'number' ? cases.filter((c) => c.truth && !numeric(getPath(c.truth, truth))) : [];
      if (!m && notNumbers.length > 0)
        out.push([
          ['expected', 'truth'],
          `${JSON.stringify(truth)} is not a number in the truth.json of ${few(notNumbers)}; a number check needs one (or use json-equals)`,
        ]);
    }
  }
  const literal = obj(check.expected);
  if (check.check === 'number' && literal && 'value' in literal && !numeric({ found: true, value: literal.value }))
    out.push([['expected', 'value'], `${JSON.stringify(literal.value)} is not a number; a number check needs one`]);
  if (check.check === 'regex' && typeof check.pattern === 'string') {
    const flags = typeof check.flags === 'string' ? check.flags : '';
    try {
      new RegExp(check.pattern, flags);
    } catch (err) {
      const bad = [...flags].filter((f) => !'dgimsuvy'.includes(f));
      if (bad.length)
        out.push([['flags'], `unknown regular-expression flag ${bad.join('')}; use some of d g i m s u v y`]);
      else out.push([['pattern'], `not a valid regular expression (${(err as Error).message}); fix the pattern`]);
    }
  }
  if (check.check === 'command' && typeof check.run === 'string')
    for (const m of placeholderProblems(check.run, COMMAND_PLACEHOLDERS)) out.push([['run'], m]);
  if (check.check === 'schema' && check.schema !== undefined) {
    const p = jsonSchemaProblem(check.schema);
    if (p) out.push([['schema'], p]);
  }
  return out;
}

const caseName = (c: DraftCase) => `${c.split}/${c.id}`;
/** Case names for a message: the first four, then how many more. */
const few = (cs: DraftCase[]) =>
  cs.length > 4 ? `${cs.slice(0, 4).map(caseName).join(', ')} and ${cs.length - 4} more` : cs.map(caseName).join(', ');

/** A value grading's number check can compare: it takes `Number(value)`, so it must be finite. */
function numeric(got: { found: boolean; value: unknown }): boolean {
  // Missing is the coverage problem, reported on its own.
  return !got.found || Number.isFinite(Number(got.value));
}

/** The cases a truth path is missing from, as one problem, or null when every case has it. */
function truthCoverage(truthPath: string, cases: DraftCase[]): string | null {
  const withoutTruth = cases.filter((c) => c.truth === null);
  const missing = cases.filter((c) => c.truth !== null && !getPath(c.truth, truthPath).found);
  const parts: string[] = [];
  if (missing.length > 0) {
    const keys = [...new Set(cases.flatMap((c) => Object.keys(c.truth ?? {})))];
    const hint = closest(truthPath.split('.')[0]!, keys);
    parts.push(
      `${JSON.stringify(truthPath)} is not in the truth.json of ${few(missing)}${hint && !truthPath.startsWith(hint) ? ` (did you mean ${hint}?)` : ''}`,
    );
  }
  if (withoutTruth.length > 0)
    parts.push(`${few(withoutTruth)} ha${withoutTruth.length === 1 ? 's' : 've'} no truth.json`);
  if (parts.length === 0) return null;
  return `${parts.join('; ')}: every such case would be an infrastructure error; fix the path or the cases' truth.json`;
}

/** One problem per unknown `{name}` in a command, naming the known ones. */
export function placeholderProblems(command: string, known: Record<string, string>): string[] {
  const names = Object.keys(known);
  return [...new Set(placeholdersIn(command))]
    .filter((n) => !names.includes(n))
    .map((n) => {
      const hint = closest(n, names);
      return `unknown placeholder {${n}}${hint ? ` (did you mean {${hint}}?)` : ''}; the placeholders are ${names.map((k) => `{${k}}`).join(' ')}`;
    });
}

/** A path inside the output directory read literally: no glob characters (the schema refuses `..` and absolute ones). */
function relativePathProblem(p: string, what: string): string | null {
  if (p.trim() === '') return 'is empty; name a file in the output directory';
  if (path.isAbsolute(p) || p.split(/[\\/]/).includes('..')) return null;
  if (/[*?[\]{}]/.test(p))
    return `${JSON.stringify(p)} has glob characters, but ${what} are read literally; name one file`;
  return null;
}

/** A glob of heldout's dialect (`**`, `*`, `?`; no braces, classes or negation), relative, without `..`. */
export function globProblem(g: string): string | null {
  if (g.trim() === '') return 'is empty; write a path or a glob such as src/**';
  if (path.isAbsolute(g)) return `${JSON.stringify(g)} is absolute; make it relative to the tree it matches`;
  if (g.split('/').includes('..')) return `${JSON.stringify(g)} has a ".." segment, which never matches; remove it`;
  if (g.startsWith('!')) return `${JSON.stringify(g)}: negation is not supported; list it under the opposite key`;
  if (/[{}]/.test(g)) return `${JSON.stringify(g)}: braces are not glob syntax here (only *, ** and ?); list each path`;
  if (/[[\]]/.test(g)) return `${JSON.stringify(g)}: character classes are not supported (only *, ** and ?)`;
  return null;
}

/** Why a JSON Schema cannot be used (grading translates it with zod), or null. */
function jsonSchemaProblem(schema: unknown): string | null {
  if (!obj(schema)) return 'must be a JSON Schema object, e.g. { type: object, required: [...] }';
  try {
    z.fromJSONSchema(schema as z.core.JSONSchema.JSONSchema);
    return null;
  } catch (err) {
    return `is not a JSON Schema heldout can apply (${(err as Error).message}); fix it (docs/commission.md)`;
  }
}

/**
 * Imports each `function` check's module and checks that it exports a function under the name the rubric gives
 * (what grading would do on the first case). Slow (a module import each), so `heldout validate` and `run` ask for
 * it and the generated suite does not.
 */
export async function checkModuleProblems(d: PackageDraft, checksDir: string | null): Promise<Line[]> {
  const out: Line[] = [];
  const seen = new Map<string, Promise<unknown>>();
  for (const { keys, check } of rubricChecks(obj(d.rubric) ?? {})) {
    if (check.check !== 'function' || typeof check.module !== 'string' || !checksDir) continue;
    const file = path.join(checksDir, check.module);
    if (!existsSync(file) || !statSync(file).isFile()) continue; // the loader names a missing module
    const exportName = typeof check.export === 'string' ? check.export : 'default';
    let loading = seen.get(file);
    if (!loading) {
      loading = importTypeScript(file).catch((err: Error) => err);
      seen.set(file, loading);
    }
    const mod = await loading;
    const field = at(...d.rubricPrefix, ...keys);
    if (mod instanceof Error) {
      out.push({
        file: d.rubricFile,
        path: `${field}.module`,
        message: `checks/${check.module} cannot be imported: ${mod.message.split('\n')[0]}; fix the module`,
      });
    } else if (typeof (mod as Record<string, unknown>)[exportName] !== 'function') {
      const fns = Object.entries(mod as Record<string, unknown>)
        .filter(([, v]) => typeof v === 'function')
        .map(([k]) => k);
      out.push({
        file: d.rubricFile,
        path: `${field}.export`,
        message: `checks/${check.module} exports no function ${exportName}; export one${fns.length ? `, or name one of ${fns.join(', ')} in export` : ''}`,
      });
    }
  }
  return out;
}
