// Cost in the reports (issue 34): index.html's Cost column and the drill-down's cost line (delivery, user simulator
// and judge apart, `?` and the unpriced model where the table lacks one), report.md's column and junit's property.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { buildSummary, summarizeCommission, writeReport } from '../../src/report/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { openCase, openEntry } from '../helpers/report-page.js';
import { expectValidSummary } from './summary-json-schema.js';
import { delivery, grade } from './synthetic-grades.js';

const run = { id: 'run-cost', startedAt: '2025-01-02T03:04:05.000Z', sandbox: 'docker' as const, version: '0.1.0' };
let close = async () => {};
afterAll(() => close());

describe('cost in the reports', () => {
  test('the row’s total, each case’s parts in the drill-down, ? for an unpriced model', async () => {
    const priced = {
      ...grade({ id: 'c-priced', result: 90 }),
      cost: { delivery: 0.5, user: 0.25, judge: 0.01, total: 0.76 },
    };
    const unpriced = {
      ...grade({ id: 'c-unpriced', result: 80 }),
      cost: { delivery: null, user: 0, judge: 0.01, total: null, unpriced: ['mystery-model'] },
    };
    const entry = summarizeCommission({
      id: 'costly',
      family: 'creation',
      split: 'heldout',
      delivery,
      passRule: { minResult: 60 },
      cases: [priced, unpriced],
    });
    const summary = buildSummary({ run, commissions: [entry] });
    expect(summary.cost).toEqual({ delivery: null, user: 0.25, judge: 0.02, total: null, unpriced: ['mystery-model'] });
    const paths = await writeReport(await mkdtemp(join(tmpdir(), 'heldout-html-cost-')), summary);
    expectValidSummary(JSON.parse(await readFile(paths.summary, 'utf8')));
    expect(await readFile(paths.junit, 'utf8')).toContain('<property name="heldout.costUsd" value=""/>');

    const browser = await launchChromium();
    close = () => browser.close();
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(pathToFileURL(paths.html).href);
    await page.waitForSelector('html[data-ready="true"]');
    expect(await page.locator('#summary-table tr[data-row="0"] td[data-col="cost"]').textContent()).toBe('?');
    await openEntry(page, '#summary-table tr[data-row="0"]');
    await openCase(page, 'c-priced');
    expect(await page.locator('#drilldown .dd-cost').textContent()).toBe(
      'cost $0.760 (delivery $0.500 · user simulator $0.250 · judge $0.0100)',
    );
    await openCase(page, 'c-unpriced');
    expect(await page.locator('#drilldown .dd-cost').textContent()).toBe(
      'cost ? (delivery ? · user simulator $0 · judge $0.0100); not in the pricing table: mystery-model',
    );
  });
});
