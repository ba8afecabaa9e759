import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const REPO = resolve(import.meta.dirname, '../..');
export const BIN = join(REPO, 'dist/cli/bin.js');
export const execFileP = promisify(execFile);

type Json = Record<string, unknown>;

/** The environment for a child heldout run: it must not think it is a worker of this Vitest. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|TEST$|NODE_OPTIONS|TINYPOOL)/.test(k)) env[k] = v;
  return { ...env, CI: 'true', FORCE_COLOR: '0' };
}

/**
 * The figures of a summary.json that must not depend on where or how cases ran: per commission the Result
 * statistics, pass^k, pass@k, gap and failure modes, per case its status, gate, result and dimensions. Wall times,
 * run ids, dates and the backend name are left out.
 */
export function figures(summaryPath: string): (Json & { cases: Json[] })[] {
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as { commissions: Json[] };
  return summary.commissions
    .map((c) => ({
      id: c.id,
      split: c.split,
      digest: (c.delivery as Json).digest,
      result: c.result,
      passHatK: c.passHatK,
      passAtK: c.passAtK,
      gap: c.gap,
      failureModes: c.failureModes,
      cases: (c.cases as Json[])
        .map((k) => ({
          id: k.id,
          trial: k.trial,
          status: k.status,
          gate: k.gate,
          result: k.result,
          passed: k.passed,
          dimensions: k.dimensions,
        }))
        .sort((a, b) => `${a.id}/${a.trial}`.localeCompare(`${b.id}/${b.trial}`)),
    }))
    .sort((a, b) => `${a.id}/${a.split}`.localeCompare(`${b.id}/${b.split}`));
}
