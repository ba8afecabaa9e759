import { existsSync } from 'node:fs';
import path from 'node:path';
import { importTypeScript } from '../../commission/index.js';
import { type CheckFunctionContext, CheckSetupError, defineCheck, OutputError } from './context.js';
import { readOutput, readOutputJson } from './read.js';

// One import per module file for the process: every case and trial grading with it shares the loaded module.
const moduleCache = new Map<string, Promise<unknown>>();

/** `function`: a TypeScript module in the commission's checks/ scores the case; its faults are setup faults. */
export const functionCheck = defineCheck('function', async (item, ctx) => {
  if (!ctx.checksDir) throw new CheckSetupError(`checks/${item.module}: the commission has no checks/ directory`);
  const file = path.join(ctx.checksDir, item.module);
  if (!existsSync(file)) throw new CheckSetupError(`checks/${item.module} not found`);
  let loading = moduleCache.get(file);
  if (!loading) {
    loading = importTypeScript(file);
    moduleCache.set(file, loading);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await loading) as Record<string, unknown>;
  } catch (err) {
    moduleCache.delete(file);
    throw new CheckSetupError(`checks/${item.module} cannot be imported: ${(err as Error).message}`);
  }
  const fn = mod[item.export];
  if (typeof fn !== 'function')
    throw new CheckSetupError(`checks/${item.module} has no function export ${item.export}`);
  const fctx: CheckFunctionContext = {
    caseId: ctx.caseId,
    split: ctx.split,
    input: ctx.input,
    truth: ctx.truth,
    outputDir: ctx.outputDir,
    readJson: (rel) => readOutputJson(ctx.outputDir, rel),
    readText: (rel) => readOutput(ctx.outputDir, rel),
    execution: ctx.execution,
  };
  let out: unknown;
  try {
    out = await fn(fctx);
  } catch (err) {
    // The function read an output that is missing or broken: that is the delivery's fault.
    if (err instanceof OutputError) return { score: 0, evidence: err.message };
    throw new CheckSetupError(`checks/${item.module} threw: ${(err as Error).message}`);
  }
  const o = out as { score?: unknown; evidence?: unknown } | null;
  const score = typeof o?.score === 'boolean' ? Number(o.score) : Number(o?.score);
  if (!Number.isFinite(score)) throw new CheckSetupError(`checks/${item.module} returned no numeric score`);
  return {
    score: Math.min(1, Math.max(0, score)),
    evidence: String(o?.evidence ?? '') || `checks/${item.module}: ${score}`,
  };
});
