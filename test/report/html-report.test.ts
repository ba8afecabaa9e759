import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { columnsOf, writeReport } from '../../src/report/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { openCase, openEntry } from '../helpers/report-page.js';
import { HOSTILE, sampleSummary } from './sample-summary.js';
import { expectValidSummary } from './summary-json-schema.js';

const summary = sampleSummary();
const held = summary.commissions[0];
let browser: Browser;
let page: Page;
let junit: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  const out = await mkdtemp(join(tmpdir(), 'heldout-html-'));
  const paths = await writeReport(out, summary);
  junit = await readFile(paths.junit, 'utf8');
  expectValidSummary(JSON.parse(await readFile(paths.summary, 'utf8')));
  browser = await launchChromium();
  page = await browser.newPage();
  // Playwright's own 30 s defaults assume an idle machine; a Chromium on a busy one may need longer.
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  // Nothing is requested beyond the report directory's own files (the page and its chunks in index.files/).
  await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
  await page.goto(pathToFileURL(paths.html).href);
  await page.waitForSelector('html[data-ready="true"]');
});

afterAll(async () => {
  await browser?.close();
});

const cellOf = (row: string, col: string) => page.locator(`${row} td[data-col="${col}"]`).textContent();

describe('index.html in headless Chromium', () => {
  test('the table has one row per delivery × commission × split with the right figures', async () => {
    await expect(page.locator('table#summary-table tr[data-row]').count()).resolves.toBe(summary.commissions.length);
    const ref = 'tr[data-commission="csv-report"][data-delivery="reference"][data-split="heldout"]';
    expect(await cellOf(ref, 'mean')).toBe(held.result.mean!.toFixed(1));
    expect(await cellOf(ref, 'ci95')).toBe(`${held.result.ci95![0].toFixed(1)}–${held.result.ci95![1].toFixed(1)}`);
    expect(await cellOf(ref, 'pass1')).toBe('0.50');
    expect(await cellOf(ref, 'gap')).toBe(`+${held.gap!.toFixed(1)}`);
    expect(await cellOf(ref, 'gates')).toBe('1');
    expect(await cellOf(ref, 'failure-modes')).toContain('timeout 1');
    const opt = summary.commissions[3];
    const sp = 'tr[data-commission="speedup"]';
    expect(await cellOf(sp, 'S')).toBe(opt.optimization!.S.toFixed(1));
    expect(await cellOf(sp, 'passk')).toBe(`^2 ${opt.passHatK['2']!.toFixed(2)}`);
    expect(await cellOf('tr[data-delivery="overfit"]', 'failure-modes')).toContain('dev strings 1');
  });

  test('charts: a Result distribution per delivery and dev vs held-out bars', async () => {
    await expect(page.locator('#chart-distribution figure.dist').count()).resolves.toBe(2);
    const counts = await page
      .locator('#chart-distribution figure.dist')
      .first()
      .locator('rect.bin')
      .evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-count'))));
    expect(counts).toHaveLength(10);
    const dev = page.locator('#chart-dev-heldout g[data-delivery^="reference"] rect[data-split="dev"]');
    expect(Number(await dev.getAttribute('data-value'))).toBe(90);
    await expect(
      page.locator('#chart-dev-heldout g[data-delivery^="overfit"] rect[data-split="dev"]').count(),
    ).resolves.toBe(0);
  });

  test('clicking a row lists its cases; clicking a case opens its drill-down with gates and dimensions', async () => {
    await expect(page.locator('#drilldown').isVisible()).resolves.toBe(false);
    await openEntry(
      page,
      'table#summary-table tr[data-commission="csv-report"][data-delivery="reference"][data-split="heldout"]',
    );
    await expect(page.locator('#cases').isVisible()).resolves.toBe(true);
    await expect(page.locator('.case-row[data-case]').count()).resolves.toBe(4);

    await openCase(page, 'c-hostile');
    const drill = page.locator('#drilldown');
    await expect(drill.isVisible()).resolves.toBe(true);
    expect(await drill.getAttribute('data-case')).toBe('c-hostile');
    expect(await drill.locator('.dd-title').textContent()).toBe('c-hostile #1');
    expect(await drill.locator('.dd-gate').textContent()).toBe('all gates passed');
    expect(await drill.locator('.dim[data-dimension="correctness"] .dim-value').textContent()).toBe(
      '20.0/60.0 (cap 25.0)',
    );
    await expect(drill.locator('.dim[data-dimension="correctness"] .cap').count()).resolves.toBe(1);
    await expect(drill.locator('.dim[data-dimension="clarity"] .cap').count()).resolves.toBe(0);
    expect(await drill.locator('section[data-section="ceilings"] li.binding').textContent()).toContain(
      'total ≤ 35 (binding)',
    );
    expect(await drill.locator('.dd-judge').textContent()).toContain('judge judge-model');
    expect(await drill.locator('.major-errors li').textContent()).toBe('dropped rows');
    expect(await drill.locator('.dd-ledger').textContent()).toBe('model calls 3 · tokens 900 · wall 1.20 s · exit 0');

    await openCase(page, 'c-03');
    expect(await drill.getAttribute('data-case')).toBe('c-03');
    expect(await drill.locator('.dd-gate').textContent()).toBe('failed: timeout');
    expect(await drill.locator('.dd-reason').textContent()).toBe('killed after 600 s');
    expect(await drill.locator('pre.stderr').textContent()).toBe('Traceback: slow loop');
  });

  test('case text is shown as text, never run as markup', async () => {
    await openEntry(
      page,
      'table#summary-table tr[data-commission="csv-report"][data-delivery="reference"][data-split="heldout"]',
    );
    await openCase(page, 'c-hostile');
    const drill = page.locator('#drilldown');
    expect(await drill.locator('pre.stderr').textContent()).toBe(HOSTILE);
    expect(await drill.locator('.item .evidence').textContent()).toBe(`output said ${HOSTILE}`);
    await expect(page.locator('#drilldown img, #drilldown script').count()).resolves.toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(pageErrors).toEqual([]);
  });

  test('the embedded data unpacks to the summary, and junit.xml is well-formed XML', async () => {
    const embedded = await page.evaluate(() =>
      (globalThis as unknown as { heldoutSummary: () => Promise<unknown> }).heldoutSummary(),
    );
    expect(embedded).toEqual(JSON.parse(JSON.stringify(summary)));
    const parsed = await page.evaluate((xml) => {
      // Runs in the page: the DOM lib is not in this project's types.
      const doc = new (globalThis as any).DOMParser().parseFromString(xml, 'application/xml');
      return {
        error: doc.getElementsByTagName('parsererror').length,
        cases: doc.getElementsByTagName('testcase').length,
        hostile: (doc.querySelector('testcase[name="c-hostile #1"] failure')?.textContent ?? '') as string,
      };
    }, junit);
    expect(parsed.error).toBe(0);
    expect(parsed.cases).toBe(summary.commissions.reduce((s, c) => s + c.cases.length, 0));
    expect(parsed.hostile).toContain('<script>window.__pwned=1</script>');
  });
});

