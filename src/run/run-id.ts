import { randomBytes } from 'node:crypto';

/** A sortable, unique run id: UTC time to the second plus 4 random hex digits (labels containers, names reports/). */
export function newRunId(now = new Date()): string {
  const t = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${t}-${randomBytes(2).toString('hex')}`;
}
