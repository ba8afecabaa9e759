import { describe, expect, test } from 'vitest';
import { gradeCase } from '../../src/grading/index.js';
import { editingCase } from './editing-helpers.js';
import { shRunner } from './helpers.js';

describe('editing satisfaction is μ_new ∧ μ_reg', () => {
  test('a patch that adds the feature and keeps the suite green passes', async () => {
    const g = await gradeCase({ ...editingCase('good.patch'), runCommand: shRunner });
    expect(g).toMatchObject({ status: 'graded', result: 100, passed: true, editing: { muNew: true, muReg: true } });
    expect(g.dimensions.feature!.items[0]).toMatchObject({ title: 'hidden test: mul', score: 1 });
  });

  test('a patch that passes the new-feature checks but breaks the regression suite fails μ_reg', async () => {
    const g = await gradeCase({ ...editingCase('breaks-regression.patch'), runCommand: shRunner });
    expect(g.dimensions.feature!.items[0]).toMatchObject({ score: 1 });
    // The new behaviour earned everything, and the broken regression obligation still sets the Result to 0.
    expect(g.dimensions.feature!.score).toBe(100);
    expect(g.result).toBe(0);
    expect(g.ceilingSet).toBe(true);
    expect(g.ceilings).toContainEqual(expect.objectContaining({ kind: 'total', max: 0, binding: true }));
    expect(g.passed).toBe(false);
    expect(g.editing).toMatchObject({ muNew: true, muReg: false });
    expect(g.editing!.evidence).toMatch(/regression suite `cd \{tree\} && sh test\.sh` exited 1: add\(2, 2\) is 0/);
    expect(g.reason).toMatch(/^μ_reg failed/);
  });

  test('without a runner μ_reg is not claimed either way', async () => {
    const c = editingCase('good.patch');
    c.commission.rubric.dimensions[0]!.items = [{ check: 'exists', file: 'none', points: 100 }];
    const g = await gradeCase(c);
    expect(g.editing).toMatchObject({ muReg: null, evidence: expect.stringContaining('no command runner') });
  });
});
