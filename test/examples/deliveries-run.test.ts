import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Commission, loadCommission } from '../../src/commission/index.js';
import { gradeCase, type MiniGrade, mean, repoRoot } from './mini-grader.js';

const deliveries = path.join(repoRoot, 'fixtures', 'deliveries');
const load = (id: string) => loadCommission(path.join(repoRoot, 'tasks', id));
const gradeAll = (c: Commission, split: 'dev' | 'heldout', dir: string) =>
  c.cases[split].map((k) => gradeCase(c, k, dir));
const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});
const keep = (gs: MiniGrade[]) => {
  scratch.push(...gs.map((g) => g.outputDir));
  return gs;
};

function sourceOf(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.py'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
}

describe('log-triage deliveries', () => {
  let c: Commission;
  beforeAll(async () => {
    c = await load('log-triage');
  });

  test('reference passes every dev and held-out case; held-out mean ≥ 80', () => {
    const dir = path.join(deliveries, 'log-triage-reference');
    const dev = keep(gradeAll(c, 'dev', dir));
    const held = keep(gradeAll(c, 'heldout', dir));
    for (const g of [...dev, ...held]) expect(g, `${g.case}: ${g.reason}`).toMatchObject({ gate: null, passed: true });
    expect(mean(held.map((g) => g.result))).toBeGreaterThanOrEqual(95);
  });

  test('overfit is near 100 on dev, low on held-out (fidelity gap ≥ 30), and embeds dev strings', () => {
    const dir = path.join(deliveries, 'log-triage-overfit');
    const dev = mean(keep(gradeAll(c, 'dev', dir)).map((g) => g.result));
    const held = mean(keep(gradeAll(c, 'heldout', dir)).map((g) => g.result));
    expect(dev).toBeGreaterThanOrEqual(95);
    expect(dev - held).toBeGreaterThanOrEqual(50);
    const src = sourceOf(dir);
    for (const s of [
      'nightly settlement batch',
      'Why did ledger-sync fall over at midnight',
      'checkout-gateway',
      'inventory-svc',
    ]) {
      expect(src).toContain(s);
    }
    const devText = c.cases.dev.map((k) => readFileSync(k.inputPath, 'utf8')).join('\n');
    expect(devText).toContain('nightly settlement batch');
  });

  test('hollow fails a gate on every held-out case while its run_report claims completion', () => {
    const dir = path.join(deliveries, 'log-triage-hollow');
    const held = keep(gradeAll(c, 'heldout', dir));
    for (const g of held) {
      expect(g.gate, g.case).not.toBeNull();
      const claim = JSON.parse(readFileSync(path.join(g.outputDir, 'run_report.json'), 'utf8'));
      expect(claim).toMatchObject({ status: 'complete', artifacts: ['report.json', 'summary.md'] });
    }
    expect(new Set(held.map((g) => g.gate))).toEqual(new Set(['missing-artifact']));
  });

  test('the reference delivery does not embed distinctive dev strings', () => {
    const src = sourceOf(path.join(deliveries, 'log-triage-reference'));
    for (const s of ['settlement', 'ledger-sync', 'checkout-gateway', 'inventory-svc', 'auth-broker'])
      expect(src).not.toContain(s);
  });
});

describe('todo-due-dates deliveries (editing)', () => {
  let c: Commission;
  beforeAll(async () => {
    c = await load('todo-due-dates');
  });

  /** A copy of starter/ with the delivery's patch applied by `git apply`, as the evaluator does. */
  function patchedTree(delivery: string): string {
    const tree = mkdtempSync(path.join(os.tmpdir(), 'heldout-ex-tree-'));
    scratch.push(tree);
    cpSync(c.starterDir!, tree, { recursive: true });
    const patch = path.join(deliveries, delivery, c.config.editing!.patch);
    const check = spawnSync('git', ['apply', '--check', patch], { cwd: tree, encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    expect(spawnSync('git', ['apply', patch], { cwd: tree }).status).toBe(0);
    return tree;
  }

  const regression = (tree: string) =>
    spawnSync('sh', ['-c', c.config.editing!.regression!.command], {
      cwd: tree,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1' },
    });

  test('the unpatched starter passes its own suite but not the new-behaviour cases', () => {
    expect(regression(c.starterDir!).status).toBe(0);
    const held = keep(gradeAll(c, 'heldout', c.starterDir!));
    expect(held.filter((g) => g.passed)).toEqual([]);
  });

  test('reference patch applies, keeps the suite green and passes every case (μ_new ∧ μ_reg)', () => {
    const tree = patchedTree('todo-due-dates-reference');
    const reg = regression(tree);
    expect(reg.status, reg.stderr).toBe(0);
    for (const g of keep([...gradeAll(c, 'dev', tree), ...gradeAll(c, 'heldout', tree)])) {
      expect(g, `${g.case}: ${g.reason}`).toMatchObject({ gate: null, result: 100 });
    }
  });

  test('breaks-regression patch applies and passes dev, but the product suite fails (μ_reg)', () => {
    const tree = patchedTree('todo-due-dates-breaks-regression');
    const reg = regression(tree);
    expect(reg.status).not.toBe(0);
    expect(reg.stderr).toMatch(/FAILED \(failures=\d+\)/);
    for (const g of keep(gradeAll(c, 'dev', tree))) expect(g.passed, g.case).toBe(true);
  });

  test('both deliveries carry edit_report.json and run_report.json', () => {
    for (const d of ['todo-due-dates-reference', 'todo-due-dates-breaks-regression']) {
      const edit = JSON.parse(readFileSync(path.join(deliveries, d, 'edit_report.json'), 'utf8'));
      expect(edit.files_changed).toContain('mdtodo/parse.py');
      expect(JSON.parse(readFileSync(path.join(deliveries, d, 'run_report.json'), 'utf8')).status).toBe('complete');
    }
  });
});

describe('ticket-routing deliveries (optimization)', () => {
  // The starter a0 is the commission's own starter/, run beside every candidate (no copy among the deliveries).
  test('the candidate wins over the starter on most held-out instances', async () => {
    const c = await load('ticket-routing');
    const j0 = keep(gradeAll(c, 'heldout', c.starterDir!));
    const j1 = keep(gradeAll(c, 'heldout', path.join(deliveries, 'ticket-routing-candidate')));
    for (const g of [...j0, ...j1]) expect(g.gate, `${g.case}: ${g.reason}`).toBeNull();
    // J is graded, not pass/fail: the starter lands strictly between 0 and 100 on every instance.
    expect(j0.every((g) => g.result > 0 && g.result < 100)).toBe(true);
    const wins = j1.filter((g, i) => g.result > j0[i]!.result).length;
    const losses = j1.filter((g, i) => g.result < j0[i]!.result).length;
    expect(wins).toBeGreaterThanOrEqual(Math.ceil(0.75 * j0.length));
    expect(wins).toBeGreaterThan(losses);
    expect(mean(j1.map((g) => g.result)) - mean(j0.map((g) => g.result))).toBeGreaterThanOrEqual(25);
  });
});
