import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import type { ZodError, z } from 'zod';
import { buildProblems, readCaseServices, serviceProblems } from './case-environment.js';
import type { Service } from './environment-schema.js';
import { importTypeScript } from './import-ts.js';
import { type CommissionConfig, commissionSchema, type Rubric, rubricSchema, truthSchema } from './schema.js';

/** One problem of a package, printed as `file: path.to.field: message`. */
export interface Problem {
  file: string;
  path: string;
  message: string;
}

/** Thrown by `loadCommission` with every problem of the package at once. */
export class CommissionError extends Error {
  constructor(
    readonly dir: string,
    readonly problems: Problem[],
  ) {
    super(`invalid commission ${dir}:\n${problems.map((p) => formatProblem(p)).join('\n')}`);
    this.name = 'CommissionError';
  }
}

/** The file a problem is in; with `dir`, named from there (a problem of the directory itself names the directory). */
export function problemFile(p: Problem, dir?: string): string {
  if (dir === undefined) return p.file || '.';
  return p.file ? `${dir.replace(/\/$/, '')}/${p.file}` : dir;
}

/** `file: field: problem`, the file as `problemFile` names it. */
export function formatProblem(p: Problem, dir?: string): string {
  return `${problemFile(p, dir)}: ${p.path || '(root)'}: ${p.message}`;
}

export type Split = 'dev' | 'heldout';

/** One case of a commission; `truth` is evaluator-owned and never mounted into a sandbox. */
export interface CaseRef {
  id: string;
  split: Split;
  dir: string;
  inputPath: string;
  assetsDir: string | null;
  truth: Record<string, unknown> | null;
  /** The case's own services, from its `case.yaml` (issue 19); the commission's apply as well. */
  services?: Service[];
}

export interface Requirement {
  goal: string;
  interface: string;
  requirements: string;
  resources: string;
}

/** A loaded, validated commission package. */
export interface Commission {
  dir: string;
  config: CommissionConfig;
  rubric: Rubric;
  requirement: Requirement;
  cases: Record<Split, CaseRef[]>;
  /** Where `function` checks live (`checks/`), if the package has them. */
  checksDir: string | null;
  /** a0: the pinned tree (editing) or the working agent (optimization). */
  starterDir: string | null;
}

export interface LoadOptions {
  /**
   * Where evaluator-owned held-out cases live outside the repository (default `HELDOUT_CASES`):
   * `<casesRoot>/<commission id>/<case>/input.md`.
   */
  casesRoot?: string;
}

const REQUIREMENT_DOCS: [keyof Requirement, string][] = [
  ['goal', '01'],
  ['interface', '02'],
  ['requirements', '03'],
  ['resources', '04'],
];

/** Identity helper for `commission.ts`: `export default defineCommission({...})`, typed by the zod schema. */
export function defineCommission<
  T extends z.input<typeof commissionSchema> & { rubric?: z.input<typeof rubricSchema> },
>(c: T): T {
  return c;
}

/**
 * Loads and validates a commission package. Resolves to a typed commission, or rejects with a `CommissionError`
 * listing every problem found (never a bare stack trace).
 */
