import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { podmanBackend } from '../../src/sandbox/index.js';
import { launchChromium } from '../helpers/chromium.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { openCase, openEntry } from '../helpers/report-page.js';
import { expectValidSummary } from '../report/summary-json-schema.js';

const podmanAbsent = await podmanBackend.unavailable(WAIT_MS);

// The README's main job, end to end: every example commission × each of its example deliveries × both splits.
describe('heldout demo', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'heldout-demo-'));
  let summary: any;
  let stdout = '';
  const entry = (id: string, label: string, split: string) =>
    summary.commissions.find((c: any) => c.id === id && c.delivery.label === label && c.split === split);

  beforeAll(async () => {
    const r = await heldout(['demo', '--out', out]);
    expect(r.code, r.out).toBe(0);
    stdout = r.stdout;
    summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  test('writes the whole report and prints the table', () => {
    for (const f of ['summary.json', 'report.md', 'index.html', 'junit.xml'])
      expect(existsSync(path.join(out, f)), f).toBe(true);
    expect(summary.schema).toBe('heldout/summary@2');
    expectValidSummary(summary);
    // The demo sets no gate, and every planned case ran.
    expect(summary.gate).toMatchObject({ verdict: 'none', conditions: [] });
    expect(summary.partial).toBeNull();
    expect(new Set(summary.commissions.map((c: any) => c.family))).toEqual(
      new Set(['creation', 'editing', 'optimization']),
    );
    expect(stdout).toMatch(/log-triage\s+reference\s+heldout/);
  });

  test('the reference creation delivery serves the requirement on held-out cases and is not flagged', () => {
    const ref = entry('log-triage', 'reference', 'heldout');
    expect(ref.result.mean).toBeGreaterThanOrEqual(80);
    expect(ref.failureModes.hardCodedDevStrings).toEqual([]);
    // The held-out contamination scan flags none of the example deliveries (their builders never had the cases).
    expect(
      summary.commissions.filter((c: any) => c.failureModes.heldoutLeak).map((c: any) => c.delivery.label),
    ).toEqual([]);
    expect(ref.gap).not.toBeNull();
    expect(Math.abs(ref.gap)).toBeLessThan(10);
  });

  test('the overfit delivery shows a fidelity gap and its hard-coded dev strings', () => {
    const dev = entry('log-triage', 'overfit', 'dev');
    const held = entry('log-triage', 'overfit', 'heldout');
    expect(held.gap).toBeGreaterThanOrEqual(30);
    expect(held.gap).toBeCloseTo(dev.result.mean - held.result.mean, 9);
    expect(held.failureModes.hardCodedDevStrings.length).toBeGreaterThan(0);
    expect(held.failureModes.hardCodedDevStrings).toContain('ledger-sync');
    expect(held.verdict).toBe('fail');
    expect(held.flags).toEqual(expect.arrayContaining(['fidelity-gap', 'dev-strings']));
    expect(entry('log-triage', 'reference', 'heldout')).toMatchObject({ verdict: 'pass', flags: [] });
  });

  test('every held-out case of the hollow delivery fails a gate, and its completion claim is contradicted', () => {
    const hollow = entry('log-triage', 'hollow', 'heldout');
    expect(hollow.cases.length).toBeGreaterThanOrEqual(6);
    for (const c of hollow.cases) expect(c.status, c.id).toBe('gate-failed');
    expect(hollow.failureModes.claimsContradicted).toBe(hollow.cases.length);
  });

  test('the regression-breaking editing patch fails μ_reg', () => {
    const broken = entry('todo-due-dates', 'breaks-regression', 'heldout');
    for (const c of broken.cases) {
      expect(c.passed).toBe(false);
      expect(c.reason).toMatch(/μ_reg failed/);
      // Which of the product's own tests broke, not a flattened tail of the suite's output.
      expect(c.reason).toMatch(/\d+ of \d+ tests failed: test_\w+\.\w+\.test_\w+/);
      expect(c.editing.failedTests.length).toBeGreaterThan(0);
    }
    expect(entry('todo-due-dates', 'reference', 'heldout').result.mean).toBe(100);
  });

  test('the optimization candidate is credited with the gap it closes against a0 on the same instances', () => {
    const cand = entry('ticket-routing', 'candidate', 'heldout');
    const a0 = entry('ticket-routing', 'a0', 'heldout');
    const o = cand.optimization;
    expect(o.j0).toBeCloseTo(a0.result.mean, 9);
    expect(o.j1).toBeCloseTo(cand.result.mean, 9);
    expect(o.S).toBeCloseTo((100 * (o.j1 - o.j0)) / (100 - o.j0), 9);
    expect(o.wins + o.losses + o.ties).toBe(cand.cases.length);
    expect(o.signTestP).toBeGreaterThan(0);
    expect(o.signTestP).toBeLessThanOrEqual(1);
  });

  test('index.html in Chromium: the overfit row is marked and its dev strings are listed once', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.route('**/*', (r) => (r.request().url().startsWith('file:') ? r.continue() : r.abort()));
      await page.goto(pathToFileURL(path.join(out, 'index.html')).href);
      await page.waitForSelector('html[data-ready="true"]');
      const row = page.locator(
        '#summary-table tr[data-commission="log-triage"][data-delivery="overfit"][data-split="heldout"]',
      );
      expect(await row.getAttribute('class')).toBe('verdict-fail flagged');
      expect(await row.locator('td[data-col="verdict"]').textContent()).toBe('fail');
      expect(await row.locator('td[data-col="flags"]').textContent()).toContain('dev-strings');
      const color = await row
        .locator('td')
        .first()
        .evaluate((td) => (globalThis as any).getComputedStyle(td).boxShadow);
      expect(color).toContain('rgb(179, 38, 30)');
      const ref = page.locator(
        '#summary-table tr[data-commission="log-triage"][data-delivery="reference"][data-split="heldout"]',
      );
      expect(await ref.getAttribute('class')).toBe('verdict-pass');
      const listed = page.locator(
        '#findings .finding[data-commission="log-triage"][data-delivery="overfit"] ul.dev-strings li',
      );
      const held = entry('log-triage', 'overfit', 'heldout');
      expect(await listed.allTextContents()).toEqual(held.failureModes.hardCodedDevStrings);
      await expect(page.locator('#findings .finding').count()).resolves.toBe(1);
      expect(await page.locator('#gate').getAttribute('data-verdict')).toBe('none');
      // The drill-down of a case that failed its suite, loaded from index.files/ beside the page.
      await openEntry(
        page,
        '#summary-table tr[data-commission="todo-due-dates"][data-delivery="breaks-regression"][data-split="heldout"]',
      );
      const broken = entry('todo-due-dates', 'breaks-regression', 'heldout');
      await expect(page.locator('.case-row').count()).resolves.toBe(broken.cases.length);
      await openCase(page, broken.cases[0].id);
      expect(await page.locator('#drilldown .dd-reason').textContent()).toBe(broken.cases[0].reason);
      expect(await page.locator('#drilldown .dd-editing').textContent()).toBe('μ_new holds · μ_reg fails');
      expect(await page.locator('#drilldown ul.failed-tests li').allTextContents()).toEqual(
        broken.cases[0].editing.failedTests,
      );
    } finally {
      await browser.close();
    }
  });

  test('report.md lists the dev strings once per delivery and explains other gate and ceiling hit/set', () => {
    const md = readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(md.match(/dev-case strings in the delivery's source/g)).toHaveLength(1);
    expect(md).toMatch(/\*\*other gate\*\*: oom, a missing or invalid artifact/);
    expect(md).toMatch(/\*\*Ceiling hit\*\*: .*\*\*set\*\*: the Result equals a ceiling/);
    expect(md).toContain('## Family scores');
    expect(md).toContain('## Legend');
  });
  // Issue 33: the demo's log-triage on podman gives docker's figures, case by case. Held-out split only, which keeps
  // it cheap and is where the figures the issue compares (100.0, 44.1, 0.0) come from; every kind of delivery
  // (reference, overfit, hollow). Skipped, saying why, without a podman service.
  test.skipIf(podmanAbsent !== null)(
    podmanAbsent === null ? 'on podman, log-triage scores exactly as on docker' : `podman — skipped: ${podmanAbsent}`,
    async () => {
      const podmanOut = mkdtempSync(path.join(os.tmpdir(), 'heldout-demo-podman-'));
      try {
        const deliveries = ['reference', 'overfit', 'hollow'].flatMap((label) => [
          '--delivery',
          `${label}=${path.join(repoRoot, `fixtures/deliveries/log-triage-${label}`)}`,
        ]);
        const task = path.join(repoRoot, 'tasks/log-triage');
        const r = await heldout(['run', task, ...deliveries, '--sandbox', 'podman', '--out', podmanOut]);
        const onPodman = JSON.parse(readFileSync(path.join(podmanOut, 'summary.json'), 'utf8'));
        expect(onPodman.run.sandbox, r.out).toBe('podman');
        const figures = (s: any) =>
          s.commissions
            .filter((c: any) => c.id === 'log-triage' && c.split === 'heldout')
            .map((c: any) => ({
              entry: c.delivery.label,
              mean: c.result.mean,
              cases: c.cases.map((x: any) => [x.id, x.status, x.gate, x.result, x.passed]),
            }))
            .sort((a: any, b: any) => a.entry.localeCompare(b.entry));
        expect(figures(onPodman)).toEqual(figures(summary));
        expect(figures(onPodman).map((f: any) => f.entry)).toEqual(['hollow', 'overfit', 'reference']);
      } finally {
        rmSync(podmanOut, { recursive: true, force: true });
      }
    },
  );
});
