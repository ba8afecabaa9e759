import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { heldout, runLogTriage } from '../helpers/cli.js';
import { openCase, openEntry } from '../helpers/report-page.js';
import { cleanEnv, REPO } from '../scale/figures.js';
import { expectValidSummary } from './summary-json-schema.js';

/** The listening sockets of a TCP port in /proc/net/tcp{,6}: [local address (hex), state]; no traffic needed. */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const out: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(`:${hexPort}`) && state === '0A') out.push(local.split(':')[0]);
    }
  }
  return out;
}

/** A GET with a Host header of our choosing (fetch forbids setting it), to the viewer on loopback. */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

// `heldout view` over a directory holding two real runs of log-triage: the reference and the overfit delivery.
describe('heldout view', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-view-'));
  const reports = path.join(tmp, 'reports');
  let viewer: ChildProcess | null = null;
  let url = '';
  let browser: Browser;
  const run = (delivery: string) => runLogTriage(delivery, path.join(reports, delivery));

  beforeAll(async () => {
    expect((await run('reference')).code).toBe(0);
    expect((await run('overfit')).code).toBe(1);
    for (const d of ['reference', 'overfit']) {
      expectValidSummary(JSON.parse(readFileSync(path.join(reports, d, 'summary.json'), 'utf8')));
    }
    viewer = spawn(process.execPath, [path.join(REPO, 'dist/cli/bin.js'), 'view', reports, '--port', '0'], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      viewer!.stdout!.on('data', (b: Buffer) => {
        seen += b.toString();
        const m = /heldout view: (http:\/\/\S+\/)/.exec(seen);
        if (m) resolve(m[1]);
      });
      viewer!.stderr!.on('data', (b: Buffer) => {
        seen += b.toString();
      });
      viewer!.once('exit', (code) => reject(new Error(`heldout view exited ${code}: ${seen}`)));
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (viewer && viewer.exitCode === null) {
      const exited = new Promise((resolve) => viewer!.once('exit', resolve));
      viewer.kill('SIGINT');
      await exited;
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  test('serves on loopback only: bound to 127.0.0.1, other hosts refused, foreign Host headers refused', async () => {
    const port = Number(new URL(url).port);
    expect(new URL(url).hostname).toBe('127.0.0.1');
    // 0100007F is 127.0.0.1 in /proc's byte order; nothing listens on 0.0.0.0 or another address.
    expect(listeners(port)).toEqual(['0100007F']);
    const wide = await heldout(['view', reports, '--host', '0.0.0.0', '--port', '0']);
    expect(wide.code).toBe(2);
    expect(wide.out).toContain(
      '--host: heldout view listens on loopback only (127.0.0.1, ::1, localhost), not 0.0.0.0',
    );
    expect(await getWithHost(url, 'attacker.example')).toBe(403);
    expect(await getWithHost(url, `127.0.0.1:${port}`)).toBe(200);
  });

  test('lists the two runs with their gates and held-out figures; each opens its report', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    const rows = page.locator('#runs tbody tr[data-run]');
    await expect(rows.count()).resolves.toBe(2);
    expect((await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-run')))).sort()).toEqual([
      'overfit',
      'reference',
    ]);
    const overfit = page.locator('#runs tr[data-run="overfit"]');
    expect(await overfit.locator('.entry').textContent()).toMatch(/^log-triage · log-triage-overfit: \d+\.\d fail/);
    expect(await overfit.locator('.entry').getAttribute('class')).toBe('entry verdict-fail');
    expect(await page.locator('#runs tr[data-run="reference"] .entry').textContent()).toContain(': 100.0 pass');
    expect(await overfit.locator('.gate-cell').textContent()).toBe('no gate');

    await page.click('#runs tr[data-run="reference"] a');
    await page.waitForSelector('html[data-ready="true"]');
    await expect(page.locator('#summary-table tr[data-row]').count()).resolves.toBe(1);
    expect(await page.locator('#gate').getAttribute('data-verdict')).toBe('none');
    // The page's case list and drill-down come from the chunks the viewer serves beside it.
    await openEntry(page, '#summary-table tr[data-row]');
    await expect(page.locator('.case-row').count()).resolves.toBe(9);
    const first = await page.locator('.case-row').first().getAttribute('data-case');
    await openCase(page, first!);
    expect(await page.locator('#drilldown .dd-title').textContent()).toBe(`${first} #1`);
    expect(await page.locator('#drilldown .dd-gate').textContent()).toBe('all gates passed');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('the comparison page puts the two runs side by side and shows the cases that flipped', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.check('#runs tr[data-run="reference"] input[name="a"]');
    await page.check('#runs tr[data-run="overfit"] input[name="b"]');
    await page.click('button[type="submit"]');
    await page.waitForSelector('.pair');
    await expect(page.locator('.run-side').count()).resolves.toBe(2);
    expect(await page.locator('.run-side[data-side="A"]').getAttribute('data-run')).toBe('reference');
    // One table of the compared entries, A's figures beside B's on the same row.
    await expect(page.locator('#side-by-side tbody tr[data-pair]').count()).resolves.toBe(1);
    expect(await page.locator('#side-by-side td[data-side="b"][data-col="delivery"]').textContent()).toBe(
      'log-triage-overfit',
    );
    const pair = page.locator('.pair[data-commission="log-triage"]');
    expect(await pair.getAttribute('data-verdict')).toBe('worse');
    expect(await pair.locator('.pair-figures').textContent()).toMatch(
      /W\/L\/T 0\/\d\/\d.*B is significantly worse than A/,
    );
    const overfit = JSON.parse(readFileSync(path.join(reports, 'overfit', 'summary.json'), 'utf8'));
    const failed = overfit.commissions[0].cases.filter((c: any) => !c.passed).map((c: any) => c.id);
    const flips = pair.locator('ul.flipped li');
    expect(await flips.evaluateAll((ls) => ls.map((l) => l.getAttribute('data-case')))).toEqual(failed.sort());
    for (const f of await flips.evaluateAll((ls) => ls.map((l) => l.getAttribute('data-flip'))))
      expect(f).toBe('pass→fail');
    const color = await flips.first().evaluate((l) => (globalThis as any).getComputedStyle(l).color);
    expect(color).toBe('rgb(179, 38, 30)');
    await expect(pair.locator('table.case-diff tr[data-flip="pass→fail"]').count()).resolves.toBe(failed.length);
    await page.close();
  });
});
