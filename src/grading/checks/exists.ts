import { existsSync } from 'node:fs';
import { insideDir } from '../outputs.js';
import { defineCheck } from './context.js';

/** `exists`: full points when the output file is there. */
export const existsCheck = defineCheck('exists', (item, ctx) => {
  const p = insideDir(ctx.outputDir, item.file);
  const ok = p !== null && existsSync(p);
  return { score: ok ? 1 : 0, evidence: ok ? `${item.file} exists` : `${item.file} is missing` };
});
