/**
 * The environment of a package as the loader checks it (issue 19): each case's `case.yaml` (its own services), the
 * build context of `sandbox.build` and of services, and every service file a case will mount, so a missing piece is
 * a `file: field: problem` before anything runs.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ZodError } from 'zod';
import { type BuildConfig, caseConfigSchema, type Service } from './environment-schema.js';

/** One problem, as load.ts collects them. */
interface Problem {
  file: string;
  path: string;
  message: string;
}

type Validate = (error: ZodError, file: string) => Problem[];

/** The services `case.yaml` declares for one case (none when it has no case.yaml); problems are collected. */
export function readCaseServices(
  caseDir: string,
  rel: (p: string) => string,
  readYaml: (file: string) => unknown,
  zodProblems: Validate,
  problems: Problem[],
): Service[] {
  const file = path.join(caseDir, 'case.yaml');
  if (!existsSync(file)) return [];
  const raw = readYaml(file);
  if (raw === undefined) return [];
  const parsed = caseConfigSchema.safeParse(raw);
  if (!parsed.success) {
    problems.push(...zodProblems(parsed.error, rel(file)));
    return [];
  }
  return parsed.data.services;
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

/** Problems of a build: its context must be a directory holding its Dockerfile. */
export function buildProblems(build: BuildConfig, baseDir: string, file: string, at: string): Problem[] {
  const context = path.resolve(baseDir, build.context);
  if (!existsSync(context) || !statSync(context).isDirectory())
    return [{ file, path: `${at}.context`, message: `${build.context} is not a directory` }];
  const dockerfile = path.resolve(context, build.dockerfile);
  if (path.relative(context, dockerfile).startsWith('..'))
    return [{ file, path: `${at}.dockerfile`, message: 'must be inside the context' }];
  if (!existsSync(dockerfile))
    return [{ file, path: `${at}.dockerfile`, message: `${build.dockerfile} not found in ${build.context}` }];
  return [];
}

/** Problems of the services a case will run: file sources that do not exist, build contexts that are wrong. */
export function serviceProblems(
  services: readonly Service[],
  caseDir: string,
  commissionDir: string,
  where: (service: Service) => { file: string; at: string; baseDir: string },
): Problem[] {
  const out: Problem[] = [];
  for (const s of services) {
    const { file, at, baseDir } = where(s);
    if (s.build) out.push(...buildProblems(s.build, baseDir, file, `${at}.build`));
    for (const source of Object.keys(s.files)) {
      if (!existsSync(serviceFileSource(source, caseDir, commissionDir))) {
        out.push({ file, path: `${at}.files.${source}`, message: `not found for case ${path.basename(caseDir)}` });
      }
    }
  }
  return out;
}
