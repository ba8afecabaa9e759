/**
 * Cost in money across cases (issue 34): an entry's and the run's sums of the cases' costs, by who spent them.
 * A part is null as soon as one case's part is (a model the pricing table lacks): never a partial sum shown as whole.
 */
import type { CaseCost } from '../grading/index.js';

const PARTS = ['delivery', 'user', 'judge', 'total'] as const;

/** The sum of `costs` (undefined ones skipped: unpriced runs); undefined when none is priced. */
export function sumCosts(costs: (CaseCost | undefined)[]): CaseCost | undefined {
  let out: CaseCost | undefined;
  const unpriced = new Set<string>();
  for (const c of costs) {
    if (!c) continue;
    out ??= { delivery: 0, user: 0, judge: 0, total: 0 };
    for (const p of PARTS) {
      const was = out[p];
      const add = c[p];
      out[p] = was === null || add === null ? null : was + add;
    }
    for (const m of c.unpriced ?? []) unpriced.add(m);
  }
  if (out && unpriced.size) out.unpriced = [...unpriced].sort();
  return out;
}

/** `$0.0123`: four significant decimals under a dollar, cents above; `?` for a part with an unpriced model. */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === undefined) return '';
  if (usd === null) return '?';
  if (usd === 0) return '$0';
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(3)}`;
}
