import { sameName, sections, weightedHeading } from './markdown.js';
import { blocks, plain, type Table, tables } from './markdown-blocks.js';

/**
 * The case-level rules of an AgentSWE rubric outside its dimensions: zero-score conditions (found by what they say
 * — `**0**`, `**0/100**`, "receive zero", "Assign **0 for the entire case** if …" — under any heading or none),
 * the sentences that say what does *not* force zero, and the ceilings (cap tables and "cap … at **20/100**"
 * sentences). Dimension sections are skipped: their "Zero within dimension" bands are not case rules. Pure.
 */

/** One condition that makes the case 0/100, with the statement it came from. */
export interface ZeroCondition {
  text: string;
  statement: string;
  /** The heading it was found under, or null for the rubric's preamble. */
  section: string | null;
}

/** A total ceiling of the rubric: `max` null when it is graded (a formula, not one number). */
export interface CeilingRule {
  id: string | null;
  max: number | null;
  condition: string;
  section: string | null;
  /** One band of a tiered cap ("70–84 %"): the ceiling holds when the measure falls in it. `condition` is the rule. */
  band?: string;
}

export interface RuleScan {
  zero: ZeroCondition[];
  /** Statements that limit the zero rules ("… does not by itself force zero"). */
  negative: string[];
  ceilings: CeilingRule[];
  /** Other text outside the dimensions that frames every judgment. */
  guidance: string[];
  /** Where zero rules were found (headings; `(preamble)` for text before any section). */
  foundIn: string[];
}

// `**0**`, `**0/100**`, `**0 total**`, `**0/100 for the active case**`; not `**0.5**`.
const ZERO_MARK =
  /\*\*0(?![.\d])(?:\s*\/\s*100)?[^*\n]{0,40}\*\*|\b0\/100\b|\breceives? (?:a )?zero\b|\bassign\s+0\b|:\s*`0`\s*\.?$/i;
const NEGATIVE =
  /does not (?:by itself |automatically )?force (?:a )?zero|not automatically (?:zero|an? (?:execution )?failure)|receives? (?:an )?ordinary (?:rubric |dimension )?scores?|not a Candidate zero|does not by itself force|is not automatically|receives ordinary dimension scores/i;
const CAP_SENTENCE =
  /\bcap(?:s|ped)?\b(?!\s+this dimension)[^.]{0,160}?\bat\s+\*{0,2}(\d+)(?:\s*\/\s*100)?\*{0,2}|\bcapped at\s+\*{0,2}(\d+)|\btotal must not exceed\s+\*{0,2}(\d+)|\bceiling of\s+\*{0,2}(\d+)\b/i;
const ZERO_HEADING = /validity|zero|\bgates?\b|failure rules|execution rules|execution failures|fatal/i;
const CAP_HEADER = /maximum total|\bceiling\b|^cap$|\bcap\b|total must not exceed|max(imum)? score/i;
const FAILURE_SUBJECT = /^(?:(?:execution|run|delivery|harness) )?failures?$/i;

const PCT = String.raw`(\d+(?:\.\d+)?)\s*%`;
const BANDS: RegExp[] = [
  new RegExp(String.raw`(\d+(?:\.\d+)?)\s*%?\s*(?:–|—|-|to)\s*${PCT}`, 'i'),
  new RegExp(String.raw`between\s+(\d+(?:\.\d+)?)\s*%?\s+and\s+${PCT}`, 'i'),
  new RegExp(String.raw`(?:below|under|less than|fewer than|<)\s*${PCT}`, 'i'),
  new RegExp(
    String.raw`${PCT}\s*(?:or (?:more|above|higher|greater)|and (?:above|over)|\+)|(?:at least|at or above|≥|>=|above|over|more than)\s*${PCT}`,
    'i',
  ),
];
const UNCAPPED = /\b(?:not capped|uncapped|no (?:cap|ceiling))\b/i;
const TIER_MAX =
  /^[^\d]{0,40}?(?:\bat most|\bup to|\bno more than|\bat|→|->|:|=|\bmax(?:imum)?)\s*\*{0,2}(\d+)(?:\s*\/\s*100)?\b/i;

/**
 * A tiered cap ("85 % or more is not capped, 70–84 % caps at 45, 55–69 % at 32, below 25 % at 20"): its bands,
 * each with its ceiling (null: not capped), or null when the sentence has fewer than two banded parts. Pure.
 */
