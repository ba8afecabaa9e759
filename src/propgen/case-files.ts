import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RenderedCase } from './types.js';

/**
 * Checks a rendered case: `input.md` is present and every other file lies under `assets/` without escaping it.
 * Returns the problem, or null.
 */
export function renderedProblem(files: RenderedCase): string | null {
  if (typeof files['input.md'] !== 'string') return 'render() must return an input.md';
  for (const [rel, text] of Object.entries(files)) {
    if (typeof text !== 'string') return `render(): ${rel} is not a string`;
    const norm = path.posix.normalize(rel);
    if (rel !== 'input.md' && (!norm.startsWith('assets/') || norm.includes('..') || path.isAbsolute(rel))) {
      return `render(): ${rel} must be input.md or lie under assets/`;
    }
  }
  return null;
}

/** Writes the files of a rendered case into `dir` (created); returns the assets directory or null. */
export function writeRendered(dir: string, files: RenderedCase): string | null {
  const problem = renderedProblem(files);
  if (problem) throw new Error(problem);
  mkdirSync(dir, { recursive: true });
  let assets = false;
  for (const [rel, text] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
    if (rel.startsWith('assets/')) assets = true;
  }
  return assets ? path.join(dir, 'assets') : null;
}

/** A short content hash of a rendered case: equal files, equal hash, whatever order render() listed them in. */
export function renderedHash(files: RenderedCase): string {
  const h = createHash('sha256');
  for (const rel of Object.keys(files).sort()) h.update(`${rel}\0${files[rel]}\0`);
  return h.digest('hex').slice(0, 8);
}

/** JSON with stable key order, so the same input always writes the same bytes. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}
