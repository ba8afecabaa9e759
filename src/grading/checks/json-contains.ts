import { jsonEqual, show } from '../json-path.js';
import { type CheckResult, defineCheck } from './context.js';
import { expectedOf, loc, valueAt } from './read.js';

/** `json-contains`: the share of expected fields (object) or elements (array, substring) found at `path`. */
export const jsonContainsCheck = defineCheck('json-contains', (item, ctx) => {
  const expected = expectedOf(item, ctx.truth);
  const found = valueAt(ctx.outputDir, item.file, item.path);
  return containsScore(loc(item.file, item.path), expected, found);
});

function containsScore(where: string, expected: unknown, found: unknown): CheckResult {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (found === null || typeof found !== 'object' || Array.isArray(found)) {
      return { score: 0, evidence: `${where}: expected an object containing ${show(expected)}, found ${show(found)}` };
    }
    const keys = Object.keys(expected);
    const missing = keys.filter((k) => !jsonEqual((found as any)[k], (expected as any)[k], true));
    const score = keys.length === 0 ? 1 : (keys.length - missing.length) / keys.length;
    return {
      score,
      evidence: `${where}: ${keys.length - missing.length}/${keys.length} expected fields match${missing.length ? `; differing: ${missing.slice(0, 5).join(', ')}` : ''}`,
    };
  }
  const wanted = Array.isArray(expected) ? expected : [expected];
  if (wanted.length === 0) return { score: 1, evidence: `${where}: nothing expected` };
  const has = (e: unknown) => {
    if (typeof found === 'string')
      return typeof e === 'string' || typeof e === 'number'
        ? found.toLowerCase().includes(String(e).toLowerCase())
        : false;
    if (Array.isArray(found)) return found.some((f) => jsonEqual(f, e, true));
    return false;
  };
  if (typeof found !== 'string' && !Array.isArray(found)) {
    return {
      score: 0,
      evidence: `${where}: expected an array or string containing ${show(wanted)}, found ${show(found)}`,
    };
  }
  const missing = wanted.filter((e) => !has(e));
  const n = wanted.length - missing.length;
  return {
    score: n / wanted.length,
    evidence: `${where}: ${n}/${wanted.length} expected found${missing.length ? `; missing ${show(missing, 100)}` : ''}`,
  };
}
