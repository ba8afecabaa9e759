/**
 * Harbor schema 1.4 run as Harbor runs it (fixtures/harbor/separate-verifier, through `heldout run --sandbox
 * docker`): the verifier in its own container built from tests/Dockerfile, seeing the declared artifact at its path,
 * /logs/artifacts and what a `[[verifier.collect]]` hook snapshotted in the main container — and nothing else the
 * agent left (its /tmp, its /app). The oracle scores 1 only so; a nop delivery scores 0. Per step
 * (fixtures/harbor/separate-verifier-steps): a shared step sees the agent's container, a separate one only its own.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadCommission } from '../../src/commission/index.js';
import { importHarbor } from '../../src/importers/index.js';
import { engineAnswers, ensureRuntimeImage } from '../../src/sandbox/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);

describe.skipIf(!engine)(engine ? 'a separate verifier environment' : 'separate verifier — skipped: no engine', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-sepv-'));
  const commission = path.join(root, 'task');
  beforeAll(async () => {
    await ensureRuntimeImage();
    await importHarbor(path.join(repoRoot, 'fixtures/harbor/separate-verifier'), commission);
  });

  const run = async (label: string, args: string[]) => {
    const out = path.join(root, label);
    const r = await heldout(['run', commission, ...args, '--out', out, '--sandbox', 'docker']);
    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    return { r, out, c: summary.commissions[0].cases[0] };
  };

  test('imported as Harbor resolves it: separate, built from tests/, one main-container collect hook', async () => {
    const h = (await loadCommission(commission)).config.harbor!;
    expect(h.verifier.separate).toMatchObject({ image: null, context: 'harbor/tests', dockerfile: 'Dockerfile' });
    expect(readFileSync(path.join(commission, 'IMPORT-NOTES.md'), 'utf8')).toContain(
      "| `tests/Dockerfile` | the separate verifier's image build context (tests/Dockerfile builds it; the image owns /tests)",
    );
    expect(h.verifier.collect).toEqual([
      { command: 'cp /app/state.txt /logs/artifacts/state-snapshot.txt', timeoutSeconds: 10, user: null },
    ]);
  });

  test('the oracle: reward 1, the verifier having seen only what was handed over', async () => {
    const { r, out, c } = await run('oracle', ['--oracle']);
    expect(c, r.out.slice(-3000)).toMatchObject({ status: 'graded', result: 100 });
    const found: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const p = path.join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else found.push(path.relative(out, p));
      }
    };
    walk(out);
    // The verifier image's build log is kept with the case.
    expect(found.some((f) => /verifier-build-task\.log$/.test(f))).toBe(true);
  });

  test('a nop delivery: 0, with the verifier saying what it lacked', async () => {
    const { r, out, c } = await run('nop', ['--delivery', path.join(repoRoot, 'fixtures/harbor/nop')]);
    expect(c, r.out.slice(-3000)).toMatchObject({ status: 'graded', result: 0 });
    const stdout = readFileSync(
      path.join(out, 'cases/separate-verifier/nop/heldout/task-t1/verifier/test-stdout.txt'),
      'utf8',
    );
    expect(stdout).toMatch(/no convention artifact/);
    const trial = JSON.parse(
      readFileSync(path.join(out, 'cases/separate-verifier/nop/heldout/task-t1/harbor-trial.json'), 'utf8'),
    );
    // The hook's cp failed (no /app/state.txt): recorded, never fatal, as Harbor logs it.
    expect(trial.steps[0].warnings.join('\n')).toMatch(/collect hook `cp \/app\/state\.txt/);
  });
});

describe.skipIf(!engine)(
  engine ? 'separate verifiers per step' : 'separate verifiers per step — skipped: no engine',
  () => {
    test('step one shared, step two in its own environment (built from tests/, its workdir): the oracle scores 1 on each', async () => {
      await ensureRuntimeImage();
      const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-sepv-steps-'));
      const commission = path.join(root, 'task');
      await importHarbor(path.join(repoRoot, 'fixtures/harbor/separate-verifier-steps'), commission);
      const h = (await loadCommission(commission)).config.harbor!;
      expect(h.steps.map((s) => [s.name, s.verifier.separate?.workdir ?? null])).toEqual([
        ['one', null],
        ['two', '/workspace'],
      ]);
      const out = path.join(root, 'out');
      const r = await heldout(['run', commission, '--oracle', '--out', out, '--sandbox', 'docker']);
      const trialDir = path.join(out, 'cases/separate-verifier-steps/oracle/heldout/task-t1');
      const trial = JSON.parse(readFileSync(path.join(trialDir, 'harbor-trial.json'), 'utf8'));
      expect(
        trial.steps.map((s: { name: string; rewards: unknown }) => [s.name, s.rewards]),
        r.out.slice(-3000),
      ).toEqual([
        ['one', { reward: 1 }],
        ['two', { reward: 1 }],
      ]);
    });
  },
);
