import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CaseGrade } from '../../src/grading/index.js';
import { EVIDENCE_CHARS } from '../../src/report/evidence-bounds.js';
import { buildSummary, type Summary, summarizeCommission, writeReport } from '../../src/report/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { openCase, openEntry } from '../helpers/report-page.js';
import { expectValidSummary } from './summary-json-schema.js';
import { delivery, gateFailed, grade } from './synthetic-grades.js';

// Reports that scale (issue 24): the page carries the run's figures and loads each entry's case list and each case's
// detail from chunk scripts beside it, so its size does not grow with the cases or their evidence; summary.json keeps
// every figure but bounds each evidence text to its tail, naming the case's full record.
const run = { id: 'run-big', startedAt: '2025-01-02T03:04:05.000Z', sandbox: 'docker' as const, version: '0.1.0' };
const LONG = `${'x'.repeat(60_000)} the end of a long log`;
const recordOf = (id: string, trial: number) => `cases/big/reference/heldout/${id}-t${trial}.meta.json`;

function summaryOf(n: number, longEvidence: boolean): Summary {
  const cases: CaseGrade[] = Array.from({ length: n }, (_, i) => {
    const id = `case-${String(i).padStart(5, '0')}`;
    if (i % 10 === 3) return gateFailed(id, 'error-exit', { reason: longEvidence ? `exit 1: ${LONG}` : 'exit 1' });
    const g = grade({ id, result: i % 101 });
    if (longEvidence) g.dimensions.correctness.items[0].evidence = `${i}: ${LONG}`;
    return g;
  });
  return buildSummary({
    run,
    commissions: [
      summarizeCommission({
        id: 'big',
        family: 'creation',
        split: 'heldout',
        delivery,
        passRule: { minResult: 60 },
        cases,
        recordOf,
      }),
    ],
  });
}

let browser: Browser;
const dirs: Record<string, Awaited<ReturnType<typeof writeReport>>> = {};
const summaries: Record<string, Summary> = {};
const bytes = async (p: string) => (await stat(p)).size;

