import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { hangDeadlineMs } from '../helpers/deadlines.js';

// The plumbing of the performance suite, never its numbers: `bench/run.mjs --quick` runs every part on tiny sizes
// and writes a results JSON of the agreed shape plus its Markdown table. No timing assertions (DESIGN: performance
// belongs in bench/).
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);
const out = mkdtempSync(path.join(os.tmpdir(), 'heldout-bench-smoke-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const PARTS = ['sandbox', 'gateway', 'taste', 'reporter', 'judge-cache', 'scale'];

describe('bench/run.mjs --quick', () => {
  test('runs every part and writes latest.json and latest.md of the agreed shape', async () => {
    const r = await run(process.execPath, ['bench/run.mjs', '--quick', '--out', out], {
      cwd: repoRoot,
      maxBuffer: 16 << 20,
      // bench/run.mjs ends a part after 180 s in --quick; on a busy machine the sandbox part alone can take that.
      // The test's deadline is the hang deadline, not the bench's (0, none, would make the bench kill at once).
      env: { ...process.env, HELDOUT_BENCH_PART_TIMEOUT_MS: String(hangDeadlineMs() || 2 ** 31 - 1) },
    });
    expect(r.stdout).toContain('Wrote ');

    const doc = JSON.parse(readFileSync(path.join(out, 'latest.json'), 'utf8'));
    expect(Number.isNaN(Date.parse(doc.date))).toBe(false);
    expect(doc.quick).toBe(true);
    expect(doc.machine).toMatchObject({ cpus: expect.any(Number), mem: expect.any(Number), node: process.version });
    expect(doc.machine).toHaveProperty('docker');
    expect(Object.keys(doc.parts).sort()).toEqual([...PARTS].sort());

    const table = readFileSync(path.join(out, 'latest.md'), 'utf8');
    expect(table).toContain('| part | metric | median | min–max | baseline (median) | ratio | goal | met |');
    for (const [part, result] of Object.entries<any>(doc.parts)) {
      expect(result.error, `${part} crashed`).toBeUndefined();
      // Only the docker parts may be skipped, and only when no engine answers.
      if (result.skipped) expect(['sandbox', 'scale']).toContain(part);
      else expect(result.metrics.length, part).toBeGreaterThan(0);
      for (const m of result.metrics) {
        expect(m).toMatchObject({ name: expect.any(String), unit: expect.any(String) });
        for (const k of ['median', 'min', 'max']) expect(Number.isFinite(m[k]), `${m.name} ${k}`).toBe(true);
        expect(m.min).toBeLessThanOrEqual(m.median);
        expect(m.median).toBeLessThanOrEqual(m.max);
        if (m.baseline) {
          expect(Number.isFinite(m.baseline.median)).toBe(true);
          expect(m).toHaveProperty('ratio');
        }
        if (m.goal) {
          expect(['median', 'ratio']).toContain(m.goal.on);
          expect(typeof m.met).toBe('boolean');
        }
        expect(table).toContain(m.name);
      }
    }
    // The judge cache is measured, not timed: a repeat of an unchanged delivery costs nothing, the baseline does.
    const tokens = doc.parts['judge-cache'].metrics.find((m: any) => m.unit === 'tokens');
    expect(tokens).toMatchObject({ median: 0, met: true });
    expect(tokens.baseline.median).toBeGreaterThan(0);
    // The scale part's runs leave no container behind, whatever their size.
    if (!doc.parts.scale.skipped) {
      const left = doc.parts.scale.metrics.filter((m: any) => m.unit === 'containers');
      expect(left.length).toBeGreaterThan(0);
      for (const m of left) expect(m, m.name).toMatchObject({ median: 0, met: true });
    }
  });

  test('rejects an unknown part without writing results (usage error, exit 2)', async () => {
    const elsewhere = path.join(out, 'usage');
    const err = await run(process.execPath, ['bench/run.mjs', '--only', 'nope', '--out', elsewhere], {
      cwd: repoRoot,
    }).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain('unknown part(s): nope');
    expect(existsSync(elsewhere)).toBe(false);
  });
});
