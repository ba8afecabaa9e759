import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');
const telecomDir = path.resolve(repo, '../shared/data/tau2/telecom');
const deliveries = path.join(repo, 'fixtures/tool-agent/deliveries');
const bin = path.join(repo, 'dist/cli/bin.js');

async function heldout(args: string[]) {
  try {
    const r = await promisify(execFile)('node', [bin, ...args], { cwd: repo, maxBuffer: 64 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * `heldout import tau2 ../shared/data/tau2/telecom`, then `heldout run` of the imported commission (its held-out
 * split, two trials, the process sandbox) with the test oracle and the nop delivery: τ²'s telecom reward (env
 * assertions on the user's phone and the line, plus ACTION where the task names it) with the user's own tools.
 */
describe('τ² telecom imported and run', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-telecom-'));
  const commission = path.join(tmp, 'telecom');
  let imported: any;
  const runs: Record<string, { code: number; out: string; summary: any; dir: string }> = {};
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  beforeAll(async () => {
    expect(existsSync(bin), 'run `npm run build` first').toBe(true);
    const r = await heldout(['import', 'tau2', telecomDir, '--out', commission, '--json']);
    imported = JSON.parse(r.stdout);
    // The test-harness switches: the gold goes to the oracle, and two trials give pass^1 and pass^2.
    const yaml = readFileSync(path.join(commission, 'commission.yaml'), 'utf8');
    writeFileSync(
      path.join(commission, 'commission.yaml'),
      `${yaml.replace('trials: 1', 'trials: 2').replace('  user: scripted', '  user: scripted\n  oracleHints: true')}budgets:\n  wallSeconds: 60\n`,
    );
    await Promise.all(
      ['oracle', 'nop'].map(async (d) => {
        const dir = path.join(tmp, `run-${d}`);
        const res = await heldout([
          'run',
          commission,
          '--delivery',
          path.join(deliveries, d),
          '--sandbox',
          'process',
          '--out',
          dir,
          '--reporter',
          'dot',
        ]);
        const file = path.join(dir, 'summary.json');
        runs[d] = {
          code: res.code,
          out: res.stdout + res.stderr,
          summary: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).commissions[0] : null,
          dir,
        };
      }),
    );
  });

  test('the import: 114 cases (74 dev, 40 held out), every gold call runs on the domain, truth keeps 2.0', () => {
    expect(imported).toMatchObject({ ok: true, kind: 'tau2', id: 'tau2-telecom' });
    expect(imported.goldRefusals).toEqual([]);
    const notes = readFileSync(path.join(commission, 'IMPORT-NOTES.md'), 'utf8');
    expect(notes).toContain('gold replay: every gold call of every task executes on the domain without a tool error');
    const cases = (split: string) => readdirSync(path.join(commission, 'cases', split));
    expect([cases('dev').length, cases('heldout').length]).toEqual([74, 40]);
    const truths = [...cases('dev').map((c) => `dev/${c}`), ...cases('heldout').map((c) => `heldout/${c}`)].map((c) =>
      readFileSync(path.join(commission, 'cases', c, 'truth.json'), 'utf8'),
    );
    expect(truths.filter((t) => t.includes('"gb_amount": 2.0')).length).toBe(50);
    const goal = readFileSync(path.join(commission, 'requirement/01_goal.md'), 'utf8');
    expect(goal).toContain('operates their own device');
  });

  test('the oracle: reward 1 on every held-out task and trial, pass^1 = pass^2 = 1, the user ran its own tools', () => {
    const { code, out, summary, dir } = runs.oracle;
    expect(summary, out).not.toBeNull();
    expect(code, out).toBe(0);
    expect(summary.semantics).toBe('tau2@1.0.1');
    expect(summary.passHatK).toEqual({ 1: 1, 2: 1 });
    expect(summary.cases).toHaveLength(80);
    for (const c of summary.cases) expect(c, `${c.id} t${c.trial}`).toMatchObject({ status: 'graded', passed: true });
    const [label] = readdirSync(path.join(dir, 'cases/tau2-telecom'));
    const root = path.join(dir, 'cases/tau2-telecom', label!, 'heldout');
    const episodes = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => JSON.parse(readFileSync(path.join(root, e.name, 'episode.json'), 'utf8')));
    expect(episodes).toHaveLength(80);
    expect(episodes.every((e) => e.reward === 1 && e.info.semantics === 'tau2@1.0.1')).toBe(true);
    // 28 of the 40 held-out tasks fix something on the phone: the scripted user did it when the oracle asked.
    expect(episodes.filter((e) => e.toolCalls.some((c: any) => c.requestor === 'user')).length).toBe(56);
    expect(episodes.every((e) => e.rewardDetail.info.envAssertions.every((a: any) => a.met))).toBe(true);
  });

  test('nop: reward 0 on every held-out task (every one asserts a fix), pass^k 0', () => {
    const { code, out, summary } = runs.nop;
    expect(summary, out).not.toBeNull();
    expect(code, out).toBe(1);
    expect(summary.passHatK).toEqual({ 1: 0, 2: 0 });
    for (const c of summary.cases) expect(c, `${c.id} t${c.trial}`).toMatchObject({ status: 'graded', result: 0 });
  });
});
