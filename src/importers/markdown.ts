/**
 * Reading the Markdown of foreign task packages: sections under headings, weighted rubric dimensions (headings such
 * as `## 1. Task completion — 36 points` or `## Task completion (36)`, or a weight table), fenced code blocks and
 * bullets. Pure.
 */

export interface Section {
  level: number;
  heading: string;
  /** The text under the heading up to the next heading of the same or a higher level, trimmed. */
  body: string;
}

/** A weighted dimension found in a rubric. */
export interface WeightedSection {
  title: string;
  weight: number;
  body: string;
}

/** Every heading of `text` with its body; headings inside fenced code are not headings. */
export function sections(text: string): Section[] {
  const lines = text.split(/\r?\n/);
  const heads: { line: number; level: number; heading: string }[] = [];
  let fence: string | null = null;
  lines.forEach((l, i) => {
    const f = /^\s*(```+|~~~+)/.exec(l);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      return;
    }
    if (fence !== null) return;
    const h = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(l);
    if (h) heads.push({ line: i, level: h[1]!.length, heading: h[2]!.trim() });
  });
  return heads.map((h, k) => {
    let end = lines.length;
    for (const next of heads.slice(k + 1)) {
      if (next.level <= h.level) {
        end = next.line;
        break;
      }
    }
    return {
      level: h.level,
      heading: h.heading,
      body: lines
        .slice(h.line + 1, end)
        .join('\n')
        .trim(),
    };
  });
}

const NUM = String.raw`(\d+(?:\.\d+)?)`;
const UNIT = String.raw`(?:\s*(?:points?|pts?\.?|%))?`;
// A range `(0–35)` weighs its upper bound: AgentSWE's band headings (`### \`verified_case_outcome\` (0–35)`).
const RANGE = String.raw`(?:0\s*[–-]\s*)?`;
const WEIGHTED_HEADING = [
  new RegExp(String.raw`^(.+?)\s*[—–:-]+\s*${NUM}${UNIT}\s*$`, 'i'),
  new RegExp(String.raw`^(.+?)\s*\(\s*${RANGE}${NUM}${UNIT}\s*\)\s*$`, 'i'),
  new RegExp(String.raw`^(.+?)\s*\[\s*${NUM}${UNIT}\s*\]\s*$`, 'i'),
];

/** Strips Markdown emphasis and a leading `1.` / `1)` / `D1:` numbering from a heading. */
export function cleanTitle(s: string): string {
  return s
    .replace(/[*_`]/g, '')
    .replace(/^\s*(?:[A-Za-z]?\d+[.):]|[A-Za-z]\d*[.):])\s+/, '')
    .trim();
}

/** The title and weight a heading declares, or null when it declares none. */
export function weightedHeading(heading: string): { title: string; weight: number } | null {
  const h = heading.replace(/[*_`]/g, '').trim();
  for (const re of WEIGHTED_HEADING) {
    const m = re.exec(h);
    if (m) {
      const title = cleanTitle(m[1]!);
      if (title) return { title, weight: Number(m[2]) };
    }
  }
  return null;
}

/**
 * The weighted dimensions of a Markdown rubric: headings that carry a weight, or else the rows of a table whose
 * header has a weight/points column. Empty when the rubric declares none.
 */
export function rubricDimensions(text: string): WeightedSection[] {
  const fromHeadings: WeightedSection[] = [];
  for (const s of sections(text)) {
    const w = weightedHeading(s.heading);
    if (w) fromHeadings.push({ ...w, body: s.body });
  }
  if (fromHeadings.length > 0) return fromHeadings;
  return tableDimensions(text);
}

function tableDimensions(text: string): WeightedSection[] {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!/^\s*\|/.test(lines[i]!) || !/^\s*\|?\s*:?-{2,}/.test(lines[i + 1]!)) continue;
    const header = cells(lines[i]!).map((c) => c.toLowerCase());
    const wCol = header.findIndex((h) => /weight|points|max|score/.test(h));
    if (wCol < 0) continue;
    const nCol = header.findIndex((h, k) => k !== wCol && /dimension|criterion|name|category|area/.test(h));
    const nameCol = nCol >= 0 ? nCol : wCol === 0 ? 1 : 0;
    const descCol = header.findIndex(
      (h, k) => k !== wCol && k !== nameCol && /desc|what|evaluate|criteria|guidance/.test(h),
    );
    const out: WeightedSection[] = [];
    for (let j = i + 2; j < lines.length && /^\s*\|/.test(lines[j]!); j++) {
      const row = cells(lines[j]!);
      const weight = Number((row[wCol] ?? '').replace(/[^\d.]/g, ''));
      const title = cleanTitle(row[nameCol] ?? '');
      if (!title || !Number.isFinite(weight) || weight <= 0 || /^total$/i.test(title)) continue;
      out.push({ title, weight, body: descCol >= 0 ? (row[descCol] ?? '').trim() : '' });
    }
    if (out.length > 0) return out;
  }
  return [];
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

/** The fenced code blocks of `text`, in order. */
export function codeBlocks(text: string): { lang: string; code: string }[] {
  const out: { lang: string; code: string }[] = [];
  const re = /^\s*(```+|~~~+)\s*([\w+-]*)[^\n]*\n([\s\S]*?)^\s*\1\s*$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ lang: m[2] ?? '', code: m[3] ?? '' });
  return out;
}

/** Top-level bullet items of a section body (continuation lines joined). */
export function bullets(body: string): string[] {
  const out: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const m = /^[-*+]\s+(.*)$/.exec(line);
    if (m) out.push(m[1]!.trim());
    else if (out.length > 0 && /^\s{2,}\S/.test(line)) out[out.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

/** A lower-case id (`[a-z0-9-]`) for a title; `fallback` when nothing is left. */
export function slug(title: string, fallback: string): string {
  const s = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 64).replace(/-+$/, '') || fallback;
}

/** Title and weight normalized for matching names across a dimensions file and a rubric. */
export function sameName(a: string, b: string): boolean {
  const n = (s: string) => slug(cleanTitle(s), '').replace(/-/g, '');
  return n(a) === n(b);
}
