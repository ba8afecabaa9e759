import type { CaseMeta } from '../run/index.js';
import type { CommissionSummary } from './schema.js';

type Verdict = NonNullable<CaseMeta['repeats']>[number];

/** A round's verdict as flakiness compares it: its status, and whether it met the pass rule. */
const verdictKey = (v: Verdict, minResult: number) =>
  `${v.status}:${v.passed && v.status === 'graded' && (v.result ?? 0) >= minResult}`;

/** True when the rounds of `--repeat` did not all reach the same verdict. Pure. */
export function isFlaky(repeats: readonly Verdict[] | undefined, minResult: number): boolean {
  if (!repeats || repeats.length < 2) return false;
  return new Set(repeats.map((v) => verdictKey(v, minResult))).size > 1;
}

/**
 * Run-to-run noise of an entry under `--repeat n`: the mean Result of each round over the cases it scored (a gate
 * failure counts 0, unscored and infra errors not at all), and their range and sample standard deviation. Pure;
 * null when the rows do not all hold the same number (≥ 2) of rounds.
 */
export function noiseOf(rows: ReadonlyArray<{ repeats?: readonly Verdict[] }>): CommissionSummary['noise'] | null {
  const rounds = rows[0]?.repeats?.length ?? 0;
  if (rounds < 2 || rows.some((r) => r.repeats?.length !== rounds)) return null;
  const means: (number | null)[] = [];
  for (let i = 0; i < rounds; i++) {
    const scores = rows.flatMap(({ repeats }) => {
      const v = repeats![i];
      if (v.status === 'gate-failed') return [0];
      return v.status === 'graded' && v.result !== null ? [v.result] : [];
    });
    means.push(scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null);
  }
  const known = means.filter((m): m is number => m !== null);
  if (known.length < 2) return { rounds, means, range: null, sd: null };
  const avg = known.reduce((a, b) => a + b, 0) / known.length;
  const sd = Math.sqrt(known.reduce((a, m) => a + (m - avg) ** 2, 0) / (known.length - 1));
  return { rounds, means, range: Math.max(...known) - Math.min(...known), sd };
}

/**
 * Puts each record's attempts and rounds on its row (rows are unique by case and trial), marks the flaky rows, and
 * gives the entry its `flaky` list and run-to-run noise. Entries without repeats or attempts are left as they were.
 */
export function markRepeats(entry: CommissionSummary, group: readonly CaseMeta[]): void {
  const byRow = new Map(group.map((m) => [`${m.grade.id}\0${m.grade.trial}`, m]));
  const flaky: string[] = [];
  const trials = entry.cases.some((r) => r.trial > 1);
  for (const row of entry.cases) {
    const m = byRow.get(`${row.id}\0${row.trial}`);
    if (!m) continue;
    if (m.attempts?.length) row.attempts = m.attempts.map((a) => ({ ...a }));
    if (!m.repeats) continue;
    row.repeats = m.repeats.map((a) => ({ ...a }));
    row.flaky = isFlaky(m.repeats, m.commission.minResult);
    if (row.flaky) flaky.push(trials ? `${row.id}#${row.trial}` : row.id);
  }
  const noise = noiseOf(entry.cases);
  if (noise) {
    entry.noise = noise;
    entry.flaky = flaky;
  }
}
