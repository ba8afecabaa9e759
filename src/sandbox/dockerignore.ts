/**
 * `.dockerignore` as the docker CLI applies it to a build context (moby's patternmatcher): one pattern a line, `#`
 * comments, paths relative to the context (a leading `/` ignored), `*` and `?` within a path segment, `**` across
 * segments, `!` re-including; the last matching pattern decides, and a pattern that matches a directory matches
 * everything under it. Pure.
 */
import { globToRegExp } from '../util/index.js';

interface Rule {
  re: RegExp;
  negate: boolean;
}

/** A path cleaned as Go's filepath.Clean would for a relative pattern: no `.` parts, no doubled or edge slashes. */
function clean(p: string): string {
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/** The rules of a `.dockerignore` text. */
export function parseDockerignore(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1).trim();
    const pattern = clean(line);
    if (!pattern) continue;
    rules.push({ re: globToRegExp(pattern, { go: 'dockerignore' }), negate });
  }
  return rules;
}

/** True when `rel` (a context-relative path) is excluded from the context by `rules`. */
export function isIgnored(rel: string, rules: Rule[]): boolean {
  const path = clean(rel);
  const parts = path.split('/');
  let ignored = false;
  for (const rule of rules) {
    let hit = false;
    // the path itself, or one of its parent directories
    for (let n = parts.length; n >= 1 && !hit; n--) hit = rule.re.test(parts.slice(0, n).join('/'));
    if (hit) ignored = !rule.negate;
  }
  return ignored;
}
