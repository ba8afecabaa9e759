/**
 * Issue 17, item 7: a delivery that changes while its cases run. The refusal names the changed files (as a refusal
 * before the run does), the case that ran on the changed tree fails the constraint gate, the delivery's later cases
 * are refused, and a summary.json of what ran is still written — the console never says "no case was run".
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { engineAnswers } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import {
  BIN,
  cleanEnv,
  delivery,
  faultCommission,
  scratchDir,
  spawnNode,
  stopStarted,
  testRunId,
  waitFor,
} from './helpers.js';

const engine = await engineAnswers(WAIT_MS);

describe.each([
  { backend: 'docker', skip: engine ? null : 'no docker engine answers' },
  { backend: 'process', skip: null },
])('a delivery changed during the run ($backend backend)', ({ backend, skip }) => {
  const tmp = scratchDir(`tamper-${backend}`);
  afterEach(() => stopStarted());
  afterAll(() => tmp.cleanup());

  test.skipIf(skip)(
    `is refused naming the files, and what ran is reported${skip ? ` — skipped: ${skip}` : ''}`,
    async () => {
      const dir = delivery(tmp.dir, 'slow-answer', 'fixtures/hardening');
      // Long enough that the first case is still running when the tree changes under it.
      const { dir: commission } = faultCommission(tmp.dir, { judge: false, env: { FAULT_SLEEP: '8' } });
      const out = path.join(tmp.dir, 'out');
      const run = spawnNode(
        [BIN, 'run', commission, '--delivery', dir, '--sandbox', backend, '--out', out, '--concurrency', '1'],
        cleanEnv({ HELDOUT_RUN_ID: testRunId(`tamper-${backend}`) }),
      );
      const first = path.join(out, 'cases', 'fault-suite', 'slow-answer', 'heldout', 'h1-t1');
      await waitFor(() => existsSync(first), 'the first case to start');
      appendFileSync(path.join(dir, 'agent.py'), '\n# changed while the run was going on\n');
      writeFileSync(path.join(dir, 'planted.txt'), 'x');
      const ended = await run.exited;
      const log = run.log();
      expect(ended.code, log).toBe(1);
      expect(log).toMatch(/refused: delivery .* changed during the run .*changed: agent\.py; added: planted\.txt/);
      expect(log).not.toContain('no case was run');
      const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
      const cases = summary.commissions[0].cases as { id: string; status: string; gate: string; reason: string }[];
      // The case that ran on the changed tree is in the report, failed by the constraint gate; h2 never ran.
      expect(cases.map((c) => [c.id, c.status, c.gate])).toEqual([['h1', 'gate-failed', 'constraint-violation']]);
      expect(cases[0].reason).toMatch(/changed: agent\.py; added: planted\.txt/);
      expect(log).toMatch(/h2[\s\S]*refused: delivery/);
      expect(log).toContain('1 case test(s) have no grade and are not in the report');
      // Its record says it ran on a changed tree, so --resume (once the delivery is restored) runs it again.
      const record = JSON.parse(readFileSync(`${first}.meta.json`, 'utf8'));
      expect(record.refused).toMatch(/agent\.py/);
    },
  );
});
