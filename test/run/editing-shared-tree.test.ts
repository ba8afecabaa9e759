import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadCommission } from '../../src/commission/index.js';
import { RunSession } from '../../src/run/index.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

// An editing delivery's patch is applied once per delivery and every case of it reads that one tree: the entry,
// the hidden command checks and the μ_reg suite. Each of them tries to leave a file in the tree; a later case's
// check sees none, because every sandbox mounts the tree read-only.
const STRAY = ['written-by-entry', 'written-by-regression', 'written-by-check'];

describe('the patched tree an editing delivery shares among its cases', async () => {
  const docker = await engineAnswers(WAIT_MS);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-shared-tree-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  function commissionDir(): string {
    const dir = path.join(tmp, 'todo-due-dates');
    cpSync(path.join(repoRoot, 'tasks/todo-due-dates'), dir, { recursive: true });
    const heldout = path.join(dir, 'cases/heldout');
    for (const c of readdirSync(heldout).sort().slice(2)) rmSync(path.join(heldout, c), { recursive: true });
    const yaml = path.join(dir, 'commission.yaml');
    writeFileSync(
      yaml,
      readFileSync(yaml, 'utf8')
        .replace('entry: python3 todo.py', 'entry: touch written-by-entry 2>/dev/null; python3 todo.py')
        .replace(
          'command: python3 -m unittest discover -s tests',
          "command: 'touch written-by-regression 2>/dev/null; python3 -m unittest discover -s tests'",
        ),
    );
    const rubric = path.join(dir, 'rubric.yaml');
    const untouched = STRAY.map((f) => `test ! -e ${f}`).join(' && ');
    writeFileSync(
      rubric,
      readFileSync(rubric, 'utf8').replace(
        '\nceilings:',
        `  - id: O2
    title: nothing was left in the shared tree
    when: { check: command, run: 'touch written-by-check 2>/dev/null; ${untouched}', points: 0 }
    caps: { due-dates: 0 }

ceilings:`,
      ),
    );
    return dir;
  }

  const backends = docker ? (['process', 'docker'] as const) : (['process'] as const);
  test.each(backends)(
    'on the %s backend, case after case',
    async (sandbox) => {
      const commission = await loadCommission(commissionDir());
      const session = new RunSession({
        runId: `shared-tree-${sandbox}-${process.pid}`,
        out: path.join(tmp, `out-${sandbox}`),
        sandbox,
        concurrency: 1,
        judgeCache: false,
      });
      try {
        const delivery = {
          label: 'reference',
          dir: path.join(repoRoot, 'fixtures/deliveries/todo-due-dates-reference'),
          freeze: null,
          role: 'candidate' as const,
        };
        const metas = [];
        for (const caseRef of commission.cases.heldout) {
          metas.push(await session.runCase({ commission, delivery, caseRef, split: 'heldout', trial: 1 }));
        }
        expect(metas).toHaveLength(2);
        for (const { grade } of metas) {
          expect(
            grade.outcomes.find((o) => o.id === 'O2'),
            JSON.stringify(grade.outcomes),
          ).toMatchObject({
            satisfied: true,
          });
          expect(grade.editing).toMatchObject({ muNew: true, muReg: true });
          expect(grade).toMatchObject({ status: 'graded', passed: true, result: 100 });
        }
      } finally {
        await session.close();
      }
    },
    240_000,
  );
});
