import path from 'node:path';
import type { z } from 'zod';
import { type Base, baseOf, buildProblems, serviceProblems } from './case-environment.js';
import { parseYaml } from './documents.js';
import type { Service } from './environment-schema.js';
import { importTypeScript } from './import-ts.js';
import { type Entry, entryAt, listDir, notFile, readEntry, realDir } from './package-files.js';
import { CommissionError, type Problem } from './problems.js';
import { type CaseRef, readCases, type Split } from './read-cases.js';
import { type CommissionConfig, commissionSchema, type Rubric, rubricSchema } from './schema.js';
import { checkModuleProblems, dryRunProblems, type PackageDraft } from './validate-package.js';
import { zodProblems } from './zod-problems.js';

export { CommissionError, formatProblem, type Problem, problemFile } from './problems.js';
export type { CaseRef, Split } from './read-cases.js';

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
  /** Also import every `function` check module and check its export (what `heldout validate` and `run` do). */
  checkModules?: boolean;
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
 * listing every problem found, whatever the package holds (never a bare stack trace): only regular files of
 * bounded size inside the package are read, links never followed out of it, FIFOs and devices never opened.
 */
export async function loadCommission(dirArg: string, options: LoadOptions = {}): Promise<Commission> {
  const dir = path.resolve(dirArg);
  const root = realDir(dir);
  if ('reason' in root) throw new CommissionError(dir, [{ file: '', path: '', message: root.reason }]);
  try {
    return await loadFrom(new PackageFiles(dir, root.real), options);
  } catch (err) {
    if (err instanceof CommissionError) throw err;
    // Never expected: the readers turn every I/O and parse error into a problem. Still a problem line, not a stack.
    throw new CommissionError(dir, [{ file: '', path: '', message: `the loader failed: ${(err as Error)?.message}` }]);
  }
}

/** The package's own files, looked up by their path in it; every refusal is recorded as a problem. */
class PackageFiles {
  readonly problems: Problem[] = [];

  constructor(
    readonly dir: string,
    readonly real: string,
  ) {}

  at(rel: string): Entry {
    return entryAt(this.real, path.join(this.dir, rel));
  }

  problem(file: string, message: string, at = ''): void {
    this.problems.push({ file, path: at, message });
  }

  /** The text of `rel`, or undefined when it is missing; a refusal (a directory, a link out…) is a problem. */
  text(rel: string, entry = this.at(rel)): string | undefined {
    if (entry.kind === 'missing') return undefined;
    if (entry.kind !== 'file') {
      this.problem(rel, notFile(entry));
      return undefined;
    }
    const read = readEntry(entry);
    if ('reason' in read) {
      this.problem(rel, read.reason);
      return undefined;
    }
    return read.text;
  }

  /** A YAML document of the package as plain values; undefined (with its problems) when it is none. */
  yaml(rel: string, entry?: Entry): unknown {
    const text = this.text(rel, entry);
    if (text === undefined) return undefined;
    const parsed = parseYaml(text);
    if ('value' in parsed) return parsed.value;
    for (const p of parsed.problems) this.problem(rel, p.message, p.path);
    return undefined;
  }

  /** A directory of the package: its entry when it is one; missing → null; anything else is a problem. */
  directory(rel: string, what = 'must be a directory'): Extract<Entry, { kind: 'dir' }> | null {
    const e = this.at(rel);
    if (e.kind === 'dir') return e;
    if (e.kind === 'file') this.problem(rel, what);
    else if (e.kind === 'refused') this.problem(rel, e.reason);
    return null;
  }
}

