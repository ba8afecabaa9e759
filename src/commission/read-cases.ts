/**
 * A split's cases, read as hostile input: what a sandbox is given of a case (`input.md`, `assets/`) must stay inside
 * that case's directory — a link from a dev case's assets to a held-out truth would hand it to the delivery — and
 * `truth.json` inside the package; FIFOs, devices, dangling links and loops are refused, never opened.
 */
import path from 'node:path';
import { caseServicesOf } from './case-environment.js';
import { parseJson, parseYaml } from './documents.js';
import type { Service } from './environment-schema.js';
import { entryAt, listDir, notFile, readEntry, treeRefusals } from './package-files.js';
import type { Problem } from './problems.js';
import { truthSchema } from './schema.js';

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

const CASE_DIR = 'its case directory';

/** Where the split's cases are read from and how their files are named in problems. */
export interface SplitSource {
  /** Real path of the root the cases must stay in (the package, or `$HELDOUT_CASES/<id>`). */
  root: string;
  /** How a refusal names that root (default: the package). */
  rootName?: string;
  /** The split's directory (as given, not resolved). */
  dir: string;
  split: Split;
  /** A path as problems name it (relative to the package). */
  rel: (p: string) => string;
}

/** The cases of one split, sorted by id; every refusal is a problem, nothing throws. */
export function readCases(src: SplitSource, problems: Problem[]): CaseRef[] {
  const { root, dir, rel } = src;
  const problem = (p: string, message: string) => problems.push({ file: rel(p), path: '', message });
  const splitEntry = entryAt(root, dir, src.rootName);
  if (splitEntry.kind === 'missing') return [];
  if (splitEntry.kind !== 'dir') {
    problem(dir, splitEntry.kind === 'file' ? 'must be a directory of cases' : splitEntry.reason);
    return [];
  }
  const listed = listDir(splitEntry);
  if ('reason' in listed) {
    problem(dir, listed.reason);
    return [];
  }
  const cases: CaseRef[] = [];
  for (const id of listed.names) {
    const caseDir = path.join(dir, id);
    const e = entryAt(root, caseDir, src.rootName);
    if (e.kind === 'refused') problem(caseDir, e.reason);
    // A file beside the cases (a README) is no case.
    if (e.kind !== 'dir') continue;
    const one = readCase(src, id, caseDir, e.real, problems);
    if (one) cases.push(one);
  }
  return cases;
}

function readCase(
  src: SplitSource,
  id: string,
  caseDir: string,
  caseReal: string,
  problems: Problem[],
): CaseRef | null {
  const problem = (p: string, message: string) => problems.push({ file: src.rel(p), path: '', message });
  const inputPath = path.join(caseDir, 'input.md');
  const input = entryAt(caseReal, inputPath, CASE_DIR);
  if (input.kind === 'missing') {
    problem(caseDir, 'missing input.md; every case directory needs one');
    return null;
  }
  if (input.kind !== 'file') {
    problem(inputPath, notFile(input));
    return null;
  }
  const truth = readTruth(src, path.join(caseDir, 'truth.json'), problems);
  const assetsPath = path.join(caseDir, 'assets');
  const assets = entryAt(caseReal, assetsPath, CASE_DIR);
  let assetsDir: string | null = null;
  if (assets.kind === 'dir') {
    const refused = treeRefusals(assetsPath, assets.real, 'the assets directory');
    for (const r of refused) problems.push({ file: src.rel(r.path), path: '', message: r.reason });
    if (refused.length === 0) assetsDir = assetsPath;
  } else if (assets.kind !== 'missing') {
    problem(assetsPath, assets.kind === 'file' ? 'must be a directory' : assets.reason);
  }
  const services = readCaseYaml(src, path.join(caseDir, 'case.yaml'), problems);
  return { id, split: src.split, dir: caseDir, inputPath, assetsDir, truth, services };
}

/** The case's own services from its `case.yaml` (evaluator-owned, never staged; inside the root like truth.json). */
function readCaseYaml(src: SplitSource, file: string, problems: Problem[]): Service[] {
  const problem = (message: string, at = '') => problems.push({ file: src.rel(file), path: at, message });
  const text = textInRoot(src, file, problem);
  if (text === undefined) return [];
  const parsed = parseYaml(text);
  if ('problems' in parsed) {
    for (const p of parsed.problems) problem(p.message, p.path);
    return [];
  }
  return caseServicesOf(parsed.value, src.rel(file), problems);
}

function readTruth(src: SplitSource, truthPath: string, problems: Problem[]): Record<string, unknown> | null {
  const problem = (message: string, at = '') => problems.push({ file: src.rel(truthPath), path: at, message });
  const text = textInRoot(src, truthPath, problem);
  if (text === undefined) return null;
  const parsed = parseJson(text);
  if ('problems' in parsed) {
    for (const p of parsed.problems) problem(p.message, p.path);
    return null;
  }
  const truth = truthSchema.safeParse(parsed.value);
  if (truth.success) return truth.data;
  problem('must be a JSON object ({ "field": value, … }); fix it');
  return null;
}

/** The text of a regular file inside the split's root; undefined when missing or refused (then a problem). */
function textInRoot(src: SplitSource, file: string, problem: (message: string) => void): string | undefined {
  const e = entryAt(src.root, file, src.rootName);
  if (e.kind === 'missing') return undefined;
  if (e.kind !== 'file') {
    problem(notFile(e));
    return undefined;
  }
  const read = readEntry(e);
  if ('reason' in read) {
    problem(read.reason);
    return undefined;
  }
  return read.text;
}
