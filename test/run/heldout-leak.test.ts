import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canaryOf, loadCommission } from '../../src/commission/index.js';
import { summarySchema } from '../../src/report/index.js';
import { mergePhraseRuns } from '../../src/run/heldout-leak.js';
import { scanHeldoutLeak } from '../../src/run/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';

// The overfitting scanner turned around: a delivery holding what its builder was never shown (a held-out case's
// canary, or text only a held-out case has) is flagged; a delivery built from the requirement and the dev cases is not.
const DEMO: Record<string, string[]> = {
  'log-triage': ['log-triage-reference', 'log-triage-overfit', 'log-triage-hollow'],
  'todo-due-dates': ['todo-due-dates-reference', 'todo-due-dates-breaks-regression'],
  'ticket-routing': ['ticket-routing-candidate'],
};

test('no example delivery (nor an a0 starter) of the demo is flagged', async () => {
  for (const [id, deliveries] of Object.entries(DEMO)) {
    const commission = await loadCommission(path.join(repoRoot, 'tasks', id));
    for (const d of deliveries)
      expect(scanHeldoutLeak(path.join(repoRoot, 'fixtures/deliveries', d), commission), d).toBeNull();
    if (commission.starterDir) expect(scanHeldoutLeak(commission.starterDir, commission)).toBeNull();
  }
});

test('a copied sentence is one finding: runs of four-word phrases merge into the longest span the delivery holds', () => {
  const text = 'The disk filled up overnight, and the log writer got confused.';
  const held = (s: string) => ['the disk filled up overnight', 'and the log writer got'].some((h) => h.includes(s));
  const found = [
    'the disk filled up',
    'disk filled up overnight',
    'and the log writer',
    'the log writer got',
    'ERR-4242',
  ];
  expect(mergePhraseRuns([text], found, held).sort()).toEqual(
    ['ERR-4242', 'and the log writer got', 'the disk filled up overnight'].sort(),
  );
});

describe('a run flags held-out contamination in summary.json and report.md', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-leak-'));
  const pkg = path.join(tmp, 'log-triage');
  const out = path.join(tmp, 'report');
  let summary: any;
  let report = '';
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  beforeAll(async () => {
    cpSync(path.join(repoRoot, 'tasks/log-triage'), pkg, { recursive: true });
    const fixed = await heldout(['validate', pkg, '--fix']);
    expect(fixed.code, fixed.out).toBe(0);
    expect(fixed.out).toMatch(/added a canary to 9 held-out case/);
    const reference = path.join(repoRoot, 'fixtures/deliveries/log-triage-reference');
    // One delivery keeps a copy of a held-out case (its canary comes along), one hard-codes a held-out request.
    const canary = path.join(tmp, 'copied-case');
    cpSync(reference, canary, { recursive: true });
    cpSync(path.join(pkg, 'cases/heldout/h05-malformed/input.md'), path.join(canary, 'notes.md'));
    const text = path.join(tmp, 'hard-coded');
    cpSync(reference, text, { recursive: true });
    writeFileSync(
      path.join(text, 'known.py'),
      "KNOWN = {'Orders keep failing with exceptions': {'total_events': 41}}\n",
    );
    const r = await heldout([
      'run',
      pkg,
      '--delivery',
      `copied=${canary}`,
      '--delivery',
      `hard=${text}`,
      '--delivery',
      `ref=${reference}`,
      '--split',
      'dev',
      '--limit',
      '1',
      '--sandbox',
      'process',
      '--out',
      out,
    ]);
    expect(r.code, r.out).toBe(0);
    summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    report = readFileSync(path.join(out, 'report.md'), 'utf8');
  });

  test('validate --fix gave every held-out case a canary GUID, and a second --fix changes nothing', async () => {
    const commission = await loadCommission(pkg);
    const guids = commission.cases.heldout.map((c) => canaryOf(readFileSync(c.inputPath, 'utf8')));
    expect(guids.every((g) => g !== null)).toBe(true);
    expect(new Set(guids).size).toBe(guids.length);
    const again = await heldout(['validate', pkg, '--fix', '--json']);
    expect(JSON.parse(again.stdout)[0].canaries).toEqual([]);
  });

  test('summary.json names the case and the file for a canary and for hard-coded held-out text', () => {
    expect(summarySchema.safeParse(summary).success).toBe(true);
    const leak = (label: string) =>
      summary.commissions.find((c: any) => c.delivery.label === label).failureModes.heldoutLeak;
    expect(leak('copied')).toEqual(['h05-malformed: canary in notes.md']);
    expect(leak('hard')).toContain('h03-stacktraces: "orders keep failing with exceptions" in known.py');
    expect(leak('hard').some((x: string) => x.includes('canary'))).toBe(false);
    expect(leak('ref')).toBeUndefined();
    const flags = (label: string) => summary.commissions.find((c: any) => c.delivery.label === label).flags;
    expect(flags('copied')).toContain('heldout-leak');
    expect(flags('hard')).toContain('heldout-leak');
    expect(flags('ref')).not.toContain('heldout-leak');
  });

  test('report.md has a held-out leak line for each flagged delivery and none for the reference', () => {
    const lines = report.split('\n').filter((l) => l.includes('held-out case text in the delivery'));
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.includes('/ copied'))).toContain('`h05-malformed: canary in notes.md`');
    expect(lines.find((l) => l.includes('/ hard'))).toContain(
      '`h03-stacktraces: "orders keep failing with exceptions" in known.py`',
    );
  });
});