async function loadFrom(pkg: PackageFiles, options: LoadOptions): Promise<Commission> {
  const { dir, problems } = pkg;
  let rawConfig: unknown;
  let rawRubric: unknown;
  let configFile = 'commission.yaml';
  const yamlEntry = pkg.at('commission.yaml');
  const tsEntry = pkg.at('commission.ts');
  if (yamlEntry.kind !== 'missing' && tsEntry.kind !== 'missing') {
    pkg.problem('commission.ts', 'both commission.yaml and commission.ts exist; keep one');
  }
  if (yamlEntry.kind !== 'missing') {
    rawConfig = pkg.yaml('commission.yaml', yamlEntry);
  } else if (tsEntry.kind !== 'missing') {
    configFile = 'commission.ts';
    if (tsEntry.kind !== 'file') pkg.problem(configFile, notFile(tsEntry));
    else {
      try {
        const mod = (await importTypeScript(tsEntry.real)) as { default?: unknown };
        if (!mod.default || typeof mod.default !== 'object') {
          pkg.problem(configFile, 'must `export default defineCommission({...})`');
        } else {
          const { rubric, ...rest } = mod.default as Record<string, unknown>;
          rawConfig = rest;
          rawRubric = rubric;
        }
      } catch (err) {
        pkg.problem(configFile, `cannot be imported: ${(err as Error)?.message}`);
      }
    }
  } else {
    pkg.problem('commission.yaml', 'missing; add commission.yaml (or commission.ts)');
  }

  const config = rawConfig === undefined ? undefined : validate(commissionSchema, rawConfig, configFile, problems);

  const rubricEntry = pkg.at('rubric.yaml');
  let rubricFile = 'rubric.yaml';
  if (rawRubric !== undefined) {
    rubricFile = configFile;
    if (rubricEntry.kind !== 'missing')
      pkg.problem('rubric.yaml', `the rubric is also given in ${configFile}; keep one`);
  } else if (rubricEntry.kind !== 'missing') {
    rawRubric = pkg.yaml('rubric.yaml', rubricEntry);
  } else {
    pkg.problem('rubric.yaml', 'missing; add rubric.yaml (dimensions, outcomes, ceilings)');
  }
  const rubric =
    rawRubric === undefined
      ? undefined
      : validate(rubricSchema, rawRubric, rubricFile, problems, rubricFile === configFile ? ['rubric'] : []);

  const requirement = readRequirement(pkg);

  const rel = (p: string) => path.relative(dir, p) || p;
  const casesRoot = options.casesRoot ?? process.env.HELDOUT_CASES;
  const devCases = pkg.directory('cases', 'must be a directory (cases/dev, cases/heldout)')
    ? readCases({ root: pkg.real, dir: path.join(dir, 'cases', 'dev'), split: 'dev', rel }, problems)
    : [];
  let heldout: { root: string; dir: string; rootName?: string } = {
    root: pkg.real,
    dir: path.join(dir, 'cases', 'heldout'),
  };
  if (casesRoot && config) {
    // The id is a slug, so this stays inside casesRoot; held-out cases there must stay inside it.
    const outside = path.resolve(casesRoot, config.id);
    const real = realDir(outside);
    if ('real' in real) heldout = { root: real.real, dir: outside, rootName: 'HELDOUT_CASES/<id>' };
    else if (!real.missing) pkg.problem(rel(outside), `(HELDOUT_CASES) ${real.reason}`);
  }
  const heldoutCases =
    heldout.root !== pkg.real || pkg.at('cases').kind === 'dir'
      ? readCases({ ...heldout, split: 'heldout', rel }, problems)
      : [];
  if (devCases.length === 0) pkg.problem('cases/dev', 'no development cases (need cases/dev/<case>/input.md)');
  if (heldoutCases.length === 0) {
    pkg.problem('cases/heldout', 'no held-out cases (need cases/heldout/<case>/input.md or HELDOUT_CASES)');
  }

  // Optimization names its a0 directory (`optimization.starter`, default starter/); editing patches starter/.
  const starterName = (config?.family === 'optimization' && config.optimization?.starter) || 'starter';
  const starterEntry = pkg.at(starterName);
  const starterDir = starterEntry.kind === 'dir' ? path.resolve(dir, starterName) : null;
  if (starterEntry.kind === 'refused') pkg.problem(starterName, starterEntry.reason);
  else if (config && (config.family === 'editing' || config.family === 'optimization') && !starterDir) {
    pkg.problem(
      starterName,
      `missing: ${config.family === 'editing' ? 'an editing' : 'an optimization'} commission starts from ${starterName}/; add it`,
    );
  }
  if (config) environmentProblems(pkg, config, [...devCases, ...heldoutCases], configFile, rel);
  const checksDir = pkg.directory('checks') ? path.join(dir, 'checks') : null;
  if (rubric) checkFunctionModules(pkg, rubric, checksDir, rubricFile);
  const draft: PackageDraft = {
    dir,
    config: rawConfig,
    configFile,
    rubric: rawRubric,
    rubricFile,
    rubricPrefix: rubricFile === configFile ? ['rubric'] : [],
    cases: [...devCases, ...heldoutCases],
  };
  problems.push(...dryRunProblems(draft));
  if (options.checkModules) problems.push(...(await checkModuleProblems(draft, checksDir)));

  if (problems.length > 0 || !config || !rubric || !requirement) throw new CommissionError(dir, problems);
  return { dir, config, rubric, requirement, cases: { dev: devCases, heldout: heldoutCases }, checksDir, starterDir };
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
  problems.push(...zodProblems(r.error, file, prefix, raw));
  return undefined;
}

