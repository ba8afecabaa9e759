import type { NotRunCase, PartialReport, UnloadedSuite } from './schema.js';

/** How many not-run executions summary.json names; the rest are counted in `more`. */
export const NOT_RUN_NAMED = 5000;

/** What the reporter knows of a run's coverage: what it planned and what never got a grade. */
export interface CoverageInput {
  /** Case × trial executions the run's test files declared. */
  planned: number;
  /** The planned executions without a grade, each with why. */
  notRun: NotRunCase[];
  /** `i/n` when the run was one shard of several. */
  shard?: string | null;
  /** Commission suites that failed to load: their cases are unknown, so the run cannot be read as whole. */
  unloaded?: UnloadedSuite[];
}

/**
 * The summary's `partial` record, or null when every planned execution has a grade and the run was not a shard.
 * The reason says how many were not run and why, so a filtered run never reads as a whole one. Pure.
 */
export function partialReport(input: CoverageInput): PartialReport | null {
  const shard = input.shard ?? null;
  const notRun = input.notRun.length;
  const unloaded = input.unloaded ?? [];
  if (notRun === 0 && shard === null && unloaded.length === 0) return null;
  const why = new Map<string, number>();
  for (const c of input.notRun) why.set(c.why, (why.get(c.why) ?? 0) + 1);
  const parts: string[] = [];
  if (notRun > 0) {
    const kinds = [...why].map(([w, n]) => `${n} ${w}`).join(', ');
    parts.push(`${notRun} of ${input.planned} planned executions were not run (${kinds})`);
  }
  if (unloaded.length > 0) {
    const named = unloaded.map((u) => `${u.commission}: ${u.error}`).join('; ');
    parts.push(`${unloaded.length} commission suite(s) failed to load, so their cases are unknown (${named})`);
  }
  if (shard !== null)
    parts.push(`this is shard ${shard}: the other shards' cases are not here (--merge-reports joins them)`);
  const sorted = [...input.notRun].sort(
    (a, b) =>
      a.commission.localeCompare(b.commission) ||
      a.delivery.localeCompare(b.delivery) ||
      a.split.localeCompare(b.split) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : a.trial - b.trial),
  );
  return {
    reason: parts.join('; '),
    planned: input.planned,
    ran: input.planned - notRun,
    notRun,
    shard,
    cases: sorted.slice(0, NOT_RUN_NAMED),
    more: Math.max(0, notRun - NOT_RUN_NAMED),
    ...(unloaded.length > 0 ? { unloaded } : {}),
  };
}
