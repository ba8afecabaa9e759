/**
 * Issue 34: `heldout run --resume --retry <classes>` reruns only the recorded cases of those failure classes, keeps
 * each earlier complete attempt in the case's record, and a run SIGKILLed at any point (while cases run, while the
 * report is written, in the middle of a retry) then resumed leaves every case exactly once in summary.json with its
 * last complete attempt, and none of the runs' containers behind. Real Docker sandboxes, the real CLI.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import { engineAnswers } from '../../src/sandbox/index.js';
import {
  BIN,
  caseRecords,
  cleanEnv,
  delivery,
  dockerLeftovers,
  faultCommission,
  runningContainers,
  scratchDir,
  spawnNode,
  stopStarted,
  testRunId,
} from '../hardening/helpers.js';
import { UNTIL, WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);

/** Cases of the fault-suite commission beside its own h1 and h2 (both answered right): one per failure class. */
const EXTRA = { 'c-crash': 'crash', 'c-wrong': 'wrong', 'c-slow': 'slow' } as const;

type Meta = {
  runId: string;
  grade: { id: string; status: string; gate: string | null };
  attempts?: { runId: string }[];
};

describe.skipIf(!engine)('resume --retry by failure class (docker)', () => {
  const tmp = scratchDir('resume-retry');
  const { dir: commission } = faultCommission(tmp.dir, { budgets: { wallSeconds: 10 }, judge: false });
  for (const [id, what] of Object.entries(EXTRA)) {
    mkdirSync(path.join(commission, 'cases/heldout', id), { recursive: true });
    writeFileSync(path.join(commission, 'cases/heldout', id, 'input.md'), `Add 1 and 2 (${what}).\n`);
    writeFileSync(path.join(commission, 'cases/heldout', id, 'truth.json'), '{"answer": 3}\n');
  }
  const answerer = delivery(tmp.dir, 'by-input', 'fixtures/retry');
  const out = path.join(tmp.dir, 'out');
  const runIds: string[] = [];
  afterEach(() => stopStarted());
  afterAll(() => tmp.cleanup());

  function start(extra: string[]) {
    const runId = testRunId('retry');
    runIds.push(runId);
    const args = [BIN, 'run', commission, '--delivery', answerer, '--sandbox', 'docker', '--out', out];
    const run = spawnNode([...args, '--concurrency', '2', ...extra], cleanEnv({ HELDOUT_RUN_ID: runId }));
    return { runId, ...run };
  }
  const records = (): Map<string, Meta & { mtimeMs: number }> =>
    new Map(
      caseRecords(out).map((rel) => {
        const file = path.join(out, 'cases', rel);
        const meta = JSON.parse(readFileSync(file, 'utf8')) as Meta;
        return [meta.grade.id, { ...meta, mtimeMs: statSync(file).mtimeMs }];
      }),
    );
  /** Runs to the end; then every case is in summary.json exactly once, as its record on disk says. */
  async function complete(extra: string[]) {
    const run = start(extra);
    const { code } = await run.exited;
    expect(code, run.log()).toBe(1);
    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const rows = summary.commissions.flatMap((c: { cases: { id: string }[] }) => c.cases);
    expect(rows.map((r: { id: string }) => r.id).sort()).toEqual(['c-crash', 'c-slow', 'c-wrong', 'h1', 'h2']);
    for (const [id, meta] of records()) {
      const row = rows.find((r: { id: string }) => r.id === id);
      expect({ status: row.status, gate: row.gate, attempts: row.attempts?.length ?? 0 }).toEqual({
        status: meta.grade.status,
        gate: meta.grade.gate,
        attempts: meta.attempts?.length ?? 0,
      });
    }
    return { run, rows };
  }
  /** SIGKILLs the heldout process (not its workers: they must tear down by themselves) once `when` holds. */
  async function killWhen(run: ReturnType<typeof start>, when: () => boolean | Promise<boolean>) {
    await vi.waitUntil(async () => {
      if (run.child.exitCode !== null) throw new Error(`the run ended before the kill:\n${run.log()}`);
      return when();
    }, UNTIL);
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
  }

  test('killed while cases run, resumed, then retried by class and killed in the retry and in the report', async () => {
    // 1. Killed once the first case is recorded: the others are mid-run or not reached.
    const first = start([]);
    await killWhen(first, () => caseRecords(out).length >= 1);
    // 2. Resumed to the end without --retry: every case once, the crash and the sleep kept as they failed.
    await complete(['--resume']);
    const before = records();
    expect(before.size).toBe(5);
    expect(before.get('c-crash')?.grade).toMatchObject({ status: 'gate-failed', gate: 'error-exit' });
    expect(before.get('c-slow')?.grade).toMatchObject({ status: 'gate-failed', gate: 'timeout' });
    expect(before.get('c-wrong')?.grade).toMatchObject({ status: 'graded' });

    // 3. A retry killed while its sandboxes run: what it had not finished keeps its last complete attempt.
    const retry = ['--resume', '--retry', 'error-exit,timeout'];
    const third = start(retry);
    await killWhen(third, async () => (await runningContainers(third.runId)).length >= 1);
    const mid = records();
    expect(mid.size).toBe(5);
    for (const id of ['c-crash', 'c-slow']) {
      const m = mid.get(id)!;
      expect(m.grade.gate).toBe(before.get(id)?.grade.gate);
      // Either step 2's record, untouched, or a complete retry that kept it as its first attempt.
      expect(m.runId === before.get(id)?.runId || m.attempts?.[0]?.runId === before.get(id)?.runId).toBe(true);
    }

    // 4. Killed as the report is being written: every retried case has its fresh record by then.
    const fourth = start(retry);
    await killWhen(fourth, () => ['c-crash', 'c-slow'].every((id) => records().get(id)?.runId === fourth.runId));

    // 5. A plain resume reruns nothing (no infra errors) and writes the report the kill cut short.
    const { rows } = await complete(['--resume']);
    const after = records();
    for (const id of ['h1', 'h2', 'c-wrong']) {
      // Not of a class retried: never run again, the record untouched since step 2.
      expect(after.get(id)?.mtimeMs).toBe(before.get(id)?.mtimeMs);
      expect(after.get(id)?.attempts).toBeUndefined();
    }
    for (const id of ['c-crash', 'c-slow']) {
      const meta = after.get(id)!;
      expect(meta.runId).toBe(fourth.runId);
      // Step 2's attempt is kept, oldest first (step 3 may have finished one of them too before its kill).
      expect(meta.attempts?.[0]?.runId).toBe(before.get(id)?.runId);
      expect(rows.find((r: { id: string }) => r.id === id).attempts).toHaveLength(meta.attempts!.length);
    }
    // Workers of the killed runs tear down by themselves; the next run's sweep takes whatever they could not.
    await vi.waitUntil(
      async () => (await Promise.all(runIds.map(dockerLeftovers))).every((l) => l.length === 0),
      UNTIL,
    );
  });

  test('an unknown failure class, --retry without --resume, or --exclude-flaky without --repeat is refused (exit 2)', async () => {
    const bogus = start(['--resume', '--retry', 'timeout,flakey']);
    const { code } = await bogus.exited;
    expect(code).toBe(2);
    expect(bogus.log()).toMatch(
      /--retry: unknown failure class "flakey"; the classes are gate-failed, unscored, infra-error, failed, error-exit/,
    );
    const alone = start(['--retry', 'timeout']);
    expect((await alone.exited).code).toBe(2);
    expect(alone.log()).toContain('--retry reruns the cases of an earlier run: it needs --resume');
    const unrepeated = start(['--exclude-flaky']);
    expect((await unrepeated.exited).code).toBe(2);
    expect(unrepeated.log()).toContain('--exclude-flaky needs --repeat n (n ≥ 2) to find flaky cases');
  });
});
