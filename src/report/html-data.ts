import { createHash } from 'node:crypto';
import { type CaseSummary, type CommissionSummary, caseSummarySchema, type Summary } from './schema.js';

/**
 * The case data of index.html, kept out of the page: per entry, list chunks (what the case table and its filters
 * need) and detail chunks (everything the drill-down shows), each a small script in `index.files/` beside the page
 * that hands its rows to `heldoutChunk(name, hash, rows)`. Classic `<script src>` loads work from `file://`, where
 * Chromium blocks `fetch` of a sibling file, and through `heldout view`, which serves the same chunks. So the page's
 * size and first paint do not grow with the number of cases or their evidence: a case's detail is fetched when it
 * is opened, a few dozen kilobytes at most.
 */

/**
 * The directory beside index.html that holds the chunks, one subdirectory per rendering named by its key (a hash of
 * its chunks' hashes): a page only ever loads its own, so rewriting a report never pairs a page with another's data.
 */
export const DATA_DIR = 'index.files';
/** The status order of the packed rows; the page reads it from `packing.status`. */
export const STATUS = caseSummarySchema.shape.status.options;
/** Rows of one list chunk: an entry of 10,000 cases is four requests of ≈ 150 KB. */
const LIST_ROWS = 2500;
/** A detail chunk closes at this many cases or this many bytes, whichever comes first: a drill-down loads one. */
const DETAIL_CASES = 100;
const DETAIL_BYTES = 192 * 1024;

/** A chunk file: its name (without `.js`) and its text. */
export interface HtmlChunk {
  name: string;
  text: string;
}

/** A chunk as the page knows it: name and the hash its file must announce (a stale `index.files/` is refused). */
export type ChunkRef = [name: string, hash: string];

/** Where one entry's cases are: its dimension list (detail rows are aligned with it) and its chunks. */
export interface EntryChunks {
  cases: number;
  dims: string[];
  lists: ChunkRef[];
  details: ChunkRef[];
}

export interface HtmlDataManifest {
  format: 'heldout/html-chunks@1';
  /** The chunks' directory relative to index.html: `index.files/<key>`. */
  dir: string;
  key: string;
  entries: EntryChunks[];
}

/**
 * A case packed as a detail row aligned with the entry's dimension list: [id, trial, status index, gate, result,
 * passed 0|1, dims, ceilings, wallMs, modelCalls, tokens, extras-or-0] where dims[i] is [score, max, cap] or 0,
 * and extras.items holds each dimension's items as [kind, title, points, score, earned, evidence].
 */
function detailRow(c: CaseSummary, dimIndex: Map<string, number>, nDims: number): unknown[] {
  const ds: unknown[] = new Array(nDims).fill(0);
  for (const d in c.dimensions) {
    const v = c.dimensions[d];
    ds[dimIndex.get(d)!] = [v.score, v.max, v.cap];
  }
  const x: Record<string, unknown> = {};
  if (c.reason) x.reason = c.reason;
  if (c.exitCode !== null) x.exitCode = c.exitCode;
  if (c.ceilingHit) x.ceilingHit = 1;
  if (c.ceilingSet) x.ceilingSet = 1;
  let items: Record<string, unknown[][]> | null = null;
  for (const d in c.items) {
    items ??= {};
    items[d] = c.items[d].map((it) => [it.kind, it.title, it.points, it.score, it.earned, it.evidence]);
  }
  if (items) x.items = items;
  if (c.outcomes.length) x.outcomes = c.outcomes;
  if (c.judge) x.judge = c.judge;
  if (c.stderrTail) x.stderrTail = c.stderrTail;
  if (c.claimsContradicted.length) x.claimsContradicted = c.claimsContradicted;
  if (c.editing) x.editing = c.editing;
  if (c.record) x.record = c.record;
  if (c.cost) x.cost = c.cost;
  return [
    c.id,
    c.trial,
    STATUS.indexOf(c.status),
    c.gate,
    c.result,
    c.passed ? 1 : 0,
    ds,
    c.ceilings,
    c.wallMs,
    c.modelCalls,
    c.tokens,
    Object.keys(x).length ? x : 0,
  ];
}

function chunk(name: string, rowsJson: string[]): { file: HtmlChunk; ref: ChunkRef } {
  const data = `[${rowsJson.join(',')}]`;
  const hash = createHash('sha256').update(data).digest('hex').slice(0, 16);
  return {
    file: { name, text: `heldoutChunk(${JSON.stringify(name)},${JSON.stringify(hash)},${data});\n` },
    ref: [name, hash],
  };
}

/** One entry's chunks, yielded as they fill; returns where its cases are. */
function* entryChunks(entry: CommissionSummary, e: number): Generator<HtmlChunk, EntryChunks> {
  const dimIndex = new Map<string, number>();
  for (const c of entry.cases) for (const d in c.dimensions) if (!dimIndex.has(d)) dimIndex.set(d, dimIndex.size);
  const out: EntryChunks = { cases: entry.cases.length, dims: [...dimIndex.keys()], lists: [], details: [] };
  let list: string[] = [];
  let detail: string[] = [];
  let detailBytes = 0;
  for (const c of entry.cases) {
    const row = JSON.stringify(detailRow(c, dimIndex, dimIndex.size));
    // A list row names the detail chunk and position of its case: [id, trial, status, gate, result, passed, chunk, pos].
    const pos = detail.length;
    list.push(
      JSON.stringify([
        c.id,
        c.trial,
        STATUS.indexOf(c.status),
        c.gate,
        c.result,
        c.passed ? 1 : 0,
        out.details.length,
        pos,
      ]),
    );
    detail.push(row);
    detailBytes += row.length;
    if (detail.length >= DETAIL_CASES || detailBytes >= DETAIL_BYTES) {
      const d = chunk(`e${e}-d${out.details.length}`, detail);
      out.details.push(d.ref);
      yield d.file;
      detail = [];
      detailBytes = 0;
    }
    if (list.length >= LIST_ROWS) {
      const l = chunk(`e${e}-l${out.lists.length}`, list);
      out.lists.push(l.ref);
      yield l.file;
      list = [];
    }
  }
  if (detail.length) {
    const d = chunk(`e${e}-d${out.details.length}`, detail);
    out.details.push(d.ref);
    yield d.file;
  }
  if (list.length) {
    const l = chunk(`e${e}-l${out.lists.length}`, list);
    out.lists.push(l.ref);
    yield l.file;
  }
  return out;
}

/**
 * Every chunk of the summary's cases, in order, as it is made (a writer streams them to disk); returns the manifest
 * the page embeds. Deterministic: the same summary gives the same chunks, names and hashes.
 */
export function* htmlData(summary: Summary): Generator<HtmlChunk, HtmlDataManifest> {
  const entries: EntryChunks[] = [];
  const all = createHash('sha256');
  for (let e = 0; e < summary.commissions.length; e++) {
    const entry = yield* entryChunks(summary.commissions[e], e);
    for (const [, hash] of [...entry.lists, ...entry.details]) all.update(hash);
    entries.push(entry);
  }
  const key = all.digest('hex').slice(0, 12);
  return { format: 'heldout/html-chunks@1', dir: `${DATA_DIR}/${key}`, key, entries };
}

/** The chunks and manifest all at once, in memory (`heldout view` serves them from here). */
export function htmlDataInMemory(summary: Summary): { chunks: Map<string, string>; manifest: HtmlDataManifest } {
  const chunks = new Map<string, string>();
  const gen = htmlData(summary);
  for (;;) {
    const r = gen.next();
    if (r.done) return { chunks, manifest: r.value };
    chunks.set(r.value.name, r.value.text);
  }
}
