import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { junitCounts, validateJunit } from '../helpers/junit.js';
import { expectValidSummary } from '../report/summary-json-schema.js';
import { cleanEnv, execFileP, REPO } from '../scale/figures.js';

const VITEST = path.join(REPO, 'node_modules/vitest/vitest.mjs');
const OVERFIT = path.join(REPO, 'fixtures/deliveries/log-triage-overfit');

/**
 * Two copies of log-triage (ids `triage-a`, `triage-b`) whose pass rule is 0, run on the overfit delivery: every
 * case test is green while the held-out Result is well under the gate's minResult 80, the job the issue describes.
 */
function project(dir: string): void {
  for (const id of ['triage-a', 'triage-b']) {
    cpSync(path.join(REPO, 'tasks/log-triage'), path.join(dir, id), { recursive: true });
    const yaml = path.join(dir, id, 'commission.yaml');
    const text = readFileSync(yaml, 'utf8');
    const lowered = text
      .replace(/^id: log-triage$/m, `id: ${id}`)
      .replace(/^pass:\n {2}minResult: 80$/m, 'pass:\n  minResult: 0');
    if (lowered === text) throw new Error('commission.yaml of log-triage changed shape: update this fixture');
    writeFileSync(yaml, lowered);
  }
  writeFileSync(
    path.join(dir, 'vitest.config.mjs'),
    `import { heldout } from ${JSON.stringify(path.join(REPO, 'dist/vitest/index.js'))};
export default { plugins: [heldout({ commissions: ['triage-*'], delivery: ${JSON.stringify(OVERFIT)}, sandbox: 'process',
  out: process.env.HELDOUT_OUT, gate: { minResult: 80 }, judgeCache: false, progress: true })] };
`,
  );
}

async function vitest(dir: string, out: string, args: string[]) {
  const r = await execFileP(process.execPath, [VITEST, ...args, '--config', 'vitest.config.mjs'], {
    cwd: dir,
    env: { ...cleanEnv(), HELDOUT_OUT: path.join(dir, out) },
    maxBuffer: 64 << 20,
  }).then(
    (x) => ({ code: 0, stdout: x.stdout, stderr: x.stderr }),
    (e: { code?: number; stdout: string; stderr: string }) => ({
      code: e.code ?? 1,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
  return { ...r, all: `${r.stdout}\n${r.stderr}` };
}

describe('the JUnit files a CI job publishes tell the truth about the gate', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-junit-gate-'));
    project(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("green cases under a failed gate: Vitest's own junit.xml fails the gate, both files validate", async () => {
    const r = await vitest(dir, 'whole', [
      'run',
      '--reporter=default',
      '--reporter=junit',
      '--outputFile.junit=junit.xml',
    ]);
    expect(r.code, r.all).toBe(1);
    expect(r.stdout).toMatch(/triage-a \(log-triage-overfit\): held-out Result \d+\.\d < minResult 80/);
    const junit = readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    const v = await validateJunit(junit);
    expect(v.code, v.out).toBe(0);
    const counts = await junitCounts(junit);
    // 18 case tests, all green, and the two gate conditions, red: the file is as red as the job.
    expect(counts.tests).toBe(20);
    expect(counts.failed.sort()).toEqual([
      'triage-a · log-triage-overfit: minResult',
      'triage-b · log-triage-overfit: minResult',
    ]);
    expect(junit).toContain('<testsuite name="heldout gate"');
    expect(junit).toMatch(
      /<failure message="triage-b \(log-triage-overfit\): held-out Result \d+\.\d &lt; minResult 80"/,
    );
    const own = readFileSync(path.join(dir, 'whole/junit.xml'), 'utf8');
    expect((await validateJunit(own)).code).toBe(0);
    expect((await junitCounts(own)).failed).toHaveLength(2);
    // Progress counts both commission files' 18 executions from its first line on.
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('heldout: ') && l.includes(' cases · '));
    expect(lines.length, r.stderr).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^heldout: \d+\/18 cases · /);
    expect(lines.at(-1)).toMatch(/^heldout: 18\/18 cases · 0 failed · /);
  });

  test('sharded: each shard defers the gate (exit 0), the merge evaluates it on the whole run (exit 1)', async () => {
    for (const i of [1, 2]) {
      const r = await vitest(dir, `shard-${i}`, [
        'run',
        `--shard=${i}/2`,
        '--reporter=blob',
        `--outputFile.blob=blobs/blob-${i}.json`,
        '--reporter=junit',
        `--outputFile.junit=shard-${i}.xml`,
      ]);
      expect(r.code, r.all).toBe(0);
      expect(r.stdout).toContain(
        `heldout gate deferred to the merge: this is shard ${i}/2: the gate is evaluated on the merged run (vitest --merge-reports)`,
      );
      expect(r.stdout).toMatch(/ {2}- unmet on this shard: triage-[ab] \(log-triage-overfit\): held-out Result/);
      const s = JSON.parse(readFileSync(path.join(dir, `shard-${i}/summary.json`), 'utf8'));
      expectValidSummary(s);
      expect(s.gate.verdict).toBe('deferred');
      const junit = readFileSync(path.join(dir, `shard-${i}.xml`), 'utf8');
      expect((await validateJunit(junit)).code).toBe(0);
      expect((await junitCounts(junit)).failures).toBe(0);
      expect(junit).toMatch(/name="triage-[ab] · log-triage-overfit: minResult"[^>]*>\s*<skipped\/>/);
    }
    expect(existsSync(path.join(dir, 'blobs/blob-2.json'))).toBe(true);
    const merged = await vitest(dir, 'merged', [
      '--merge-reports=blobs',
      '--reporter=default',
      '--reporter=junit',
      '--outputFile.junit=merged.xml',
    ]);
    expect(merged.code, merged.all).toBe(1);
    const s = JSON.parse(readFileSync(path.join(dir, 'merged/summary.json'), 'utf8'));
    expect(s.partial).toBeNull();
    expect(s.gate.verdict).toBe('fail');
    expect(s.gate.conditions.map((c: any) => [c.commission, c.met])).toEqual([
      ['triage-a', false],
      ['triage-b', false],
    ]);
    expect((await junitCounts(readFileSync(path.join(dir, 'merged.xml'), 'utf8'))).failed).toHaveLength(2);
  });
});
