import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CaseGrade } from '../../src/grading/index.js';
import { compareSummaries } from '../../src/report/compare.js';
import { buildSummary, type Summary, summarizeCommission, writeReport } from '../../src/report/index.js';
import { renderComparePage } from '../../src/report/render-view.js';
import { launchChromium } from '../helpers/chromium.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { openEntry } from '../helpers/report-page.js';
import { grade } from './synthetic-grades.js';

// Issue 36's "a report that answers at a glance", seen in Chromium at a 1,400 × 900 window: two commissions whose
// deliveries are both labelled "reference" (different trees), each with a second delivery, given in an order that
// interleaves commissions when sorted by delivery.
const dlv = (label: string, hex: string) => ({
  path: `/d/${label}-${hex}`,
  digest: `sha256:${hex.repeat(16)}`,
  frozen: true,
  label,
});
const refAlpha = dlv('reference', '1111');
const refBeta = dlv('reference', '3333');
const REG = 'μ_reg failed: regression suite `npm test` exited 1: 2 tests failed';

/** Eight cases whose Result μ_reg's total ceiling set to 0, one whose correctness cap lowered it, one clean. */
function alphaCases(): CaseGrade[] {
  const set = Array.from({ length: 8 }, (_, i) =>
    grade({
      id: `a-${i}`,
      result: 0,
      passed: false,
      reason: REG,
      ceilings: [{ kind: 'total', max: 0, reason: REG, binding: true }],
      ceilingHit: true,
      ceilingSet: true,
    }),
  );
  const capped = grade({
    id: 'a-cap',
    result: 65,
    ceilings: [{ kind: 'dimension', dimension: 'correctness', max: 25, reason: 'O1 unmet', binding: true }],
    ceilingHit: true,
  });
  return [...set, capped, grade({ id: 'a-ok', result: 90 })];
}

function run(id: string, shift = 0): Summary {
  const base = { family: 'creation' as const, passRule: { minResult: 60 } };
  const cases = (p: string, n: number, r: number) =>
    Array.from({ length: n }, (_, i) => grade({ id: `${p}-${i}`, result: Math.max(0, r - shift - i) }));
  const commissions = [
    summarizeCommission({
      ...base,
      id: 'beta',
      split: 'heldout',
      delivery: dlv('candidate', '4444'),
      cases: cases('b', 6, 70),
    }),
    summarizeCommission({
      ...base,
      id: 'alpha',
      split: 'heldout',
      delivery: dlv('overfit', '2222'),
      cases: cases('a', 6, 40),
    }),
    summarizeCommission({ ...base, id: 'beta', split: 'heldout', delivery: refBeta, cases: cases('b', 6, 90) }),
    summarizeCommission({ ...base, id: 'alpha', split: 'heldout', delivery: refAlpha, cases: alphaCases() }),
    summarizeCommission({
      ...base,
      id: 'beta',
      split: 'dev',
      delivery: refBeta,
      cases: cases('bd', 3, 95).map((c) => ({ ...c, split: 'dev' })),
    }),
  ];
  return buildSummary({
    run: { id, startedAt: '2026-01-02T03:04:05.000Z', sandbox: 'docker', version: '0.1.0' },
    commissions,
  });
}

let browser: Browser;
const tmp: { dir: string } = { dir: '' };

