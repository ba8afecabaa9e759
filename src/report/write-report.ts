import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DATA_DIR, htmlData } from './html-data.js';
import { jsonChunks } from './json-stream.js';
import { renderHtml } from './render-html.js';
import { type JunitOptions, renderJunit } from './render-junit.js';
import { renderMarkdown } from './render-markdown.js';
import type { Summary } from './schema.js';

/** Above this many executions summary.json is written without indentation: pretty-printing 100,000 cases doubles it. */
const PRETTY_LIMIT = 5000;

const indentOf = (summary: Summary) =>
  summary.commissions.reduce((n, c) => n + c.cases.length, 0) <= PRETTY_LIMIT ? 2 : undefined;

/** The text of summary.json: indented for people when small, compact when large; always one JSON document. */
export function serializeSummary(summary: Summary): string {
  return `${JSON.stringify(summary, null, indentOf(summary))}\n`;
}

/** summary.json's text in pieces, equal when joined to `serializeSummary` (json-stream.ts): what writeReport streams. */
export function* summaryChunks(summary: Summary): Generator<string> {
  yield* jsonChunks(summary, indentOf(summary));
  yield '\n';
}

const tempBeside = (path: string) =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);

/** Writes pieces to a file in ≈ 1 MB writes, flushed to disk before it is closed. */
async function writePieces(file: string, pieces: Iterable<string>): Promise<void> {
  const fh = await open(file, 'w');
  try {
    let buf: string[] = [];
    let size = 0;
    for (const p of pieces) {
      buf.push(p);
      size += p.length;
      if (size >= 1 << 20) {
        await fh.write(buf.join(''));
        buf = [];
        size = 0;
      }
    }
    if (buf.length) await fh.write(buf.join(''));
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Writes summary.json, report.md, index.html (its case chunks in `index.files/<key>/`) and junit.xml into outDir
 * (created if missing). Each document goes to a temp file first, summary.json streamed piece by piece (a
 * 100,000-case summary is never one string), the chunks as they are made; only when all are written are they
 * renamed into place, summary.json, the report of record, last. So a renderer that throws, or a full disk, leaves
 * the previous report whole (its page still loads its own chunk directory) and no temp file behind. Chunk
 * directories of earlier renderings are removed once the new page is in place. Returns the paths written.
 */
export async function writeReport(
  outDir: string,
  summary: Summary,
  options: { junit?: JunitOptions } = {},
): Promise<{ summary: string; markdown: string; html: string; junit: string; htmlData: string }> {
  const dataRoot = join(outDir, DATA_DIR);
  await mkdir(dataRoot, { recursive: true });
  const dataTmp = tempBeside(join(dataRoot, 'chunks'));
  const temps: [tmp: string, target: string][] = [];
  let dataDir: string | null = null;
  let created = false;
  try {
    await mkdir(dataTmp);
    const gen = htmlData(summary);
    let next = gen.next();
    // Chunks are not flushed one by one: the page refuses a chunk whose hash is not the one it expects.
    for (; !next.done; next = gen.next()) await writeFile(join(dataTmp, `${next.value.name}.js`), next.value.text);
    const manifest = next.value;
    dataDir = join(outDir, manifest.dir);
    const texts: [string, Iterable<string>][] = [
      [join(outDir, 'report.md'), [renderMarkdown(summary)]],
      [join(outDir, 'index.html'), [renderHtml(summary, manifest)]],
      [join(outDir, 'junit.xml'), [renderJunit(summary, options.junit)]],
      [join(outDir, 'summary.json'), summaryChunks(summary)],
    ];
    for (const [target, pieces] of texts) {
      const tmp = tempBeside(target);
      temps.push([tmp, target]);
      await writePieces(tmp, pieces);
    }
    // Same key, same chunks: an unchanged report keeps the directory it has.
    await rm(dataDir, { recursive: true, force: true });
    await rename(dataTmp, dataDir);
    created = true;
    for (const [tmp, target] of temps) await rename(tmp, target);
  } catch (err) {
    await rm(dataTmp, { recursive: true, force: true });
    for (const [tmp] of temps) await rm(tmp, { force: true });
    throw err;
  }
  if (created) {
    for (const name of await readdir(dataRoot)) {
      if (join(dataRoot, name) !== dataDir) await rm(join(dataRoot, name), { recursive: true, force: true });
    }
  }
  return {
    summary: join(outDir, 'summary.json'),
    markdown: join(outDir, 'report.md'),
    html: join(outDir, 'index.html'),
    junit: join(outDir, 'junit.xml'),
    htmlData: dataDir as string,
  };
}
