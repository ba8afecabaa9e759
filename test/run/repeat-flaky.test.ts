/**
 * Issue 34: `heldout run --repeat n` runs each case n times identically and marks the cases whose verdict changed
 * (`flaky` on the row and the entry, a flag, a line in report.md), with the run-to-run noise beside pass^k;
 * `--exclude-flaky` leaves them out of the gate's figures and the gate says so. Real Docker sandboxes, the real
 * gateway in front of the stub model: its script answers the `ask` case right in round 1 and wrong in round 2.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStubServer } from '../../fixtures/stub-openai/server.js';
import { summarizeMetas } from '../../src/report/index.js';
import type { CaseMeta } from '../../src/run/index.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import {
  BIN,
  caseRecords,
  cleanEnv,
  delivery,
  faultCommission,
  scratchDir,
  spawnNode,
  stopStarted,
} from '../hardening/helpers.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);

describe.skipIf(!engine)('--repeat marks flaky cases (docker)', () => {
  const tmp = scratchDir('repeat-flaky');
  const { dir: commission } = faultCommission(tmp.dir, { judge: false });
  mkdirSync(path.join(commission, 'cases/heldout/ask'), { recursive: true });
  writeFileSync(path.join(commission, 'cases/heldout/ask/input.md'), 'Add 1 and 2 (ask the model).\n');
  writeFileSync(path.join(commission, 'cases/heldout/ask/truth.json'), '{"answer": 3}\n');
  const answerer = delivery(tmp.dir, 'by-input', 'fixtures/retry');
  const out = path.join(tmp.dir, 'out');
  let stub: Awaited<ReturnType<typeof startStubServer>>;
  beforeAll(async () => {
    // The only model calls are the `ask` case's, one per round, in round order (--concurrency 1).
    stub = await startStubServer({ script: [{ content: '3' }, { content: '4' }] });
  });
  afterAll(async () => {
    await stopStarted();
    await stub.close();
    tmp.cleanup();
  });

  test('a verdict that changes across identical rounds is flaky; the gate leaves it out only when asked', async () => {
    const env = cleanEnv({
      HELDOUT_RUNTIME_BASE_URL: stub.baseURL,
      HELDOUT_RUNTIME_MODEL: 'runtime-model',
      HELDOUT_RUNTIME_API_KEY: 'sk-runtime-real-key',
    });
    const args = [BIN, 'run', commission, '--delivery', answerer, '--sandbox', 'docker', '--out', out];
    const run = spawnNode(
      [...args, '--concurrency', '1', '--repeat', '2', '--min-result', '100', '--exclude-flaky'],
      env,
    );
    const { code } = await run.exited;
    expect(stub.requests).toHaveLength(2);
    // Held: the one case below the bar is the flaky one, left out — and the console says so.
    expect(code, run.log()).toBe(0);
    expect(run.log()).toMatch(
      /heldout gate: 1 flaky case\(s\) left out \(excludeFlaky\): fault-suite\/[^ ]+\/heldout\/ask#1/,
    );

    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const [entry] = summary.commissions;
    expect(entry.flaky).toEqual(['ask']);
    expect(entry.flags).toContain('flaky');
    // Round 1: all three right (100); round 2: `ask` wrong (200/3).
    expect(entry.noise.rounds).toBe(2);
    expect(entry.noise.range).toBeCloseTo(100 - 200 / 3, 6);
    const rows = Object.fromEntries(entry.cases.map((c: { id: string }) => [c.id, c]));
    expect(rows.ask.flaky).toBe(true);
    expect(rows.ask.repeats.map((r: { passed: boolean }) => r.passed)).toEqual([true, false]);
    expect(rows.ask.passed).toBe(false);
    for (const id of ['h1', 'h2']) expect(rows[id]).toMatchObject({ flaky: false, passed: true });
    expect(summary.gate.thresholds.excludeFlaky).toBe(true);
    expect(summary.gate.excludedFlaky).toHaveLength(1);
    const md = readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(md).toContain('flaky (verdict changed across 2 identical runs): `ask`');
    expect(md).toMatch(/noise ±16\.7/);
    expect(md).toMatch(/excludeFlaky \(1 flaky case left out: fault-suite\/[^ ]+\/heldout\/ask#1\)/);

    // The same records without excludeFlaky: the gate fails on the flaky case it no longer leaves out.
    const metas = caseRecords(out).map((f) => JSON.parse(readFileSync(path.join(out, 'cases', f), 'utf8')) as CaseMeta);
    expect(metas).toHaveLength(3);
    const gate = (excludeFlaky: boolean) =>
      summarizeMetas(metas, summary.run, { gate: { minResult: 100, excludeFlaky } }).gate.verdict;
    expect(gate(false)).toBe('fail');
    expect(gate(true)).toBe('pass');
  });
});