beforeAll(async () => {
  tmp.dir = await mkdtemp(join(tmpdir(), 'heldout-glance-'));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function open(file: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(WAIT_MS);
  await page.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
  await page.goto(pathToFileURL(file).href);
  return page;
}

describe('index.html at a glance', () => {
  let page: Page;
  beforeAll(async () => {
    const paths = await writeReport(join(tmp.dir, 'report'), run('run-a'));
    page = await open(paths.html);
    await page.waitForSelector('html[data-ready="true"]');
  });

  test('rows are grouped by commission, then delivery, then split (held-out first), as the console groups them', async () => {
    const rows = await page
      .locator('#summary-table tbody tr[data-row]')
      .evaluateAll((rs) =>
        rs.map((r) =>
          [r.getAttribute('data-commission'), r.getAttribute('data-delivery'), r.getAttribute('data-split')].join(' '),
        ),
      );
    expect(rows).toEqual([
      'alpha overfit heldout',
      'alpha reference heldout',
      'beta candidate heldout',
      'beta reference heldout',
      'beta reference dev',
    ]);
    // The commission column leads, as in the console.
    expect(await page.locator('#summary-table thead th').first().textContent()).toBe('Commission');
  });

  test('a failure-modes cell names the ceiling that set the Results and the one that lowered a score', async () => {
    const cell = await page
      .locator('tr[data-commission="alpha"][data-delivery="reference"] td[data-col="failure-modes"]')
      .textContent();
    expect(cell).toContain('ceiling set by μ_reg ×8');
    expect(cell).toContain('ceiling hit by correctness ≤ 25.0 ×1');
    expect(cell).not.toMatch(/ceiling hit \d+\/set \d+/);
  });

  test('the charts name the two "reference" deliveries by commission, in full, without overlapping', async () => {
    const dist = await page
      .locator('#chart-distribution figure.dist')
      .evaluateAll((fs) => fs.map((f) => f.getAttribute('data-delivery')));
    expect(dist.sort()).toEqual(['alpha · reference', 'beta · reference', 'candidate', 'overfit']);
    const labels = await page.locator('#chart-dev-heldout g[data-delivery]').evaluateAll((gs) =>
      gs.map((g) => {
        const t = g.querySelector(':scope > text:last-of-type') as any;
        const box = t.getBoundingClientRect();
        return { key: g.getAttribute('data-delivery'), text: t.textContent, left: box.left, right: box.right };
      }),
    );
    expect(labels.map((l) => l.text)).toEqual(labels.map((l) => l.key));
    expect(labels.map((l) => l.text)).toContain('alpha · reference');
    const svg = await page.locator('#chart-dev-heldout svg').boundingBox();
    for (let i = 0; i < labels.length; i++) {
      expect(labels[i].left, labels[i].key!).toBeGreaterThanOrEqual(svg!.x);
      expect(labels[i].right, labels[i].key!).toBeLessThanOrEqual(svg!.x + svg!.width);
      if (i > 0) expect(labels[i].left, labels[i].key!).toBeGreaterThanOrEqual(labels[i - 1].right);
    }
  });

  test('clicking a row brings its case list, far below the table, into the window', async () => {
    await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
    const below = await page.evaluate(
      () => (globalThis as any).document.getElementById('layout').getBoundingClientRect().top,
    );
    expect(below).toBeGreaterThan(900);
    await openEntry(page, '#summary-table tr[data-commission="beta"][data-delivery="reference"][data-split="heldout"]');
    const top = await page.evaluate(
      () => (globalThis as any).document.getElementById('cases').getBoundingClientRect().top,
    );
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(900 / 2);
    expect(await page.locator('#cases-title').textContent()).toContain('beta');
  });
});

/** Every header and cell of the side-by-side table lies inside the window, and each row's cells share a line. */
async function layout(page: Page) {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const table = doc.getElementById('side-by-side');
    const cells = [...table.querySelectorAll('th, td')].map((c: any) => c.getBoundingClientRect().right);
    const rows = [...table.querySelectorAll('tbody tr')].map((tr: any) => {
      const tops = [...tr.children].map((c: any) => Math.round(c.getBoundingClientRect().top));
      return new Set(tops).size;
    });
    return { scrollWidth: doc.documentElement.scrollWidth, right: Math.max(...cells), rows };
  });
}

describe("heldout view's comparison at 1,400 px", () => {
  const rendered = async (name: string, a: Summary, b: Summary, da?: string, db?: string) => {
    const file = join(tmp.dir, `${name}.html`);
    const cmp = compareSummaries(a, b, { deliveryA: da, deliveryB: db });
    await writeFile(file, renderComparePage({ name: 'a', summary: a }, { name: 'b', summary: b }, cmp));
    return open(file);
  };

  test("two runs: A's and B's figures share each row, and pass^k, gap, S and flags of B are on screen", async () => {
    const page = await rendered('two-runs', run('run-a'), run('run-b', 15));
    const heads = await page.locator('#side-by-side thead th').allTextContents();
    for (const h of ['pass^k', 'Gap', 'S', 'Flags']) {
      expect(heads).toContain(`A ${h}`);
      expect(heads).toContain(`B ${h}`);
    }
    const l = await layout(page);
    expect(l.scrollWidth).toBeLessThanOrEqual(1400);
    expect(l.right).toBeLessThanOrEqual(1400);
    expect(l.rows).toHaveLength(5);
    for (const n of l.rows) expect(n).toBe(1);
    const beta = page.locator('#side-by-side tr[data-commission="beta"][data-split="heldout"]');
    await expect(beta.count()).resolves.toBe(2);
    await page.close();
  });

  test('two deliveries of one run: only those deliveries are shown, A reference beside B candidate', async () => {
    const s = run('run-a');
    const page = await rendered('two-deliveries', s, s, 'reference', 'candidate');
    const a = await page.locator('#side-by-side td[data-side="a"][data-col="delivery"]').allTextContents();
    const b = await page.locator('#side-by-side td[data-side="b"][data-col="delivery"]').allTextContents();
    expect(new Set(a)).toEqual(new Set(['reference']));
    expect(b).toEqual(['candidate']);
    expect(await page.locator('#side-by-side').textContent()).not.toContain('overfit');
    const paired = page.locator('#side-by-side tr[data-commission="beta"][data-split="heldout"]');
    expect(await paired.locator('td[data-side="b"][data-col="delivery"]').textContent()).toBe('candidate');
    const l = await layout(page);
    expect(l.right).toBeLessThanOrEqual(1400);
    await page.close();
  });
});
