import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FAMILIES } from '../../src/commission/index.js';
import { applyPatchOnce, FAMILY_STRATEGIES, familyStrategy, gradeCase } from '../../src/grading/index.js';
import { editingCase } from './editing-helpers.js';
import { caseRef, execution, fixtures, makeCommission, oneDimension, outputDir, shRunner } from './helpers.js';
import { tmpDir } from './judge-helpers.js';

describe('the family strategies', () => {
  test('are registered under exactly the families a commission may name', () => {
    expect(Object.keys(FAMILY_STRATEGIES).sort()).toEqual([...FAMILIES].sort());
    for (const f of FAMILIES) expect(familyStrategy(f)).toBe(FAMILY_STRATEGIES[f]);
  });

  test('an unknown family fails naming the known ones and where to register one', () => {
    expect(() => familyStrategy('translation')).toThrow(
      /unknown family "translation": heldout knows creation, editing, optimization, tool-agent, harbor .*src\/grading\/families\/index\.ts/,
    );
    expect(() => familyStrategy('toString')).toThrow(/unknown family "toString"/);
  });

  test('a case of an unknown family is kept, as an infra-error saying so', async () => {
    const c = makeCommission({}, oneDimension([{ check: 'exists', file: 'a.txt', points: 100 }]));
    const commission = { ...c, config: { ...c.config, family: 'translation' as never } };
    const g = await gradeCase({
      commission,
      caseRef: caseRef(),
      trial: 1,
      execution: execution(),
      outputDir: outputDir({ 'a.txt': 'x' }),
      judge: null,
      cacheDir: null,
    });
    expect(g).toMatchObject({ id: 'case-1', status: 'infra-error', result: null, passed: false });
    expect(g.reason).toMatch(/^the grader failed: unknown family "translation"/);
  });

  test('optimization runs its starter as the a0 baseline beside every candidate; no starter, no baseline', () => {
    const { optimization, creation } = FAMILY_STRATEGIES;
    expect(optimization.baseline?.({ starterDir: '/c/starter' })).toEqual({ label: 'a0', dir: '/c/starter' });
    expect(optimization.baseline?.({ starterDir: null })).toBeNull();
    expect(creation.baseline).toBeUndefined();
  });

  test('editing makes the patched tree once per delivery, where the entry then runs', async () => {
    const delivery = tmpDir('heldout-delivery-');
    const scratch = tmpDir('heldout-scratch-');
    const { commission } = editingCase('good.patch');
    copyFileSync(path.join(fixtures, 'good.patch'), path.join(delivery, 'solution.patch'));
    const start = await FAMILY_STRATEGIES.editing.onDeliveryStart!({
      commission: { ...commission, dir: '/c', requirement: {} as never, cases: { dev: [], heldout: [] } },
      delivery: { label: 'ref', dir: delivery },
      scratch,
    });
    expect(start).toMatchObject({ runnable: true, runDir: path.join(scratch, 'patched', 'grading-test-ref') });
    expect(start.tree).toMatchObject({ patch: path.join(delivery, 'solution.patch'), outcome: { ok: true } });
  });
});

describe('grading an editing case against the tree made for its delivery', () => {
  test('uses that tree as it is: the patch is not applied again', async () => {
    const work = tmpDir('heldout-tree-');
    const outcome = await applyPatchOnce(path.join(fixtures, 'starter'), path.join(fixtures, 'good.patch'), work);
    // A patch path that does not exist: a grader that re-applied it would reject the case.
    const tree = { patch: path.join(fixtures, 'gone', 'solution.patch'), outcome };
    const g = await gradeCase({ ...editingCase('no-such.patch'), tree, runCommand: shRunner });
    expect(g).toMatchObject({ status: 'graded', result: 100, passed: true, editing: { muNew: true, muReg: true } });
  });

  test("a rejected patch fails the delivery's every case at the patch gate, with its reason", async () => {
    const tree = {
      patch: path.join(fixtures, 'rejected.patch'),
      outcome: { ok: false as const, gate: 'patch-rejected' as const, reason: 'the patch does not apply', touched: [] },
    };
    const g = await gradeCase({ ...editingCase('good.patch'), tree, runCommand: shRunner });
    expect(g).toMatchObject({ status: 'gate-failed', gate: 'patch-rejected', reason: 'the patch does not apply' });
    expect(g.editing).toBeUndefined();
  });
});
