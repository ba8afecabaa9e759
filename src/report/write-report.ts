import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { renderHtml } from './render-html.js';
import { renderJunit } from './render-junit.js';
import { renderMarkdown } from './render-markdown.js';
import type { Summary } from './types.js';

/**
 * Writes a file so readers see either the old content or the new, never half: a temp file in the same directory
 * (same filesystem, so rename is atomic), flushed, then renamed over the target. The temp file is removed on failure.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Above this many executions summary.json is written without indentation: pretty-printing 100,000 cases doubles it. */
const PRETTY_LIMIT = 5000;

/** The text of summary.json: indented for people when small, compact when large; always one JSON document. */
export function serializeSummary(summary: Summary): string {
  const executions = summary.commissions.reduce((n, c) => n + c.cases.length, 0);
  return JSON.stringify(summary, null, executions <= PRETTY_LIMIT ? 2 : undefined) + '\n';
}

/**
 * Writes summary.json, report.md, index.html and junit.xml into outDir (created if missing), each atomically.
 * Everything is rendered before anything is written, so a renderer that throws leaves the previous report whole;
 * summary.json, the report of record, is written last. Returns the paths written.
 */
export async function writeReport(
  outDir: string,
  summary: Summary,
): Promise<{ summary: string; markdown: string; html: string; junit: string }> {
  const paths = {
    summary: join(outDir, 'summary.json'),
    markdown: join(outDir, 'report.md'),
    html: join(outDir, 'index.html'),
    junit: join(outDir, 'junit.xml'),
  };
  const texts: [string, string][] = [
    [paths.markdown, renderMarkdown(summary)],
    [paths.html, renderHtml(summary)],
    [paths.junit, renderJunit(summary)],
    [paths.summary, serializeSummary(summary)],
  ];
  await mkdir(outDir, { recursive: true });
  for (const [path, text] of texts) await writeFileAtomic(path, text);
  return paths;
}
