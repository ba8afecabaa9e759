import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { applyPatchOnce, gradeCase } from '../../src/grading/index.js';
import { editingCase } from './editing-helpers.js';
import { fixtures, shRunner } from './helpers.js';
import { tmpDir } from './judge-helpers.js';

const starter = path.join(fixtures, 'starter');

describe('the patch gate of an editing case', () => {
  test('a patch that does not apply scores 0 with patch-rejected', async () => {
    const g = await gradeCase({ ...editingCase('rejected.patch'), runCommand: shRunner });
    expect(g).toMatchObject({ status: 'gate-failed', gate: 'patch-rejected', result: 0, passed: false });
    expect(g.reason).toMatch(/^the patch does not apply: error: patch failed: lib\.js:2/);
  });

  test('a missing patch is rejected', async () => {
    const g = await gradeCase({ ...editingCase('no-such.patch'), runCommand: shRunner });
    expect(g).toMatchObject({ gate: 'patch-rejected', result: 0 });
  });

  test('a patch touching a forbidden path is a constraint violation and is not applied', async () => {
    const work = tmpDir('heldout-tree-');
    const r = await applyPatchOnce(starter, path.join(fixtures, 'touches-tests.patch'), work, {
      allowedPaths: ['lib.js'],
      forbiddenPaths: ['test.sh'],
    });
    expect(r).toMatchObject({ ok: false, gate: 'constraint-violation', touched: ['test.sh'] });
    expect(r.ok || r.reason).toBe('the patch touches forbidden test.sh; touches test.sh outside the allowed paths');
    expect(readFileSync(path.join(work, 'test.sh'), 'utf8')).toContain('add(2, 2)');
  });

  test('a clean patch is applied exactly once to a copy of the pinned tree', async () => {
    const work = tmpDir('heldout-tree-');
    const r = await applyPatchOnce(starter, path.join(fixtures, 'good.patch'), work, { allowedPaths: ['lib.js'] });
    expect(r).toEqual({ ok: true, touched: ['lib.js'], workDir: work });
    expect(readFileSync(path.join(work, 'lib.js'), 'utf8').match(/function mul/g)).toHaveLength(1);
    expect(readFileSync(path.join(starter, 'lib.js'), 'utf8')).not.toContain('mul');
    expect(existsSync(path.join(work, 'test.sh'))).toBe(true);
  });
});
