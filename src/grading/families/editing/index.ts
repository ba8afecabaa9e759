/**
 * The editing family (DESIGN §1, §4): the delivery is a patch to the pinned starter tree. It is applied once per
 * delivery; the entry runs in the patched tree and every case's commands read it (mounted read-only); satisfaction
 * is μ_new ∧ μ_reg, the rubric's pass rule and the product's own regression suite.
 */

import { rmSync } from 'node:fs';
import path from 'node:path';
import { sandboxTempDir } from '../../../util/index.js';
import { claimsContradicted } from '../../claims.js';
import { type GradingContext, gateFailed, infra, type Phase, tailLines } from '../../grading-context.js';
import { failedTestsSentence, parseTestOutput } from '../../test-report.js';
import type { PatchedTree } from '../../types.js';
import type { FamilyStrategy } from '../types.js';
import { applyPatchOnce } from './patch.js';

/** The patch gate: the tree the delivery's patch made (or, graded alone, one made now for this case). */
const patchGate: Phase = async (ctx) => {
  const { commission } = ctx.input;
  if (!commission.starterDir) return infra(ctx.grade, 'the editing commission has no starter/ tree');
  const tree = ctx.input.tree ?? (await patchForCase(ctx, commission.starterDir));
  if (!tree.outcome.ok) return gateFailed(ctx, tree.outcome.gate, tree.outcome.reason);
  ctx.tree = { dir: tree.outcome.workDir, patch: tree.patch };
};

async function patchForCase(ctx: GradingContext, starterDir: string): Promise<PatchedTree> {
  const { input } = ctx;
  const editing = input.commission.config.editing ?? { patch: 'solution.patch', allowedPaths: [], forbiddenPaths: [] };
  const patch =
    typeof input.patch === 'string' ? input.patch : (input.patch?.path ?? path.join(input.outputDir, editing.patch));
  let workDir = typeof input.patch === 'object' ? input.patch.workDir : undefined;
  if (!workDir) {
    const own = sandboxTempDir('heldout-tree-');
    ctx.cleanups.push(() => rmSync(own, { recursive: true, force: true }));
    workDir = own;
  }
  return { patch, outcome: await applyPatchOnce(starterDir, patch, workDir, editing) };
}

/**
 * μ_reg: the product's own suite in the patched tree, through the caller's command runner (the run session's
 * mounts the tree read-only, as every sandbox mounts a delivery, so no case changes what the next one reads).
 */
const regression: Phase = async (ctx) => {
  if (!ctx.tree) return;
  const reg = ctx.input.commission.config.editing?.regression;
  const { runCommand } = ctx.input;
  let muReg: boolean | null = null;
  let evidence = '';
  let failedTests: string[] | undefined;
  if (!reg) evidence = 'no regression suite declared (editing.regression)';
  else if (!runCommand) evidence = 'μ_reg not checked: no command runner was given to the grader';
  else {
    const scratch = sandboxTempDir('heldout-reg-');
    try {
      const r = await runCommand(reg.command, {
        mounts: { output: scratch, tree: ctx.tree.dir },
        timeoutSeconds: reg.timeoutSeconds,
      });
      muReg = r.exitCode === 0;
      const output = `${r.stdout}\n${r.stderr}`.trim();
      const report = parseTestOutput(output);
      // Name the failing tests when the suite's output says which; otherwise its tail is the evidence.
      const why = failedTestsSentence(report) ?? tailLines(output, 5, 600).replace(/\n+/g, ' | ');
      evidence = `regression suite \`${reg.command}\` exited ${r.exitCode ?? 'by a signal'}${muReg ? '' : `: ${why}`}`;
      if (!muReg && report.failed.length) failedTests = report.failed;
      ctx.tests.push({ title: 'the regression suite', held: muReg });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  ctx.grade.editing = { muNew: false, muReg, evidence, ...(failedTests ? { failedTests } : {}) };
};

/** The reports beside the patch are held to the case too; then satisfaction is μ_new ∧ μ_reg. */
const satisfaction: Phase = (ctx) => {
  const { grade, tree } = ctx;
  if (!tree) return;
  // An editing delivery reports beside its patch (edit_report.json, run_report.json), not in the case outputs.
  const reportsDir = path.dirname(path.resolve(tree.patch));
  for (const name of ['run_report.json', 'edit_report.json']) {
    const claims = claimsContradicted(reportsDir, { gate: null, artifacts: {}, tests: ctx.tests }, name);
    grade.claimsContradicted.push(...claims.map((c) => `${name}: ${c}`));
  }
  const editing = grade.editing!;
  if (ctx.unscored) return;
  editing.muNew = grade.passed;
  grade.passed = editing.muNew && editing.muReg !== false;
  if (editing.muReg === false) {
    // Breaking what the product already did voids the new behaviour (DESIGN §4), recorded as a total ceiling of 0
    // so the report shows what set the Result.
    const earned = ctx.score!.output.result;
    grade.reason = `μ_reg failed: ${editing.evidence}`;
    grade.ceilings.push({ kind: 'total', max: 0, reason: `μ_reg failed: ${editing.evidence}`, binding: earned > 0 });
    grade.ceilingHit = grade.ceilingHit || earned > 0;
    grade.ceilingSet = grade.ceilingSet || earned > 0;
    grade.result = 0;
  }
};

/** Editing's strategy: the patched tree once per delivery, then the patch gate, μ_reg and μ_new ∧ μ_reg per case. */
export const editing: FamilyStrategy = {
  async onDeliveryStart({ commission, delivery, scratch }) {
    const cfg = commission.config.editing!;
    const patch = path.join(delivery.dir, cfg.patch);
    const workDir = path.join(scratch, 'patched', `${commission.config.id}-${delivery.label}`);
    const outcome = await applyPatchOnce(commission.starterDir!, patch, workDir, {
      allowedPaths: cfg.allowedPaths,
      forbiddenPaths: cfg.forbiddenPaths,
    });
    return { runDir: outcome.ok ? outcome.workDir : delivery.dir, runnable: outcome.ok, tree: { patch, outcome } };
  },
  grading: { afterGates: patchGate, afterScore: regression, afterVerdict: satisfaction },
};

export { applyPatchOnce } from './patch.js';