beforeAll(async () => {
  for (const [name, n, long] of [
    ['small', 30, false],
    ['big', 3000, true],
  ] as const) {
    summaries[name] = summaryOf(n, long);
    dirs[name] = await writeReport(await mkdtemp(join(tmpdir(), `heldout-chunks-${name}-`)), summaries[name]);
  }
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function open(html: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Nothing but the report directory's own files is ever requested.
  await page.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector('html[data-ready="true"]');
  return { page, errors };
}

describe('index.html does not grow with the cases', () => {
  test('3,000 cases with 60 KB of evidence each make a page the size of 30 small cases; the cases are in chunks', async () => {
    const small = await bytes(dirs.small.html);
    const big = await bytes(dirs.big.html);
    expect(big).toBeLessThan(small * 1.1 + 2000);
    const page = await readFile(dirs.big.html, 'utf8');
    expect(page).not.toContain('case-02999');
    expect(page).not.toContain('the end of a long log');
    const chunks = await readdir(dirs.big.htmlData);
    expect(chunks.filter((f) => /^e0-l\d+\.js$/.test(f))).toHaveLength(2);
    expect(chunks.filter((f) => /^e0-d\d+\.js$/.test(f)).length).toBeGreaterThanOrEqual(30);
    for (const f of chunks) expect(await bytes(join(dirs.big.htmlData, f)), f).toBeLessThan(400 * 1024);
  });

  test('summary.json keeps every figure and bounds each evidence text to its tail, naming the full record', async () => {
    const doc = JSON.parse(await readFile(dirs.big.summary, 'utf8'));
    expectValidSummary(doc);
    const entry = doc.commissions[0];
    expect(entry.cases).toHaveLength(3000);
    expect(entry.result.mean).toBe(summaries.big.commissions[0].result.mean);
    const c = entry.cases.find((x: any) => x.id === 'case-00042');
    const evidence: string = c.items.correctness[0].evidence;
    expect(evidence.endsWith(`${'x'.repeat(100)} the end of a long log`)).toBe(true);
    expect(evidence).toMatch(
      /^\[… \d+ characters cut; the full text is in cases\/big\/reference\/heldout\/case-00042-t1\.meta\.json\]\n/,
    );
    expect(evidence.length).toBeLessThan(EVIDENCE_CHARS + 200);
    expect(c.record).toBe('cases/big/reference/heldout/case-00042-t1.meta.json');
    const failed = entry.cases.find((x: any) => x.id === 'case-00003');
    expect(failed.reason.endsWith('the end of a long log')).toBe(true);
    expect(failed.reason.length).toBeLessThan(EVIDENCE_CHARS + 200);
    // Short texts are left alone, and a case with nothing cut names no record.
    const small = JSON.parse(await readFile(dirs.small.summary, 'utf8')).commissions[0].cases[0];
    expect(small.items.correctness[0].evidence).toBe('sum = 42');
    expect(small.record).toBeUndefined();
  });
});

describe('the drill-down loads what it shows, from file://', () => {
  test('an entry lists its 3,000 cases in pages; a filtered case opens with its bounded evidence and its record', async () => {
    const { page, errors } = await open(dirs.big.html);
    await openEntry(page, '#summary-table tr[data-row="0"]');
    await expect(page.locator('.case-row').count()).resolves.toBe(200);
    expect(await page.locator('#more-cases').textContent()).toBe('Show more (2800 left)');
    await page.fill('#filter-text', 'case-02999');
    await expect(page.locator('.case-row').count()).resolves.toBe(1);
    await openCase(page, 'case-02999');
    const evidence = await page.locator('#drilldown .item .evidence').textContent();
    expect(evidence?.endsWith('the end of a long log')).toBe(true);
    expect(await page.locator('#drilldown .dd-record').textContent()).toContain(
      'cases/big/reference/heldout/case-02999-t1.meta.json',
    );
    await page.fill('#filter-text', '');
    await page.selectOption('#filter-status', 'gate-failed');
    await expect(page.locator('.case-row').count()).resolves.toBe(200);
    await openCase(page, 'case-00013');
    expect(await page.locator('#drilldown .dd-gate').textContent()).toBe('failed: error-exit');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('the chunks unpack to the whole summary', async () => {
    const { page } = await open(dirs.big.html);
    const doc = await page.evaluate(() =>
      (globalThis as unknown as { heldoutSummary: () => Promise<unknown> }).heldoutSummary(),
    );
    expect(doc).toEqual(JSON.parse(JSON.stringify(summaries.big)));
    await page.close();
  });

  test('a page never shows another report’s chunks: a tampered chunk is refused, a missing one named', async () => {
    const out = await mkdtemp(join(tmpdir(), 'heldout-chunks-stale-'));
    const first = await writeReport(out, summaryOf(30, false));
    const firstPage = join(out, 'first.html');
    await writeFile(firstPage, await readFile(first.html));
    // Rewriting the report removes the first rendering's chunk directory: the old page says so instead of guessing.
    const second = await writeReport(out, summaryOf(40, false));
    expect(second.htmlData).not.toBe(first.htmlData);
    expect(await readdir(join(out, 'index.files'))).toEqual([second.htmlData.split('/').pop()]);
    const old = await open(firstPage);
    await old.page.click('#summary-table tr[data-row="0"]');
    await old.page.waitForSelector('#cases-note.load-error');
    expect(await old.page.locator('#cases-note').textContent()).toMatch(
      /^could not load index\.files\/[0-9a-f]+\/e0-l0\.js/,
    );
    await old.page.close();

    const list = join(second.htmlData, 'e0-l0.js');
    const text = await readFile(list, 'utf8');
    await writeFile(
      list,
      text.replace(/^heldoutChunk\("e0-l0","[0-9a-f]+"/, 'heldoutChunk("e0-l0","0000000000000000"'),
    );
    const now = await open(second.html);
    await now.page.click('#summary-table tr[data-row="0"]');
    await now.page.waitForSelector('#cases-note.load-error');
    expect(await now.page.locator('#cases-note').textContent()).toContain('belongs to another report');
    await expect(now.page.locator('.case-row').count()).resolves.toBe(0);
    await now.page.close();
  });
});