describe('the verdict, the gate and the evidence, seen', () => {
  test('a failed gate: the gate box says FAIL, in red, with each condition, its value and what fell short', async () => {
    const gated = sampleSummary({ gate: { minResult: 45, maxGap: 10 } });
    expect(gated.gate.verdict).toBe('fail');
    const out = await mkdtemp(join(tmpdir(), 'heldout-html-gate-'));
    const paths = await writeReport(out, gated);
    expectValidSummary(JSON.parse(await readFile(paths.summary, 'utf8')));
    const p = await browser.newPage();
    await p.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
    await p.goto(pathToFileURL(paths.html).href);
    await p.waitForSelector('html[data-ready="true"]');
    const box = p.locator('#gate');
    expect(await box.getAttribute('data-verdict')).toBe('fail');
    expect(await box.locator('.gate-verdict').textContent()).toBe('FAIL');
    expect(await box.evaluate((b) => (globalThis as any).getComputedStyle(b).borderTopColor)).toBe('rgb(179, 38, 30)');
    expect(await box.locator('.gate-thresholds').textContent()).toBe('Thresholds: minResult 45 · maxGap 10');
    const unmet = box.locator('table.gate-conditions tr.unmet');
    const messages = await unmet.locator('td:last-child').allTextContents();
    expect(messages).toEqual(gated.gate.conditions.filter((c) => !c.met).map((c) => c.message));
    expect(messages).toContain('csv-report (overfit): held-out Result 27.0 < minResult 45');
    expect(messages).toContain('csv-report (reference): fidelity gap 40.5 > maxGap 10');
    const met = box.locator('table.gate-conditions tr.met[data-condition="minResult"][data-delivery="reference"]');
    expect(await met.locator('td').nth(3).textContent()).toBe('49.5');
    // The rows the gate judged take its verdict.
    expect(await p.locator('#summary-table tr[data-delivery="overfit"]').getAttribute('data-verdict')).toBe('fail');
    await p.close();
  });

  test('evidence items are styled by their verdict: all points green, none red, some amber', async () => {
    await openEntry(
      page,
      'table#summary-table tr[data-commission="csv-report"][data-delivery="reference"][data-split="heldout"]',
    );
    await openCase(page, 'c-01');
    const pass = page.locator('#drilldown .item').first();
    expect(await pass.getAttribute('data-verdict')).toBe('pass');
    expect(await pass.evaluate((n) => (globalThis as any).getComputedStyle(n).borderLeftColor)).toBe(
      'rgb(27, 127, 59)',
    );
    expect(await page.locator('#drilldown .dd-gate').getAttribute('class')).toBe('dd-gate pass');
    await openCase(page, 'c-hostile');
    const partial = page.locator('#drilldown .item').first();
    expect(await partial.getAttribute('data-verdict')).toBe('partial');
    expect(await partial.locator('.verdict').textContent()).toBe('partial');
    await openCase(page, 'c-03');
    expect(await page.locator('#drilldown .dd-gate').getAttribute('class')).toBe('dd-gate fail');
  });

  test('every column has a caption in the legend and as its header tooltip; the dev strings are listed', async () => {
    for (const col of columnsOf('html')) {
      const dd = page.locator(`#legend dt[data-col="${col.id}"] + dd`);
      expect((await dd.textContent())?.length, col.id).toBeGreaterThan(10);
      expect(
        await page.locator('#summary-table thead th').nth(columnsOf('html').indexOf(col)).getAttribute('title'),
      ).toBe(col.caption);
    }
    expect(await page.locator('.finding[data-delivery="overfit"] ul.dev-strings li').allTextContents()).toEqual([
      'ACME-2231',
    ]);
    expect(await page.locator('#summary-table tr[data-delivery="overfit"]').getAttribute('class')).toBe(
      'verdict-fail flagged',
    );
  });
});
