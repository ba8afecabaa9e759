import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileAccount } from './agentswe-account.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import { dimensionEntries, planRubric, type RubricPlan } from './agentswe-rubric.js';

/** The legacy Result contract AgentSWE's editing judge applies when a task ships no result_dimensions.json. */
export const LEGACY_EDITING_DIMENSIONS = { task_completion: 50, evidence_grounding: 30, recovery_and_safety: 20 };

const RUBRIC_NAMES = ['result_rubric.md', 'agentloop_result_rubric.md', 'rubric.md'];

/** How well a rubric's text names the JSON's dimension ids (snake_case or spaced). */
function nameScore(md: string, ids: string[]): number {
  const text = md.toLowerCase();
  return ids.filter((id) => text.includes(id) || text.includes(id.replace(/_/g, ' '))).length;
}

/**
 * Chooses the Result rubric and plans it. Creation and optimization: `benchmark/evaluator/rubric.md`. Editing: the
 * dimensions are `result_dimensions.json` (as AgentSWE's shared Result judge finds it: beside the rubric, or
 * `agentloop/../evaluator/`); the rubric is the one near it whose text names those dimensions best, overlays
 * applied. Every other rubric-like file is accounted as not used, with why. Problems are added to `missing`.
 * `outputs` (the interface's output files) resolve the artifacts a zero rule names by description.
 */
export function readRubricPlan(
  layout: AgentSweLayout,
  account: FileAccount,
  note: (text: string) => void,
  missing: string[],
  outputs: string[] = [],
): { plan: RubricPlan | null; rubricRel: string | null } {
  const { view } = layout;
  let dimsJson: unknown;
  let dimsRel: string | null = null;
  if (layout.family === 'editing') {
    for (const d of ['tree/evaluator', 'tree/agentloop/evaluator']) {
      const hit = view.resolve(`${d}/result_dimensions.json`);
      if (!hit) continue;
      try {
        dimsJson = JSON.parse(readFileSync(hit.abs, 'utf8'));
        dimsRel = hit.rel;
      } catch (err) {
        missing.push(`${hit.rel} is not valid JSON (${(err as Error).message})`);
      }
      break;
    }
  }
  const candidates: string[] = [];
  if (layout.family === 'editing') {
    const near = dimsRel ? path.posix.dirname(dimsRel.replace(/^lang\/[^/]+\//, 'tree/')) : 'tree/evaluator';
    for (const n of RUBRIC_NAMES) candidates.push(`${near}/${n}`);
    for (const d of ['tree/agentloop', 'tree/evaluator', 'tree/meta'])
      for (const n of RUBRIC_NAMES) candidates.push(`${d}/${n}`);
  } else candidates.push(`${layout.evaluatorDirs[0]}/rubric.md`);
  const found = [...new Set(candidates)].map((c) => view.resolve(c)).filter((r) => r !== null);
  const ids = dimensionEntries(dimsJson)?.map(([k]) => k) ?? [];
  let chosen = found[0] ?? null;
  if (ids.length && found.length > 1) {
    const best = Math.max(...found.map((f) => nameScore(readFileSync(f!.abs, 'utf8'), ids)));
    chosen = found.find((f) => nameScore(readFileSync(f!.abs, 'utf8'), ids) === best) ?? chosen;
  }
  if (layout.family === 'editing' && dimsJson === undefined && !missing.some((m) => m.includes('result_dimensions'))) {
    dimsJson = LEGACY_EDITING_DIMENSIONS;
    note(
      "no result_dimensions.json: the dimensions are AgentSWE's legacy editing Result contract (task_completion 50, evidence_grounding 30, recovery_and_safety 20), as its shared judge applies them",
    );
  }
  if (!chosen && dimsJson === undefined) {
    missing.push(
      `the Result rubric: ${candidates[0]}${layout.family === 'editing' ? ' or result_dimensions.json' : ''}`,
    );
    return { plan: null, rubricRel: null };
  }
  const md = chosen ? readFileSync(chosen.abs, 'utf8') : null;
  const plan = planRubric(md, dimsJson, outputs);
  for (const p of plan.problems) missing.push(`${chosen?.rel ?? dimsRel}: ${p}`);
  for (const n of plan.notes) note(n);
  if (chosen) {
    account.record(
      chosen.rel,
      'rubric',
      `rubric.yaml: the Result rubric (${plan.dimensionSource || 'dimensions'}; judge texts, zero rules, ceilings)`,
    );
    for (const s of view.superseded(chosen.rel.replace(/^lang\/[^/]+\//, 'tree/').replace(/^profiles\/[^/]+\//, '')))
      account.record(s, 'superseded', `replaced by ${chosen.rel}`);
  }
  if (dimsRel)
    account.record(dimsRel, 'rubric', 'rubric.yaml dimensions: ids and maxima (the editing Result contract)');
  for (const f of found) {
    if (f && f !== chosen && !account.has(f.rel))
      account.record(
        f.rel,
        'kept in source/',
        `a rubric not used for the Result (${chosen ? `${chosen.rel} names the Result dimensions` : 'superseded'}); kept as source/${f.rel}`,
      );
  }
  return { plan, rubricRel: chosen?.rel ?? null };
}
