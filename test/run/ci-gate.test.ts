import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { heldout } from '../helpers/cli.js';

// The CI gate (DESIGN §9): thresholds on the held-out figures decide the exit code and name what fell short.
describe('the CI gate', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-gate-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const run = (delivery: string, out: string, gate: string[]) =>
    heldout([
      'run',
      'tasks/log-triage',
      '--delivery',
      `fixtures/deliveries/log-triage-${delivery}`,
      '--sandbox',
      'process',
      '--split',
      'both',
      '--out',
      path.join(tmp, out),
      ...gate,
    ]);

  test('holds for the reference delivery (exit 0)', async () => {
    const r = await run('reference', 'ref', ['--min-result', '80', '--min-pass-hat-k', '0.9', '--max-gap', '10']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/gate failed/);
  });

  test('fails for the overfit delivery (exit 1), naming the Result, pass^k and the fidelity gap', async () => {
    const r = await run('overfit', 'overfit', ['--min-result', '80', '--min-pass-hat-k', '0.9', '--max-gap', '10']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/heldout gate failed/);
    expect(r.out).toMatch(/log-triage \(log-triage-overfit\): held-out Result \d+\.\d < minResult 80/);
    expect(r.out).toMatch(/pass\^1 0\.\d+ < minPassHatK 0\.9/);
    expect(r.out).toMatch(/fidelity gap \d+\.\d > maxGap 10/);
  });
});