export function tieredCap(sentence: string): { band: string; max: number | null }[] | null {
  const parts = sentence.split(
    /[,;]\s*|(?<!between\s+\d+(?:\.\d+)?\s*%?)\s+(?:and|or|while|whereas)\s+(?=\d|below|under|less|fewer|at least|at or|above|over|between|≥|<)/i,
  );
  const tiers = parts.map(tierOf).filter((t) => t !== null);
  return tiers.length >= 2 && tiers.some((t) => t.max !== null) ? tiers : null;
}

/** One band of a tiered cap and its ceiling, or null when the text is not one. */
function tierOf(part: string): { band: string; max: number | null } | null {
  const m = BANDS.map((re) => re.exec(part)).find((x) => x !== null);
  if (!m) return null;
  const rest = part.slice(m.index + m[0].length);
  const max = TIER_MAX.exec(rest);
  if (max) return { band: m[0].trim(), max: Number(max[1]) };
  return UNCAPPED.test(rest) ? { band: m[0].trim(), max: null } : null;
}

/** Runs of two or more list items that are each one band of a tiered cap ("- 70–84 %: 45"), by block index. */
function bandRuns(bs: { text: string; item: boolean }[]): { from: number; to: number }[] {
  const runs: { from: number; to: number }[] = [];
  for (let i = 0; i < bs.length; i++) {
    let j = i;
    while (j < bs.length && bs[j]!.item && tierOf(plain(bs[j]!.text)) !== null) j++;
    if (j - i >= 2) runs.push({ from: i, to: j });
    i = Math.max(i, j - 1);
  }
  return runs;
}

/** Sentences of a block (a period, `!` or `?` followed by a capital, a backtick or emphasis starts the next). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z`*(])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The conditions of one zero statement: the clause before the mark, or the list after "if"/"when"/":". */
export function zeroConditions(statement: string): { conditions: string[]; listFollows: boolean } {
  const m = ZERO_MARK.exec(statement);
  if (!m) return { conditions: [], listFollows: false };
  const before = statement
    .slice(0, m.index)
    .replace(/\b(?:then\s+)?(?:assign|score|give|award|receives?)\s*$/i, '')
    .replace(/^\s*(?:if|when)\s+/i, '')
    .replace(/[\s,:;—–-]+$/, '')
    .trim();
  if (before && !FAILURE_SUBJECT.test(before) && !/^assign$/i.test(before)) {
    return { conditions: [cleanCondition(before)], listFollows: false };
  }
  const after = statement
    .slice(m.index + m[0].length)
    .replace(/^[\s*]*(?:for (?:the|this) (?:\w+ )?case\s*)?/i, '')
    .replace(/^\*+\s*/, '')
    .replace(/^(?:if|when)\s+/i, '')
    .replace(/^[:\s]+/, '')
    .trim();
  if (after === '' || /:\s*$/.test(after) || /\bany of (?:the following|these)\b/i.test(after))
    return { conditions: [], listFollows: true };
  const parts = after
    .replace(/\.\s*$/, '')
    .split(/\s*[;,]\s+(?:or\s+|and\s+)?|\s*,?\s+or\s+(?=(?:the|a|an|it|any)\s)/)
    .map(cleanCondition)
    .filter((p) => p.length > 2);
  return { conditions: parts, listFollows: false };
}

function cleanCondition(s: string): string {
  return s
    .replace(/^(?:or|and)\s+/i, '')
    .replace(/^[…\s]+|[…\s.]+$/g, '')
    .trim();
}

const UNCAPPED_CELL = /^(?:none|no cap|not capped|uncapped|n\/a|—|–|-)$/i;

/** The rows of a cap table (`| Observable core failure | Maximum total |`, `| Id | Ceiling | Condition |`). */
export function capRows(t: Table, section: string | null): CeilingRule[] | null {
  const header = t.header.map((h) => plain(h));
  const capCol = header.findIndex((h) => CAP_HEADER.test(h));
  if (capCol < 0) return null;
  const idCol = header.findIndex((h, k) => k !== capCol && /^(id|cap_id|cap id)$/i.test(h));
  const condCol = header.findIndex((_h, k) => k !== capCol && k !== idCol);
  if (condCol < 0) return null;
  return t.rows
    .filter((r) => plain(r[condCol] ?? '') !== '' && !UNCAPPED_CELL.test(plain(r[capCol] ?? '')))
    .map((r) => {
      const cell = plain(r[capCol] ?? '');
      const num = /^\D{0,3}(\d+)(?:\s*\/\s*100)?\D{0,3}$/.exec(cell);
      const others = r.filter((_, k) => k !== capCol && k !== idCol && k !== condCol).map(plain);
      return {
        id: idCol >= 0 ? plain(r[idCol] ?? '') || null : null,
        max: num ? Number(num[1]) : null,
        condition: [plain(r[condCol] ?? ''), ...others, num ? '' : `(ceiling: ${cell})`].filter(Boolean).join(' — '),
        section,
      };
    });
}

