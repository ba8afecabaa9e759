import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { gateViolations } from '../../src/vitest/reporter.js';
import { heldout, runLogTriage } from '../helpers/cli.js';
import { expectValidSummary } from '../report/summary-json-schema.js';
import { cleanEnv, execFileP, REPO } from '../scale/figures.js';

// The CI gate (DESIGN §9): thresholds on the held-out figures decide the exit code and name what fell short.
describe('the CI gate', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-gate-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const run = (delivery: string, out: string, gate: string[]) =>
    runLogTriage(delivery, path.join(tmp, out), ['--split', 'both', ...gate]);

  test('holds for the reference delivery (exit 0)', async () => {
    const r = await run('reference', 'ref', ['--min-result', '80', '--min-pass-hat-k', '0.9', '--max-gap', '10']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/gate failed/);
  });

  test('fails for the overfit delivery (exit 1), naming the Result, pass^k and the fidelity gap', async () => {
    const r = await run('overfit', 'overfit', ['--min-result', '80', '--min-pass-hat-k', '0.9', '--max-gap', '10']);
    expect(r.code).toBe(1);
    // summary.json, report.md and index.html say why the job failed, not only the console.
    const summary = JSON.parse(readFileSync(path.join(tmp, 'overfit', 'summary.json'), 'utf8'));
    expectValidSummary(summary);
    expect(summary.gate).toMatchObject({
      verdict: 'fail',
      thresholds: { minResult: 80, minPassHatK: 0.9, maxGap: 10 },
      evaluatedOn: 'all',
    });
    expect(summary.gate.conditions.map((c: any) => [c.condition, c.met])).toEqual([
      ['minResult', false],
      ['minPassHatK', false],
      ['maxGap', false],
    ]);
    const md = readFileSync(path.join(tmp, 'overfit', 'report.md'), 'utf8');
    expect(md).toContain('## Gate: FAIL');
    expect(md).toMatch(/\| log-triage · log-triage-overfit \| minResult \| 80\.0 \| \d+\.\d \| \*\*no\*\* \|/);
    expect(readFileSync(path.join(tmp, 'overfit', 'index.html'), 'utf8')).toContain('data-verdict="fail"');
    expect(r.out).toMatch(/heldout gate failed/);
    expect(r.out).toMatch(/log-triage \(log-triage-overfit\): held-out Result \d+\.\d < minResult 80/);
    expect(r.out).toMatch(/pass\^1 0\.\d+ < minPassHatK 0\.9/);
    expect(r.out).toMatch(/fidelity gap \d+\.\d > maxGap 10/);
  });

  test('--max-gap without both splits is a usage error (exit 2): a gate on a gap that does not exist never fails', async () => {
    const r = await heldout([
      'run',
      'tasks/log-triage',
      '--delivery',
      'fixtures/deliveries/log-triage-overfit',
      '--max-gap',
      '10',
    ]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/--max-gap needs --split both/);
  });

  test('whole-number options refuse fractions (exit 2)', async () => {
    const r = await heldout([
      'run',
      'tasks/log-triage',
      '--delivery',
      'fixtures/deliveries/log-triage-reference',
      '--trials',
      '2.5',
    ]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/--trials: expected a whole number/);
  });

  test('the starter baseline is outside the gate by its role, not its label; a missing gap fails maxGap', () => {
    const entry = (label: string, role: 'candidate' | 'starter', gap: number | null) =>
      ({
        id: 'routing',
        split: 'heldout',
        delivery: { path: `/d/${label}`, digest: 'sha256:x', frozen: false, label, role },
        result: { mean: 40 },
        passHatK: { 1: 0.1 },
        gap,
      }) as any;
    const summary = { commissions: [entry('a0', 'starter', 5), entry('a0', 'candidate', null)] } as any;
    expect(gateViolations(summary, { minResult: 50, maxGap: 10 })).toEqual([
      'routing (a0): held-out Result 40.0 < minResult 50',
      'routing (a0): no fidelity gap (needs scored dev and held-out cases of the same digest) for maxGap 10',
    ]);
  });

  test('a case that failed without a grade (a refused delivery beside a good one) fails the gate', async () => {
    const bad = path.join(tmp, 'tampered');
    cpSync(path.join(REPO, 'fixtures/deliveries/log-triage-reference'), bad, { recursive: true });
    expect((await heldout(['freeze', bad, '--no-image'])).code).toBe(0);
    appendFileSync(path.join(bad, 'run_agent.py'), '\n# changed after the freeze\n');
    const script = `
      const { runHeldout } = await import(${JSON.stringify(path.join(REPO, 'dist/index.js'))});
      const r = await runHeldout({ commissions: ['tasks/log-triage'], sandbox: 'process', table: false,
        delivery: { good: ${JSON.stringify(path.join(REPO, 'fixtures/deliveries/log-triage-reference'))},
                    tampered: ${JSON.stringify(bad)} },
        out: ${JSON.stringify(path.join(tmp, 'mixed'))}, gate: { minResult: 50 } }, { reporters: ['dot'] });
      console.log(JSON.stringify(r.violations));`;
    const r = await execFileP(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO,
      env: cleanEnv(),
      maxBuffer: 16 << 20,
    }).catch((e) => e as { stdout: string; stderr: string });
    const violations = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '[]');
    expect(violations, r.stdout + r.stderr).toEqual(['9 case test(s) failed without a grade (see the errors above)']);
  });
});