export async function loadCommission(dirArg: string, options: LoadOptions = {}): Promise<Commission> {
  const dir = path.resolve(dirArg);
  const problems: Problem[] = [];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CommissionError(dir, [{ file: '', path: '', message: 'not a directory' }]);
  }

  let rawConfig: unknown;
  let rawRubric: unknown;
  let configFile = 'commission.yaml';
  const yamlPath = path.join(dir, 'commission.yaml');
  const tsPath = path.join(dir, 'commission.ts');
  if (existsSync(yamlPath) && existsSync(tsPath)) {
    problems.push({
      file: 'commission.ts',
      path: '',
      message: 'both commission.yaml and commission.ts exist; keep one',
    });
  }
  if (existsSync(yamlPath)) {
    rawConfig = readYaml(dir, 'commission.yaml', problems);
  } else if (existsSync(tsPath)) {
    configFile = 'commission.ts';
    try {
      const mod = (await importTypeScript(tsPath)) as { default?: unknown };
      if (!mod.default || typeof mod.default !== 'object') {
        problems.push({ file: configFile, path: '', message: 'must `export default defineCommission({...})`' });
      } else {
        const { rubric, ...rest } = mod.default as Record<string, unknown>;
        rawConfig = rest;
        rawRubric = rubric;
      }
    } catch (err) {
      problems.push({ file: configFile, path: '', message: `cannot be imported: ${(err as Error).message}` });
    }
  } else {
    problems.push({ file: 'commission.yaml', path: '', message: 'missing (or commission.ts)' });
  }

  const config = rawConfig === undefined ? undefined : validate(commissionSchema, rawConfig, configFile, problems);

  const rubricPath = path.join(dir, 'rubric.yaml');
  let rubricFile = 'rubric.yaml';
  if (rawRubric !== undefined) {
    rubricFile = configFile;
    if (existsSync(rubricPath))
      problems.push({ file: 'rubric.yaml', path: '', message: `the rubric is also given in ${configFile}; keep one` });
  } else if (existsSync(rubricPath)) {
    rawRubric = readYaml(dir, 'rubric.yaml', problems);
  } else {
    problems.push({ file: 'rubric.yaml', path: '', message: 'missing' });
  }
  const rubric =
    rawRubric === undefined
      ? undefined
      : validate(rubricSchema, rawRubric, rubricFile, problems, rubricFile === configFile ? ['rubric'] : []);

  const requirement = readRequirement(dir, problems);

  const casesRoot = options.casesRoot ?? process.env.HELDOUT_CASES;
  const devCases = readCases(dir, path.join(dir, 'cases', 'dev'), 'dev', problems);
  let heldoutDir = path.join(dir, 'cases', 'heldout');
  if (casesRoot && config) {
    const outside = path.resolve(casesRoot, config.id);
    if (existsSync(outside)) heldoutDir = outside;
  }
  const heldoutCases = readCases(dir, heldoutDir, 'heldout', problems);
  if (devCases.length === 0)
    problems.push({ file: 'cases/dev', path: '', message: 'no development cases (need cases/dev/<case>/input.md)' });
  if (heldoutCases.length === 0) {
    problems.push({
      file: 'cases/heldout',
      path: '',
      message: 'no held-out cases (need cases/heldout/<case>/input.md or HELDOUT_CASES)',
    });
  }

  // Optimization names its a0 directory (`optimization.starter`, default starter/); editing patches starter/.
  const starterName = (config?.family === 'optimization' && config.optimization?.starter) || 'starter';
  const starterPath = path.resolve(dir, starterName);
  const starterDir = existsSync(starterPath) && statSync(starterPath).isDirectory() ? starterPath : null;
  if (config && (config.family === 'editing' || config.family === 'optimization') && !starterDir) {
    problems.push({
      file: starterName,
      path: '',
      message: `missing: a ${config.family} commission starts from ${starterName}/`,
    });
  }
  if (config) environmentProblems(dir, config, [...devCases, ...heldoutCases], configFile, problems);
  const checksDir = existsSync(path.join(dir, 'checks')) ? path.join(dir, 'checks') : null;
  if (rubric) checkFunctionModules(rubric, checksDir, rubricFile, problems);

  if (problems.length > 0 || !config || !rubric || !requirement) throw new CommissionError(dir, problems);
  return { dir, config, rubric, requirement, cases: { dev: devCases, heldout: heldoutCases }, checksDir, starterDir };
}

function readYaml(dir: string, file: string, problems: Problem[]): unknown {
  const text = readFileSync(path.join(dir, file), 'utf8');
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = lineCounter.linePos(e.pos[0]);
      problems.push({ file, path: `line ${pos.line}, column ${pos.col}`, message: e.message.split('\n')[0] });
    }
    return undefined;
  }
  if (!isMap(doc.contents) && !isSeq(doc.contents)) {
    problems.push({ file, path: '', message: 'must be a YAML mapping' });
    return undefined;
  }
  return doc.toJS();
}

function validate<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  file: string,
  problems: Problem[],
  prefix: (string | number)[] = [],
): z.output<S> | undefined {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  problems.push(...zodProblems(r.error, file, prefix));
  return undefined;
}

export function zodProblems(error: ZodError, file: string, prefix: (string | number)[] = []): Problem[] {
  return error.issues.flatMap((issue) => {
    const at = [...prefix, ...issue.path].map(String);
    // Zod reports unknown keys on the parent object; name each key itself, as a reader looks for the field.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ file, path: [...at, key].join('.'), message: 'unknown field' }));
    }
    return [{ file, path: at.join('.'), message: issue.message }];
  });
}

