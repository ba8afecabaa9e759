/**
 * Reading the blocks of Markdown a contract states things in: pipe tables (with the heading they sit under),
 * paragraphs and list items, and inline code spans. Pure.
 */

/** A pipe table: its header cells, its body rows, and the heading it sits under. */
export interface Table {
  header: string[];
  rows: string[][];
  /** The nearest heading above the table (its text), or '' before the first heading. */
  heading: string;
  /** The 0-based line of the header row. */
  line: number;
}

/** The cells of one table row, trimmed, without the outer pipes. Backslash-escaped pipes stay in their cell. */
export function tableCells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const out: string[] = [];
  let cell = '';
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch === '\\' && inner[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (ch === '|') {
      out.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  out.push(cell.trim());
  return out;
}

/** Every pipe table of `text` (outside fenced code), in order. */
export function tables(text: string): Table[] {
  const lines = text.split(/\r?\n/);
  const out: Table[] = [];
  let heading = '';
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^\s*(```|~~~)/.test(l)) fence = !fence;
    if (fence) continue;
    const h = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(l);
    if (h) heading = h[1]!;
    if (!/^\s*\|/.test(l) || !/^\s*\|?\s*:?-{2,}/.test(lines[i + 1] ?? '')) continue;
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && /^\s*\|/.test(lines[j]!); j++) rows.push(tableCells(lines[j]!));
    out.push({ header: tableCells(l), rows, heading, line: i });
    i = j - 1;
  }
  return out;
}

/** A paragraph or one list item (its continuation lines joined), with whether it was a list item. */
export interface Block {
  text: string;
  item: boolean;
}

/** The paragraphs and list items of a body, in order; fenced code and tables are skipped. */
export function blocks(body: string): Block[] {
  const out: Block[] = [];
  let cur: Block | null = null;
  let fence = false;
  const flush = () => {
    if (cur?.text.trim()) out.push({ text: cur.text.trim(), item: cur.item });
    cur = null;
  };
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      fence = !fence;
      continue;
    }
    if (fence) continue;
    if (/^\s*\|/.test(line) || /^#{1,6}\s/.test(line) || line.trim() === '') {
      flush();
      continue;
    }
    const item = /^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      cur = { text: item[1]!, item: true };
    } else if (cur) (cur as Block).text += ` ${line.trim()}`;
    else cur = { text: line.trim(), item: false };
  }
  flush();
  return out;
}

/** The inline code spans of a text, in order (`` `a.json` `` → `a.json`). */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

/** Markdown emphasis and code marks removed, white space collapsed. */
export function plain(text: string): string {
  return text
    .replace(/\*\*|__|`/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
