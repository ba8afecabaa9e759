import { show } from '../json-path.js';
import { CheckSetupError, defineCheck } from './context.js';
import { readOutput } from './read.js';

/** `regex`: full points when the pattern matches the file's text (`negate`: when it does not). */
export const regexCheck = defineCheck('regex', (item, ctx) => {
  const text = readOutput(ctx.outputDir, item.file);
  let re: RegExp;
  try {
    re = new RegExp(item.pattern, item.flags);
  } catch (err) {
    throw new CheckSetupError(`invalid pattern /${item.pattern}/${item.flags}: ${(err as Error).message}`);
  }
  const m = re.exec(text);
  const ok = item.negate ? m === null : m !== null;
  const what = m ? `matched ${show(m[0], 60)}` : 'no match';
  return {
    score: ok ? 1 : 0,
    evidence: `${item.file} /${item.pattern}/${item.flags}${item.negate ? ' (must not match)' : ''}: ${what}`,
  };
});