function readRequirement(dir: string, problems: Problem[]): Requirement | undefined {
  const reqDir = path.join(dir, 'requirement');
  const names = existsSync(reqDir) ? readdirSync(reqDir) : [];
  const out: Partial<Requirement> = {};
  for (const [key, prefix] of REQUIREMENT_DOCS) {
    const name = names.find((n) => n.startsWith(prefix) && n.endsWith('.md'));
    if (!name) {
      problems.push({ file: `requirement/${prefix}_*.md`, path: '', message: `missing the ${key} document` });
      continue;
    }
    const text = readFileSync(path.join(reqDir, name), 'utf8');
    if (text.trim() === '') problems.push({ file: `requirement/${name}`, path: '', message: 'is empty' });
    out[key] = text;
  }
  return Object.keys(out).length === 4 ? (out as Requirement) : undefined;
}

function readCases(root: string, splitDir: string, split: Split, problems: Problem[]): CaseRef[] {
  if (!existsSync(splitDir)) return [];
  const rel = (p: string) => path.relative(root, p) || p;
  const cases: CaseRef[] = [];
  for (const id of readdirSync(splitDir).sort()) {
    const dir = path.join(splitDir, id);
    if (!statSync(dir).isDirectory()) continue;
    const inputPath = path.join(dir, 'input.md');
    if (!existsSync(inputPath)) {
      problems.push({ file: rel(dir), path: '', message: 'missing input.md' });
      continue;
    }
    let truth: Record<string, unknown> | null = null;
    const truthPath = path.join(dir, 'truth.json');
    if (existsSync(truthPath)) {
      try {
        const parsed = truthSchema.safeParse(JSON.parse(readFileSync(truthPath, 'utf8')));
        if (parsed.success) truth = parsed.data;
        else problems.push({ file: rel(truthPath), path: '', message: 'must be a JSON object' });
      } catch (err) {
        problems.push({ file: rel(truthPath), path: '', message: `invalid JSON: ${(err as Error).message}` });
      }
    }
    const assetsDir = path.join(dir, 'assets');
    const readCaseYaml = (file: string) => readYaml(root, path.relative(root, file), problems);
    const services = readCaseServices(dir, rel, readCaseYaml, zodProblems, problems);
    cases.push({ id, split, dir, inputPath, assetsDir: existsSync(assetsDir) ? assetsDir : null, truth, services });
  }
  return cases;
}

/** Issue 19: the build context of `sandbox.build`, and each case's service files and build contexts. */
function environmentProblems(
  dir: string,
  config: CommissionConfig,
  cases: CaseRef[],
  configFile: string,
  problems: Problem[],
): void {
  if (config.sandbox.build) problems.push(...buildProblems(config.sandbox.build, dir, configFile, 'sandbox.build'));
  for (const c of cases) {
    const own = c.services ?? [];
    const names = new Set(own.map((s) => s.name));
    const inherited = config.services.filter((s) => !names.has(s.name));
    const where = (s: Service) =>
      own.includes(s)
        ? { file: path.relative(dir, path.join(c.dir, 'case.yaml')), at: `services.${own.indexOf(s)}`, baseDir: c.dir }
        : { file: configFile, at: `services.${config.services.indexOf(s)}`, baseDir: dir };
    problems.push(...serviceProblems([...inherited, ...own], c.dir, dir, where));
  }
}

/** Every `function` check of the rubric (dimension items, outcome and safety conditions, ceiling exceptions). */
function functionChecks(rubric: Rubric): { at: string; module: string }[] {
  const out: { at: string; module: string }[] = [];
  const visit = (c: unknown, at: string) => {
    if (c && typeof c === 'object' && (c as { check?: string }).check === 'function')
      out.push({ at: `${at}.module`, module: (c as { module: string }).module });
  };
  rubric.dimensions.forEach((d, i) => {
    d.items.forEach((item, j) => {
      visit(item, `dimensions.${i}.items.${j}`);
    });
  });
  rubric.outcomes.forEach((o, i) => {
    visit(o.when, `outcomes.${i}.when`);
    if (o.safety) visit(o.safety.when, `outcomes.${i}.safety.when`);
  });
  rubric.ceilings.forEach((c, i) => {
    visit(c.unless, `ceilings.${i}.unless`);
  });
  return out;
}

function checkFunctionModules(rubric: Rubric, checksDir: string | null, file: string, problems: Problem[]) {
  for (const { at, module } of functionChecks(rubric)) {
    if (!checksDir || !existsSync(path.join(checksDir, module)))
      problems.push({ file, path: at, message: `checks/${module} not found` });
  }
}