function readRequirement(pkg: PackageFiles): Requirement | undefined {
  const reqDir = pkg.directory('requirement');
  const listed = reqDir ? listDir(reqDir) : { names: [] };
  if ('reason' in listed) pkg.problem('requirement', listed.reason);
  const names = 'names' in listed ? listed.names : [];
  const out: Partial<Requirement> = {};
  for (const [key, prefix] of REQUIREMENT_DOCS) {
    const name = names.find((n) => n.startsWith(prefix) && n.endsWith('.md'));
    if (!name) {
      pkg.problem(`requirement/${prefix}_*.md`, `missing the ${key} document; add requirement/${prefix}_${key}.md`);
      continue;
    }
    const file = `requirement/${name}`;
    const text = pkg.text(file);
    if (text === undefined) continue;
    if (text.trim() === '') pkg.problem(file, 'is empty; write the document');
    out[key] = text;
  }
  return Object.keys(out).length === 4 ? (out as Requirement) : undefined;
}

/**
 * Issue 19: the build context of `sandbox.build`, and each case's service files and build contexts, by the same
 * rules as every other file of the package (inside it, or inside the case directory a case.yaml's paths start from).
 */
function environmentProblems(
  pkg: PackageFiles,
  config: CommissionConfig,
  cases: CaseRef[],
  configFile: string,
  rel: (p: string) => string,
): void {
  const root: Base = { dir: pkg.dir, real: pkg.real, name: 'the package' };
  if (config.sandbox.build)
    pkg.problems.push(...buildProblems(config.sandbox.build, root, configFile, 'sandbox.build'));
  for (const c of cases) {
    const caseBase = baseOf(c.dir, 'its case directory');
    if (!caseBase) continue;
    const own = c.services ?? [];
    const names = new Set(own.map((s) => s.name));
    const inherited = config.services.filter((s) => !names.has(s.name));
    const where = (s: Service) =>
      own.includes(s)
        ? { file: rel(path.join(c.dir, 'case.yaml')), at: `services.${own.indexOf(s)}`, base: caseBase }
        : { file: configFile, at: `services.${config.services.indexOf(s)}`, base: root };
    pkg.problems.push(...serviceProblems([...inherited, ...own], { id: c.id, base: caseBase }, root, where, rel));
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

function checkFunctionModules(pkg: PackageFiles, rubric: Rubric, checksDir: string | null, file: string) {
  for (const { at, module } of functionChecks(rubric)) {
    const e: Entry = checksDir ? pkg.at(path.join('checks', module)) : { kind: 'missing' };
    if (e.kind === 'missing') pkg.problem(file, `checks/${module} not found; add it to checks/ or fix the name`, at);
    else if (e.kind !== 'file') pkg.problem(file, `checks/${module} ${notFile(e)}`, at);
  }
}
