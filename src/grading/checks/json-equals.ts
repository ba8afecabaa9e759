import { jsonEqual, show } from '../json-path.js';
import { defineCheck } from './context.js';
import { expectedOf, loc, valueAt } from './read.js';

/** `json-equals`: full points when the value at `path` equals the expected one (`loose`: strings folded). */
export const jsonEqualsCheck = defineCheck('json-equals', (item, ctx) => {
  const expected = expectedOf(item, ctx.truth);
  const found = valueAt(ctx.outputDir, item.file, item.path);
  const ok = jsonEqual(found, expected, item.loose);
  return {
    score: ok ? 1 : 0,
    evidence: `${loc(item.file, item.path)}: expected ${show(expected)}, found ${show(found)}`,
  };
});
