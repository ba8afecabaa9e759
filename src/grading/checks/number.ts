import { show } from '../json-path.js';
import { CheckSetupError, defineCheck } from './context.js';
import { expectedOf, loc, valueAt } from './read.js';

/** `number`: full points when the number at `path` is within `tolerance` of the expected one. */
export const numberCheck = defineCheck('number', (item, ctx) => {
  const expected = Number(expectedOf(item, ctx.truth));
  if (!Number.isFinite(expected))
    throw new CheckSetupError(`expected value of ${loc(item.file, item.path)} is not a number`);
  const raw = valueAt(ctx.outputDir, item.file, item.path);
  const found = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(found))
    return {
      score: 0,
      evidence: `${loc(item.file, item.path)}: expected ${expected}, found ${show(raw)} (not a number)`,
    };
  const ok = Math.abs(found - expected) <= item.tolerance;
  return {
    score: ok ? 1 : 0,
    evidence: `${loc(item.file, item.path)}: expected ${expected} ± ${item.tolerance}, found ${found}`,
  };
});