/**
 * Scans a rubric for its case-level rules. `dimensionTitles` are the chosen dimensions; their sections (and what
 * lies under them) are not scanned.
 */
export function scanRules(md: string, dimensionTitles: string[]): RuleScan {
  const scan: RuleScan = { zero: [], negative: [], ceilings: [], guidance: [], foundIn: [] };
  const all = sections(md);
  const isDim = (heading: string) => dimensionTitles.some((t) => sameName(t, heading));
  // Each heading's own lines (up to its first subsection), unless it is a dimension or lies under one.
  const segments: { heading: string | null; text: string }[] = [];
  const firstHeading = md.search(/^#{1,6}\s/m);
  const pre = firstHeading < 0 ? md : md.slice(0, firstHeading);
  if (pre.trim()) segments.push({ heading: null, text: pre });
  let skipBelow = Number.POSITIVE_INFINITY;
  for (const s of all) {
    if (s.level <= skipBelow) skipBelow = Number.POSITIVE_INFINITY;
    if (s.level > skipBelow) continue;
    const weighted = weightedHeading(s.heading)?.title;
    if (isDim(s.heading) || (weighted !== undefined && isDim(weighted))) {
      skipBelow = s.level;
      continue;
    }
    const sub = s.body.search(/^#{1,6}\s/m);
    const own = sub < 0 ? s.body : s.body.slice(0, sub);
    // The title's own text is the preamble.
    segments.push({ heading: s.level === 1 ? null : s.heading, text: own });
  }
  for (const seg of segments) scanSegment(seg, scan);
  return scan;
}

function scanSegment(seg: { heading: string | null; text: string }, scan: RuleScan): void {
  const where = seg.heading;
  const zeroSection = where !== null && ZERO_HEADING.test(where);
  let listFollows = false;
  let found = false;
  for (const t of tables(seg.text)) {
    const rows = capRows(t, where);
    if (rows) scan.ceilings.push(...rows);
  }
  const bs = blocks(seg.text);
  const runs = bandRuns(bs);
  for (const r of runs) {
    const lead = r.from > 0 && !bs[r.from - 1]!.item ? `${plain(bs[r.from - 1]!.text)} ` : '';
    const items = bs.slice(r.from, r.to).map((b) => plain(b.text));
    for (const t of tieredCap(items.join('; ')) ?? [])
      if (t.max !== null)
        scan.ceilings.push({
          id: null,
          max: t.max,
          condition: `${lead}${items.join('; ')}`,
          section: where,
          band: t.band,
        });
  }
  for (const [k, b] of bs.entries()) {
    if (runs.some((r) => k >= r.from && k < r.to)) continue;
    if (listFollows && b.item && !ZERO_MARK.test(b.text) && !NEGATIVE.test(b.text)) {
      scan.zero.push({ text: cleanCondition(b.text), statement: plain(b.text), section: where });
      found = true;
      continue;
    }
    listFollows = false;
    for (const s of b.item ? [b.text] : sentences(b.text)) {
      const cap = CAP_SENTENCE.exec(s);
      const tiers = NEGATIVE.test(s) ? null : tieredCap(plain(s));
      if (tiers) {
        // Each capped band is its own ceiling: exactly one band holds for a case, so the lowest that holds applies.
        for (const t of tiers)
          if (t.max !== null)
            scan.ceilings.push({ id: null, max: t.max, condition: plain(s), section: where, band: t.band });
      } else if (NEGATIVE.test(s)) scan.negative.push(plain(s));
      else if (cap && !/\*\*0(?![.\d])/.test(s)) {
        const max = Number(cap[1] ?? cap[2] ?? cap[3] ?? cap[4]);
        scan.ceilings.push({ id: null, max, condition: plain(s), section: where });
      } else if (ZERO_MARK.test(s)) {
        const z = zeroConditions(s);
        for (const c of z.conditions) scan.zero.push({ text: c, statement: plain(s), section: where });
        listFollows = z.listFollows;
        found = true;
      } else if (!(zeroSection && b.item && /:\s*$/.test(s))) scan.guidance.push(plain(s));
    }
  }
  if (found) scan.foundIn.push(where ?? '(preamble)');
}
