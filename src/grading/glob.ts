import { matchesAny as anyGlob, type GlobOptions, globToRegExp as glob } from '../util/index.js';

// Rubric paths (allowed and forbidden outputs, allowed edits) read a directory as its whole tree.
const RUBRIC: GlobOptions = { below: true };

/** A rubric glob as a RegExp: heldout's one glob (src/util/glob.ts), a directory naming everything below it. Pure. */
export function globToRegExp(pattern: string): RegExp {
  return glob(pattern, RUBRIC);
}

/** Whether a relative path matches any rubric glob. */
export function matchesAny(file: string, globs: string[]): boolean {
  return anyGlob(file, globs, RUBRIC);
}
