import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { expectValidSummary } from '../report/summary-json-schema.js';
import { cleanEnv, execFileP, REPO } from '../scale/figures.js';

/**
 * Plain Vitest over two commissions, one of which no longer loads (its commission.yaml names a family that does not
 * exist): the good one is reported, and the report says the other's cases are unknown instead of dropping them.
 */
describe('a commission suite that fails to load', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-unloaded-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('marks the run partial, names the suite and its error, and the gate is not evaluated', async () => {
    const broken = path.join(tmp, 'broken-triage');
    cpSync(path.join(REPO, 'tasks/log-triage'), broken, { recursive: true });
    const yaml = path.join(broken, 'commission.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('family: creation', 'family: nosuch'));
    const out = path.join(tmp, 'out');
    const script = `
      const { runHeldout } = await import(${JSON.stringify(path.join(REPO, 'dist/index.js'))});
      const r = await runHeldout({ commissions: ['tasks/log-triage', ${JSON.stringify(broken)}], sandbox: 'process',
        delivery: ${JSON.stringify(path.join(REPO, 'fixtures/deliveries/log-triage-reference'))},
        out: ${JSON.stringify(out)}, gate: { minResult: 50 }, judgeCache: false },
        { reporters: ['dot'], testNamePattern: 'h01' });
      console.log(JSON.stringify({ violations: r.violations, code: r.vitestExitCode }));`;
    const r = await execFileP(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO,
      env: cleanEnv(),
      maxBuffer: 16 << 20,
    }).catch((e) => e as { stdout: string; stderr: string });
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}');
    const s = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    expectValidSummary(s);
    expect(s.commissions.map((c: any) => c.id)).toEqual(['log-triage']);
    expect(s.partial.unloaded).toEqual([
      { commission: 'broken-triage', file: yaml, error: expect.stringContaining('family') },
    ]);
    expect(s.partial.reason).toContain(
      '1 commission suite(s) failed to load, so their cases are unknown (broken-triage: ',
    );
    expect(s.gate.verdict).toBe('not-evaluated');
    expect(last.code).not.toBe(0);
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toContain('failed to load');
    expect(r.stdout).toContain('heldout: partial run:');
  });
});
