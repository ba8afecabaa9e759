/**
 * `--concurrency N` through `heldout run` (issue 24): at most N entry commands run at once on every backend, whatever
 * is prepared meanwhile. On docker the cases queued behind the running ones are staged and their containers started
 * ahead, holding before the command until a turn frees (so the container's start is off the case's critical path);
 * on the process backend the session holds the turn around the whole run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
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
import { WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);
const BACKENDS = [
  { name: 'docker' as const, skip: engine ? null : 'no docker engine answers' },
  { name: 'process' as const, skip: null },
];

/** The most intervals that hold one instant in common. */
function maxOverlap(intervals: [number, number][]): number {
  const events = intervals.flatMap(([a, b]) => [
    [a, 1],
    [b, -1],
  ]);
  // An end before a start at the same instant: back to back is not overlapping.
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of events) {
    now += d;
    most = Math.max(most, now);
  }
  return most;
}

describe.each(BACKENDS)('--concurrency 2 on the $name backend', ({ name: backend, skip }) => {
  const tmp = scratchDir(`turns-${backend}`);
  afterEach(() => stopStarted());
  afterAll(() => tmp.cleanup());

  test.skipIf(skip !== null)(
    `never more than 2 commands at once, every case graded${skip ? ` — skipped: ${skip}` : ''}`,
    async () => {
      const runId = testRunId(`turns-${backend}`);
      const { dir } = faultCommission(path.join(tmp.dir, runId), { judge: false });
      const answer = delivery(tmp.dir, 'slow-answer', 'fixtures/hardening');
      // The same answer, with the command's own start and end written beside it (nanoseconds since the epoch).
      const timed = path.join(tmp.dir, 'deliveries', 'timed');
      mkdirSync(timed, { recursive: true });
      writeFileSync(path.join(timed, 'agent.py'), readFileSync(path.join(answer, 'agent.py')));
      writeFileSync(
        path.join(timed, 'run.sh'),
        'date +%s%N > "$2/started"\nsleep 2\npython3 agent.py "$@"\ndate +%s%N > "$2/ended"\n',
      );
      const out = path.join(tmp.dir, runId, 'out');
      const run = spawnNode(
        [
          BIN,
          'run',
          dir,
          '--delivery',
          timed,
          '--sandbox',
          backend,
          '--out',
          out,
          '--concurrency',
          '2',
          '--trials',
          '3',
        ],
        cleanEnv({ HELDOUT_RUN_ID: runId, HELDOUT_MAX_SANDBOXES: '8' }),
      );
      let mostContainers = 0;
      while (run.child.exitCode === null && backend === 'docker') {
        mostContainers = Math.max(mostContainers, (await runningContainers(runId)).length);
        await new Promise((r) => setTimeout(r, 100));
      }
      const ended = await run.exited;
      expect(ended.code, run.log()).toBe(0);
      const records = caseRecords(out).map((r) => path.join(out, 'cases', r));
      expect(records).toHaveLength(6);
      const intervals = records.map((record) => {
        const outputs = record.replace(/\.meta\.json$/, '');
        const read = (f: string) => Number(readFileSync(path.join(outputs, f), 'utf8').trim()) / 1e6;
        return [read('started'), read('ended')] as [number, number];
      });
      expect(maxOverlap(intervals)).toBeLessThanOrEqual(2);
      for (const r of records) expect(JSON.parse(readFileSync(r, 'utf8')).grade.passed, r).toBe(true);
      // Docker: the queued cases' containers were up while two commands ran.
      if (backend === 'docker') {
        expect(mostContainers).toBeGreaterThan(2);
        expect(await dockerLeftovers(runId)).toEqual([]);
      }
    },
  );
});
