/**
 * A Harbor task's compose sidecar as a case service: built on the engine (from the runtime image, offline), started
 * in the trial's pod before the agent, reached by its service name; the oracle gets the secret from it (reward 1), a
 * nop delivery does not (0), and the service's log is kept beside the case.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { importHarbor } from '../../src/importers/index.js';
import { engineAnswers, ensureRuntimeImage } from '../../src/sandbox/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);

describe.skipIf(!engine)(
  engine ? 'a Harbor task with a compose sidecar' : 'a Harbor sidecar — skipped: no engine',
  () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-svc-'));
    const commission = path.join(root, 'sidecar');
    beforeAll(async () => {
      await ensureRuntimeImage();
      await importHarbor(path.join(repoRoot, 'fixtures/harbor/sidecar-task'), commission);
    });

    const run = async (label: string, args: string[]) => {
      const out = path.join(root, label);
      const r = await heldout(['run', commission, ...args, '--out', out, '--sandbox', 'docker']);
      const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
      return { r, out, c: summary.commissions[0].cases[0] };
    };

    test('the oracle reaches the sidecar by its name: reward 1; its log is kept', async () => {
      const { r, out, c } = await run('oracle', ['--oracle']);
      expect(c, r.out).toMatchObject({ status: 'graded', result: 100 });
      const logs = path.join(out, 'cases/sidecar-secret/oracle/heldout/task-t1.services');
      expect(existsSync(logs) ? readdirSync(logs) : []).toEqual(['api.log']);
    });

    test('a nop delivery: 0', async () => {
      const { r, c } = await run('nop', ['--delivery', path.join(repoRoot, 'fixtures/harbor/nop')]);
      expect(c, r.out).toMatchObject({ status: 'graded', result: 0 });
    });
  },
);
