import type { Comparison, EntryComparison } from './compare.js';
import { DASH, fmt, fmtCI, fmtP, fmtSigned } from './format.js';

/** How many case rows the text comparison prints per pair (the JSON and the viewer have all). */
const CASES_SHOWN = 40;

/** The verdict of a pair in words: B against A. */
export function pairVerdict(p: EntryComparison): string {
  const v = p.paired.verdict;
  if (p.paired.n === 0) return 'no case was graded on both sides';
  return v === 'worse'
    ? 'B is significantly worse than A'
    : v === 'better'
      ? 'B is significantly better than A'
      : 'no significant difference';
}

/** One line of the pair's statistics: cases, W/L/T, Δ with its CI, the sign test. */
export function pairFigures(p: EntryComparison): string {
  const s = p.paired;
  return `cases ${s.n} · W/L/T ${s.wins}/${s.losses}/${s.ties} · Δ mean ${fmtSigned(s.meanDiff)} (95 % CI ${fmtCI(s.ci95)}) · sign test p=${fmtP(s.signTestP)}`;
}

function pad(cells: string[][]): string[] {
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * `heldout compare`'s text: per pair of entries the statistics of B − A (W = B above A), the verdict, the cases that
 * flipped pass↔fail, and the per-case differences, largest first; then the entries that found no partner.
 */
export function renderCompareText(cmp: Comparison, names: { a: string; b: string }): string {
  const out = [`heldout compare — A: run ${cmp.a.runId} (${names.a}) · B: run ${cmp.b.runId} (${names.b})`];
  if (cmp.pairs.length === 0)
    out.push('', 'No entries to compare: name the deliveries with --a-delivery and --b-delivery.');
  for (const p of cmp.pairs) {
    out.push(
      '',
      `${p.commission} · ${p.split}: ${p.a.delivery} (A, ${fmt(p.a.mean)}) → ${p.b.delivery} (B, ${fmt(p.b.mean)})`,
      `  ${pairFigures(p)}: ${pairVerdict(p)}`,
    );
    for (const dir of ['pass→fail', 'fail→pass'] as const) {
      const ids = p.flipped.filter((c) => c.flipped === dir).map((c) => c.id);
      out.push(`  flipped ${dir} (${ids.length})${ids.length ? `: ${ids.join(', ')}` : ''}`);
    }
    const rows = [...p.cases].sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff) || (x.id < y.id ? -1 : 1));
    const shown = rows.slice(0, CASES_SHOWN);
    if (shown.length) {
      const table = pad([
        ['case', 'A', 'B', 'Δ', 'A→B'],
        ...shown.map((c) => [c.id, fmt(c.a), fmt(c.b), fmtSigned(c.diff), `${c.aPass}→${c.bPass}`]),
      ]);
      out.push(...table.map((l) => `    ${l}`));
      if (rows.length > shown.length) out.push(`    … ${rows.length - shown.length} more (--json has them all)`);
    }
    if (p.onlyA.length) out.push(`  graded in A only: ${p.onlyA.join(', ')}`);
    if (p.onlyB.length) out.push(`  graded in B only: ${p.onlyB.join(', ')}`);
  }
  const un = cmp.unmatched;
  if (un.length) {
    out.push('', 'No partner:');
    for (const u of un) {
      out.push(
        `  ${u.side.toUpperCase()}: ${u.entry.commission} · ${u.entry.delivery} · ${u.entry.split} (${fmt(u.entry.mean) || DASH})`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}
