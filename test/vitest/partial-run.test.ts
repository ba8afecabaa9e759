import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { expectValidSummary } from '../report/summary-json-schema.js';
import { cleanEnv, execFileP, REPO } from '../scale/figures.js';

/**
 * A `-t` filtered run (Vitest's testNamePattern) of log-triage's nine held-out cases through the real Vitest path:
 * one case runs, eight are filtered. The report must say so, and the gate must not judge the subset as the whole.
 */
async function filteredRun(out: string, gate: Record<string, unknown>) {
  const script = `
    const { runHeldout } = await import(${JSON.stringify(path.join(REPO, 'dist/index.js'))});
    const r = await runHeldout({ commissions: ['tasks/log-triage'], sandbox: 'process', table: true,
      delivery: ${JSON.stringify(path.join(REPO, 'fixtures/deliveries/log-triage-reference'))},
      out: ${JSON.stringify(out)}, gate: ${JSON.stringify(gate)}, judgeCache: false },
      { reporters: ['dot'], testNamePattern: 'h01' });
    console.log(JSON.stringify({ violations: r.violations }));`;
  const r = await execFileP(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO,
    env: cleanEnv(),
    maxBuffer: 16 << 20,
  }).catch((e) => e as { stdout: string; stderr: string });
  const last = r.stdout.trim().split('\n').at(-1) ?? '{}';
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  return { ...JSON.parse(last), summary, stdout: r.stdout, stderr: r.stderr, out };
}

describe('a filtered run', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-partial-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('says partial, names the filtered cases, and its gate is not evaluated (the run does not pass)', async () => {
    const r = await filteredRun(path.join(tmp, 'strict'), { minResult: 50 });
    const s = r.summary;
    expectValidSummary(s);
    const entry = s.commissions[0];
    expect(entry).toMatchObject({ id: 'log-triage', split: 'heldout', notRun: 8, result: { n: 1, mean: 100 } });
    expect(entry.flags).toContain('partial');
    expect(s.partial).toMatchObject({ planned: 9, ran: 1, notRun: 8, shard: null, more: 0 });
    expect(s.partial.reason).toBe('8 of 9 planned executions were not run (8 filtered)');
    expect(s.partial.cases.map((c: any) => c.id)).toEqual([
      'h02-timezones',
      'h03-stacktraces',
      'h04-empty',
      'h05-malformed',
      'h06-one-service',
      'h07-time-window',
      'h08-syslog',
      'h09-jsonl-filter',
    ]);
    for (const c of s.partial.cases) {
      expect(c).toMatchObject({ commission: 'log-triage', delivery: 'log-triage-reference', split: 'heldout' });
      expect(c.why).toBe('filtered');
    }
    expect(s.gate.verdict).toBe('not-evaluated');
    expect(s.gate.evaluatedOn).toBe('subset');
    expect(s.gate.reason).toMatch(/^the run is partial: 8 of 9 planned executions were not run \(8 filtered\); /);
    // The condition's value on the subset is still shown, beside the verdict that does not rest on it.
    expect(s.gate.conditions).toEqual([expect.objectContaining({ condition: 'minResult', value: 100, met: true })]);
    expect(r.violations).toEqual([`gate not evaluated: ${s.gate.reason}`]);
    expect(r.stdout).toContain('heldout: partial run: 8 of 9 planned executions were not run (8 filtered)');
    expect(r.stdout).toContain('heldout gate not evaluated: the run is partial: 8 of 9');
    const md = readFileSync(path.join(r.out, 'report.md'), 'utf8');
    expect(md).toContain('## Gate: NOT EVALUATED');
    expect(md).toContain('> **Partial run**: 8 of 9 planned executions were not run (8 filtered).');
    expect(md).toContain('`h02-timezones` #1 (log-triage · log-triage-reference · heldout, filtered)');
    const html = readFileSync(path.join(r.out, 'index.html'), 'utf8');
    expect(html).toContain('<section id="partial" class="partial" data-not-run="8" data-planned="9">');
    expect(html).toContain('data-verdict="not-evaluated"');
    const junit = readFileSync(path.join(r.out, 'junit.xml'), 'utf8');
    expect(junit.match(/<skipped message="not run: filtered"\/>/g)).toHaveLength(8);
  });

  test('its row follows the pass rule (the gate judged nothing), and the console names the unmet condition', async () => {
    // maxGap on held-out cases alone has no gap to read: unmet on the subset, whatever the Result.
    const r = await filteredRun(path.join(tmp, 'unmet'), { minResult: 50, maxGap: 10 });
    const s = r.summary;
    expectValidSummary(s);
    expect(s.gate.verdict).toBe('not-evaluated');
    expect(s.commissions[0]).toMatchObject({ result: { mean: 100 }, verdict: 'pass' });
    const row = r.stdout.split('\n').find((l: string) => l.startsWith('log-triage '));
    expect(row, r.stdout).toMatch(/ pass /);
    expect(row).not.toMatch(/ fail /);
    expect(r.stdout).toContain(
      '  - unmet on the cases that ran: log-triage (log-triage-reference): no fidelity gap (needs scored dev and held-out cases of the same digest) for maxGap 10',
    );
    expect(r.violations).toEqual([`gate not evaluated: ${s.gate.reason}`]);
  });

  test("with onPartial: 'subset' the gate judges the cases that ran, and says that it did", async () => {
    const r = await filteredRun(path.join(tmp, 'subset'), { minResult: 50, onPartial: 'subset' });
    const s = r.summary;
    expectValidSummary(s);
    expect(s.gate).toMatchObject({ verdict: 'pass', evaluatedOn: 'subset', thresholds: { onPartial: 'subset' } });
    expect(s.gate.reason).toBe('evaluated on the subset that ran: 8 of 9 planned executions were not run (8 filtered)');
    expect(r.violations).toEqual([]);
    expect(readFileSync(path.join(r.out, 'report.md'), 'utf8')).toContain(
      'Evaluated on the subset that ran: 8 of 9 planned executions were not run (8 filtered)',
    );
  });
});
