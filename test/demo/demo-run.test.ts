import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldout } from '../helpers/cli.js';

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
  }, 600_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  test('writes the whole report and prints the table', () => {
    for (const f of ['summary.json', 'report.md', 'index.html', 'junit.xml'])
      expect(existsSync(path.join(out, f)), f).toBe(true);
    expect(summary.schema).toBe('heldout/summary@1');
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
});
