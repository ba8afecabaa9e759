/**
 * Issue 17, item 3: the signals an operator (CI, a supervisor, `kill`) sends to the heldout process itself — not
 * to its process group. SIGINT, SIGTERM and SIGHUP stop the run's Vitest workers and remove its sandboxes before
 * heldout exits with the signal's code; no worker goes on writing case records. After SIGKILL the workers tear
 * down by themselves; if they are killed too, the next run's sweep (or `heldout gc`) collects what is left, and a
 * live run's sandboxes are never touched by either.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { engineAnswers } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import {
  alive,
  BIN,
  caseRecords,
  childrenOf,
  cleanEnv,
  delivery,
  dockerLeftovers,
  faultCommission,
  markerProcesses,
  runCgroups,
  runningContainers,
  scratchDir,
  spawnNode,
  stopStarted,
  testRunId,
  waitFor,
} from './helpers.js';

const execFileP = promisify(execFile);
const engine = await engineAnswers(WAIT_MS);
const BACKENDS = [
  { name: 'docker' as const, skip: engine ? null : 'no docker engine answers' },
  { name: 'process' as const, skip: null },
];

describe.each(BACKENDS)('operator signals to the heldout process ($name backend)', ({ name: backend, skip }) => {
  const tmp = scratchDir(`signals-${backend}`);
  let sleeper: string;
  afterEach(() => stopStarted());
  afterAll(() => tmp.cleanup());
  beforeAll(() => {
    sleeper = delivery(tmp.dir, 'slow-answer', 'fixtures/hardening');
  });

  /** A run of two long cases at once; resolves once a sandbox runs, with its marker and the workers' pids. */
  async function startRun(label: string) {
    const runId = testRunId(`${label}-${backend}`);
    const marker = `600.${Date.now() % 1_000_000}${Math.floor(Math.random() * 1000)}`;
    const { dir } = faultCommission(path.join(tmp.dir, runId), {
      budgets: { wallSeconds: 900 },
      env: { FAULT_SLEEP: marker },
      judge: false,
    });
    const out = path.join(tmp.dir, runId, 'out');
    const run = spawnNode(
      [BIN, 'run', dir, '--delivery', sleeper, '--sandbox', backend, '--out', out, '--concurrency', '2'],
      cleanEnv({ HELDOUT_RUN_ID: runId }),
    );
    const live = async () =>
      backend === 'docker' ? (await runningContainers(runId)).length : markerProcesses(marker).length;
    await waitFor(async () => {
      if (run.child.exitCode !== null) throw new Error(`the run ended early:\n${run.log()}`);
      // One is enough to signal a run in the middle (the engine's slots are shared with every other run here).
      return (await live()) >= 1;
    }, 'a sandbox to run');
    return { runId, marker, out, dir, run, workers: childrenOf(run.child.pid!) };
  }

  /** What of a run is still there: its containers, volumes and networks, its sandbox processes and cgroups. */
  async function leftovers(runId: string, marker: string): Promise<string[]> {
    const procs = markerProcesses(marker).map((p) => `process ${p}`);
    if (backend === 'docker') return [...(await dockerLeftovers(runId)), ...procs];
    return [...procs, ...runCgroups(runId)];
  }

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    test.skipIf(skip)(
      `${signal} stops the workers and leaves nothing running${skip ? ` — skipped: ${skip}` : ''}`,
      async () => {
        const r = await startRun(signal.toLowerCase());
        expect(r.workers.length, 'the run has Vitest workers').toBeGreaterThan(0);
        process.kill(r.run.child.pid!, signal);
        const ended = await r.run.exited;
        // What is gone is gone by the time heldout has exited: nothing is left to finish in the background.
        expect(await leftovers(r.runId, r.marker), r.run.log()).toEqual([]);
        expect(r.workers.filter(alive), 'no orphaned worker').toEqual([]);
        // Vitest exits with the signal's code; with no handler of its own (SIGHUP) the signal is re-raised.
        expect([128 + constants.signals[signal], signal], r.run.log()).toContain(ended.code ?? ended.signal);
        expect(r.run.log()).toContain(`stopped by ${signal}`);
        // Both cases were cut short: neither is a verdict, so neither is recorded (--resume runs them again).
        expect(caseRecords(r.out)).toEqual([]);
      },
    );
  }

  test.skipIf(skip)(
    `SIGKILL: the workers see their parent gone, remove their sandboxes and exit${skip ? ` — skipped: ${skip}` : ''}`,
    async () => {
      const r = await startRun('sigkill');
      process.kill(r.run.child.pid!, 'SIGKILL');
      await r.run.exited;
      await waitFor(() => r.workers.every((p) => !alive(p)), 'the orphaned workers to exit');
      expect(await leftovers(r.runId, r.marker)).toEqual([]);
      expect(caseRecords(r.out)).toEqual([]);
    },
  );

  test.skipIf(skip)(
    `SIGKILL of the run and its workers: --resume sweeps the leftovers first, never a live run's${skip ? ` — skipped: ${skip}` : ''}`,
    async () => {
      const dead = await startRun('dead');
      // Everything at once, as the OOM killer or a `kill -9` of the whole tree would.
      for (const pid of [dead.run.child.pid!, ...dead.workers]) process.kill(pid, 'SIGKILL');
      await dead.run.exited;
      await waitFor(() => dead.workers.every((p) => !alive(p)), 'the workers to die');
      if (backend === 'docker') expect(await dockerLeftovers(dead.runId)).not.toEqual([]);
      else expect(runCgroups(dead.runId)).not.toEqual([]);

      const live = await startRun('live');
      // Continue the dead run, its cases quick this time: it starts by collecting what the dead one left.
      const yaml = path.join(dead.dir, 'commission.yaml');
      writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(dead.marker, '0'));
      const resumed = spawnNode(
        [BIN, 'run', dead.dir, '--delivery', sleeper, '--sandbox', backend, '--out', dead.out, '--resume'],
        cleanEnv({ HELDOUT_RUN_ID: `${dead.runId}-resumed` }),
      );
      const ended = await resumed.exited;
      expect(ended.code, resumed.log()).toBe(0);
      expect(await leftovers(dead.runId, dead.marker)).toEqual([]);
      const summary = JSON.parse(readFileSync(path.join(dead.out, 'summary.json'), 'utf8'));
      expect(summary.commissions[0].cases.map((c: { status: string }) => c.status)).toEqual(['graded', 'graded']);
      // The live run's sandboxes are its own: the sweep kept them, and `heldout gc --run` keeps them too.
      expect((await leftovers(live.runId, live.marker)).length).toBeGreaterThan(0);
      const gc = await execFileP(process.execPath, [BIN, 'gc', '--run', live.runId], { env: cleanEnv() });
      expect(gc.stdout).toMatch(/kept [1-9]/);
      expect((await leftovers(live.runId, live.marker)).length).toBeGreaterThan(0);
      process.kill(live.run.child.pid!, 'SIGTERM');
      await live.run.exited;
      expect(await leftovers(live.runId, live.marker)).toEqual([]);
    },
  );

  test.skipIf(skip)(
    `heldout gc --run collects what a run killed with its workers left${skip ? ` — skipped: ${skip}` : ''}`,
    async () => {
      const dead = await startRun('gc');
      for (const pid of [dead.run.child.pid!, ...dead.workers]) process.kill(pid, 'SIGKILL');
      await dead.run.exited;
      await waitFor(() => dead.workers.every((p) => !alive(p)), 'the workers to die');
      expect((await leftovers(dead.runId, dead.marker)).length).toBeGreaterThan(0);
      const gc = await execFileP(process.execPath, [BIN, 'gc', '--run', dead.runId, '--json'], { env: cleanEnv() });
      expect(JSON.parse(gc.stdout).kept).toBe(0);
      expect(await leftovers(dead.runId, dead.marker)).toEqual([]);
    },
  );
});
