/**
 * The environment of a package as the loader checks it (issue 19): each case's `case.yaml` (its own services), the
 * build context of `sandbox.build` and of services, and every service file a case will mount, so a missing piece is
 * a `file: field: problem` before anything runs. Read by the loader's hostile-input rules (issue 17): a source or
 * context must stay inside the package (or the case directory it is relative to), links inside a mounted directory
 * must stay inside it — the process backend's services read them on the host — and nothing here throws.
 */
import path from 'node:path';
import { zodProblems } from './documents.js';
import { type BuildConfig, caseConfigSchema, type Service } from './environment-schema.js';
import { entryAt, notFile, realDir, treeRefusals } from './package-files.js';
import type { Problem } from './problems.js';

/** The services a parsed `case.yaml` declares for one case (`file` names it in problems). */
export function caseServicesOf(raw: unknown, file: string, problems: Problem[]): Service[] {
  const parsed = caseConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data.services;
  problems.push(...zodProblems(parsed.error, file));
  return [];
}

/** A case's services: the commission's, with the case's added (a case service of the same name replaces one). */
export function caseServices(commission: readonly Service[], ofCase: readonly Service[] = []): Service[] {
  const names = new Set(ofCase.map((s) => s.name));
  return [...commission.filter((s) => !names.has(s.name)), ...ofCase];
}

/** Where a service's file source is on the host: under the case directory, or the package for `{commission}/…`. */
export function serviceFileSource(source: string, caseDir: string, commissionDir: string): string {
  return source.startsWith('{commission}/')
    ? path.resolve(commissionDir, source.slice('{commission}/'.length))
    : path.resolve(caseDir, source);
}

/** Where a declaration's relative paths are taken from and must stay: the package, or one case's directory. */
export interface Base {
  dir: string;
  /** `dir`'s real path. */
  real: string;
  name: string;
}

/** The package, or a case directory, as a `Base`; null when it cannot be resolved (already a problem then). */
export function baseOf(dir: string, name: string): Base | null {
  const r = realDir(dir);
  return 'real' in r ? { dir, real: r.real, name } : null;
}

/** Problems of a build: its context must be a directory inside `base` holding its Dockerfile, a regular file. */
export function buildProblems(build: BuildConfig, base: Base, file: string, at: string): Problem[] {
  const problem = (field: string, message: string) => [{ file, path: `${at}.${field}`, message }];
  const ctx = entryAt(base.real, path.resolve(base.dir, build.context), base.name);
  if (ctx.kind === 'refused') return problem('context', `${build.context} ${ctx.reason}`);
  if (ctx.kind !== 'dir') return problem('context', `${build.context} is not a directory`);
  const dockerfile = path.resolve(ctx.real, build.dockerfile);
  if (path.relative(ctx.real, dockerfile).startsWith('..')) return problem('dockerfile', 'must be inside the context');
  const df = entryAt(ctx.real, dockerfile, 'the context');
  if (df.kind === 'missing') return problem('dockerfile', `${build.dockerfile} not found in ${build.context}`);
  if (df.kind !== 'file') return problem('dockerfile', `${build.dockerfile} ${notFile(df)}`);
  return [];
}

/**
 * Problems of the services a case will run: file sources that do not exist or are no regular file or directory
 * inside their base (a directory walked whole), build contexts that are wrong.
 */
export function serviceProblems(
  services: readonly Service[],
  ofCase: { id: string; base: Base },
  pkg: Base,
  where: (service: Service) => { file: string; at: string; base: Base },
  rel: (p: string) => string,
): Problem[] {
  const out: Problem[] = [];
  for (const s of services) {
    const { file, at, base } = where(s);
    if (s.build) out.push(...buildProblems(s.build, base, file, `${at}.build`));
    for (const source of Object.keys(s.files)) {
      const from = source.startsWith('{commission}/') ? pkg : ofCase.base;
      const abs = serviceFileSource(source, ofCase.base.dir, pkg.dir);
      const e = entryAt(from.real, abs, from.name);
      const problem = (message: string) => out.push({ file, path: `${at}.files.${source}`, message });
      if (e.kind === 'missing') problem(`not found for case ${ofCase.id}`);
      else if (e.kind === 'refused') problem(`${e.reason} (case ${ofCase.id})`);
      else if (e.kind === 'dir') {
        for (const r of treeRefusals(abs, e.real, 'the mounted directory')) {
          problem(`${rel(r.path)} ${r.reason} (case ${ofCase.id})`);
        }
      }
    }
  }
  return out;
}
