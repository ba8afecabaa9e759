import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { type CommissionSummary, type Summary, summarySchema } from './schema.js';
import { summarySchemaV1 } from './schema-v1.js';
import { familyScores, finalizeEntries, sharesOf } from './verdicts.js';

/** A summary.json that cannot be read: the message is `file: field: problem`, one line per problem. */
export class SummaryReadError extends Error {
  override name = 'SummaryReadError';
}

function problems(file: string, error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((i) => `${file}: ${i.path.join('.') || '(document)'}: ${i.message}`)
    .join('\n');
}

/**
 * Reads a summary document of any version heldout wrote into summary@2. summary@2 is checked as it is. summary@1
 * (DESIGN §14's first version) gains what can be derived from it — failure-mode shares, each entry's verdict and
 * flags (by the pass rule: v1 never recorded the gate), family scores — and `gate.verdict: 'not-recorded'`,
 * `partial: null` (v1 never said) and `migratedFrom`. Throws SummaryReadError naming the field otherwise. Pure.
 */
export function migrateSummary(doc: unknown, file = 'summary.json'): Summary {
  const version = (doc as { schema?: unknown } | null)?.schema;
  if (version === 'heldout/summary@2') {
    const r = summarySchema.safeParse(doc);
    if (!r.success) throw new SummaryReadError(problems(file, r.error));
    return r.data;
  }
  if (version !== 'heldout/summary@1') {
    throw new SummaryReadError(
      `${file}: schema: expected "heldout/summary@2" or "heldout/summary@1", got ${JSON.stringify(version) ?? 'nothing'}`,
    );
  }
  const r = summarySchemaV1.safeParse(doc);
  if (!r.success) throw new SummaryReadError(problems(file, r.error));
  const v1 = r.data;
  const gate: Summary['gate'] = {
    verdict: 'not-recorded',
    reason: 'a summary@1 document: the gate was not recorded',
    thresholds: {},
    evaluatedOn: 'all',
    conditions: [],
  };
  const entries = v1.commissions.map(
    (c): CommissionSummary => ({
      ...c,
      failureModes: { ...c.failureModes, shares: sharesOf(c.failureModes) },
      verdict: 'pass',
      flags: [],
      notRun: 0,
    }),
  );
  const commissions = finalizeEntries(entries, gate, new Map());
  return summarySchema.parse({
    schema: 'heldout/summary@2',
    migratedFrom: 'heldout/summary@1',
    run: v1.run,
    gate,
    partial: null,
    families: familyScores(commissions),
    commissions,
  });
}

/** Reads and migrates a summary.json from disk; unreadable or invalid files throw SummaryReadError. */
export async function readSummary(file: string): Promise<Summary> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SummaryReadError(
      `${file}: cannot be read (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : (code ?? String(err))})`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new SummaryReadError(`${file}: not JSON (${(err as Error).message})`);
  }
  return migrateSummary(doc, file);
}

/** A run named by its report directory or its summary.json: the summary.json path (a directory's own). */
export async function summaryPathOf(run: string): Promise<string> {
  const st = await stat(run).catch(() => null);
  return st?.isDirectory() ? path.join(run, 'summary.json') : run;
}
