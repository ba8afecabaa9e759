import { type Section, sections, weightedHeading } from './markdown.js';
import { plain, type Table, tables } from './markdown-blocks.js';

/**
 * The weighted dimensions of an AgentSWE Result rubric, read by the contract rather than by one package's
 * headings: every set of weighted headings at one level below the title, and every weight table, is a candidate;
 * the first that sums to the declared total wins. The H1 title is never a dimension (`# … Rubric (100 points)` is
 * the total, not a 100-point dimension). Pure.
 */

export interface WeightedDimension {
  title: string;
  weight: number;
  /** The dimension's own rubric text: its section body, or its table row's description. */
  body: string;
}

/** One way the rubric could be read, and what it sums to. */
export interface DimensionCandidate {
  /** `headings at level 2`, `the table under "…"`. */
  source: string;
  dimensions: WeightedDimension[];
  sum: number;
}

const WEIGHT_HEADER = /\b(weight|points?|pts|max(imum)?|score)\b/i;
const NAME_HEADER = /\b(dimension|axis|criterion|criteria|area|category|name)\b/i;
const DESC_HEADER = /\b(desc|what|evaluat|meaning|evidence|observable|object|earns|guidance|credit)/i;

/** The total the rubric declares (`# … (100 points)`, `Total: **100 points**`), or null. */
export function declaredTotal(md: string): number | null {
  const h1 = /^#\s+.*?(\d+)\s*points?\b/im.exec(md);
  if (h1) return Number(h1[1]);
  const total = /\btotal\b[^\n\d]{0,20}(\d+)\s*points?\b/i.exec(md);
  return total ? Number(total[1]) : null;
}

/** Every candidate reading, in the order they are preferred: headings by level (2 first), then tables. */
export function dimensionCandidates(md: string): DimensionCandidate[] {
  const all = sections(md);
  const out: DimensionCandidate[] = [];
  for (let level = 2; level <= 6; level++) {
    const dims = weightedAt(all, level);
    if (dims.length) out.push(candidate(`the weighted headings at level ${level}`, dims));
  }
  for (const t of tables(md)) {
    const dims = tableDimensions(t);
    if (dims) out.push(candidate(`the weight table${t.heading ? ` under "${t.heading}"` : ''}`, dims));
  }
  // A rubric whose dimensions are H1s: only then, and never the one heading that carries the whole total.
  const top = weightedAt(all, 1);
  const total = declaredTotal(md);
  const h1 = top.length > 1 ? top.filter((d) => d.weight !== total) : [];
  if (h1.length) out.push(candidate('the weighted headings at level 1', h1));
  return out;
}

function candidate(source: string, dimensions: WeightedDimension[]): DimensionCandidate {
  return { source, dimensions, sum: dimensions.reduce((s, d) => s + d.weight, 0) };
}

function weightedAt(all: Section[], level: number): WeightedDimension[] {
  const out: WeightedDimension[] = [];
  for (const s of all) {
    if (s.level !== level) continue;
    const w = weightedHeading(s.heading);
    if (w) out.push({ ...w, body: s.body });
  }
  return out;
}

/** A table's rows as dimensions when it has a name and a weight column (a cap table has neither). */
export function tableDimensions(t: Table): WeightedDimension[] | null {
  const header = t.header.map((h) => plain(h));
  const wCol = header.findIndex((h) => WEIGHT_HEADER.test(h) && !/total|ceiling|cap\b/i.test(h));
  const nCol = header.findIndex((h, k) => k !== wCol && NAME_HEADER.test(h));
  if (wCol < 0 || nCol < 0) return null;
  const dCol = header.findIndex((h, k) => k !== wCol && k !== nCol && DESC_HEADER.test(h));
  const out: WeightedDimension[] = [];
  for (const row of t.rows) {
    // Not cleanTitle: a table names dimensions by snake_case ids as often as by titles.
    const title = plain(row[nCol] ?? '')
      .replace(/^\s*[A-Za-z]?\d+[.):]\s+/, '')
      .trim();
    const num = /(\d+(?:\.\d+)?)/.exec(plain(row[wCol] ?? ''));
    if (!title || !num || /^total$/i.test(title)) continue;
    const weight = Number(num[1]);
    if (!(weight > 0)) continue;
    out.push({ title, weight, body: dCol >= 0 ? plain(row[dCol] ?? '') : '' });
  }
  return out.length ? out : null;
}

/** The chosen dimensions, or null with what was found instead (for the refusal message). */
export function chooseDimensions(
  md: string,
  total = 100,
): { dimensions: WeightedDimension[]; source: string; others: DimensionCandidate[] } | { found: string } {
  const cands = dimensionCandidates(md);
  const hit = cands.find((c) => Math.abs(c.sum - total) < 1e-9);
  if (hit) return { dimensions: hit.dimensions, source: hit.source, others: cands.filter((c) => c !== hit) };
  return {
    found: cands.length
      ? cands.map((c) => `${c.source} (${c.dimensions.length}, sum ${c.sum})`).join('; ')
      : 'no weighted heading below the title and no table with a dimension and a weight column',
  };
}
