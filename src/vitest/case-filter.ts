import type { CaseRef } from '../commission/index.js';
import { globToRegExp } from '../util/index.js';

/** Which cases of a commission run: ids (or `split/id`) matching any glob, then at most `limit` per split. */
export interface CaseFilter {
  /** Globs over case ids or `split/id` (`*` and `?`); empty or absent: every case. */
  match?: string[];
  /** At most this many cases per commission × split, in id order, after `match`. */
  limit?: number | null;
}

/** The cases of one split a filter keeps, and the ids it leaves out (what a partial run must name). Pure. */
export function selectCases(cases: CaseRef[], filter: CaseFilter | undefined): { run: CaseRef[]; skipped: string[] } {
  const patterns = (filter?.match ?? []).map((g) => globToRegExp(g, { below: true }));
  const matched = patterns.length
    ? cases.filter((c) => patterns.some((re) => re.test(c.id) || re.test(`${c.split}/${c.id}`)))
    : cases;
  const limit = filter?.limit ?? null;
  const run = limit === null ? matched : matched.slice(0, limit);
  const kept = new Set(run.map((c) => c.id));
  return { run, skipped: cases.filter((c) => !kept.has(c.id)).map((c) => c.id) };
}
