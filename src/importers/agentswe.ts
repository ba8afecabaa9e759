import path from 'node:path';
import { type AccountRow, accountMarkdown, FileAccount, layoutDisposition } from './agentswe-account.js';
import { artifactsFrom, interfaceOutputs } from './agentswe-artifacts.js';
import { budgetsFrom } from './agentswe-budgets.js';
import { importCases } from './agentswe-cases.js';
import { entryFor } from './agentswe-entry.js';
import { editingLoopNeeds, externalServicesFrom } from './agentswe-external.js';
import { copyStarter, editingFrom } from './agentswe-family.js';
import { detectLayout, parseObject } from './agentswe-layout.js';
import { importRequirement } from './agentswe-requirement.js';
import { readRubricPlan } from './agentswe-rubric-source.js';
import { gateDisposition, objectiveRubric, PREDICTION_ROWS_CHECK, rubricFrom } from './agentswe-rubric-yaml.js';
import { mapFixtureServices } from './agentswe-services.js';
import { keepSource } from './agentswe-source.js';
import { caseTruths } from './agentswe-truth.js';
import { commissionId } from './commission-fields.js';
import { type BuiltPackage, defineImporter, type ImportContext } from './define-importer.js';
import { toYaml } from './package-writer.js';
import { listTree, readIfExists } from './source-files.js';
import { ImportError, type ImportOptions } from './types.js';
import { asObject, asText } from './values.js';

export interface AgentSweImportOptions extends ImportOptions {
  /** A profile overlay (`profiles/<p>/`), or `paper` for none; default: the Lite profile of a Lite task. */
  profile?: string;
  /** A language overlay of an editing task (`lang/<l>/`), or `as-run`; default: the one the task marks. */
  lang?: string;
  /** Editing: a checkout of the pinned product, checked against the pin and made the starter. */
  product?: string;
  /** The per-case command, when the package's interface has none heldout can run (editing). */
  entry?: string;
}

/** What `importAgentSwe` adds to its result: every source file and what became of it (IMPORT-NOTES' table). */
export interface AgentSweImportExtra {
  sourceFiles: AccountRow[];
}

/**
 * Imports an AgentSWE task directory (creation: `benchmark/` + `builder_package/`; editing: `tree/` with its
 * language overlay; optimization: `benchmark/task_contract.json`) into a heldout commission, by the package's
 * contract, with the chosen overlays. Deterministic. Rejects with an `ImportError` naming every missing piece, and
 * refuses a package with no runnable entry command, with the reason.
 */
export const importAgentSwe = defineImporter<AgentSweImportOptions, AgentSweImportExtra>({
  kind: 'agentswe',
  build: buildAgentSwe,
});

function buildAgentSwe({ source, sourceDir: taskDir, options, draft }: ImportContext<AgentSweImportOptions>) {
  const missing: string[] = [];
  const account = new FileAccount();
  const note = (t: string) => draft.note(t);
  const taskText = readIfExists(path.join(taskDir, 'task.json'));
  if (taskText === null) missing.push('task.json (id, family, protocol: case budget and case lists)');
  const taskJson = parseObject(taskText, 'task.json', missing);
  const layout = detectLayout(taskDir, taskJson, options, missing);
  if (!layout) throw new ImportError(source, missing);
  for (const c of layout.choices) note(c);
  const protocol = asObject(taskJson?.protocol);
  const id = commissionId(asText(taskJson?.id) ?? path.basename(taskDir));

  const encrypted = asObject(taskJson?.encrypted_rows);
  if (encrypted && layout.caseRoots.heldout.every((r) => layout.view.subdirs(r).length === 0))
    throw new ImportError(source, [
      `refused: the cases are encrypted rows (task.json encrypted_rows: ${asText(encrypted.bundle) ?? 'a bundle'}) that AgentSWE decrypts only when it stages the task; decrypt them by the package's scheme into benchmark/dev_cases/ and benchmark/test_cases/ of a copy kept outside any repository ("do not commit or publish the plaintext"), then import that copy`,
    ]);
  const texts = importRequirement(layout, draft, account, missing);
  const outputs = texts['02'] ? interfaceOutputs(texts['02']).files : [];
  const { plan } = readRubricPlan(layout, account, note, missing, outputs);
  const cases = importCases(layout, protocol, draft, account, missing);
  if (missing.length > 0) throw new ImportError(source, missing);

  const external = externalServicesFrom(taskJson, texts, cases, note);
  const entry = entryFor(layout.family, texts['02']!, layout.contract, options.entry);
  if ('refused' in entry) {
    // An editing case is the package's own loop: say, part by part, what of it heldout does not have.
    const needs = layout.family === 'editing' ? editingLoopNeeds(layout, texts, external) : [];
    throw new ImportError(source, [
      `refused: ${entry.refused}${needs.length ? `. What that loop needs that heldout lacks: ${needs.join('; ')}` : ''}`,
    ]);
  }
  note(`entry \`${entry.command}\` from ${entry.source}`);
  for (const n of entry.notes) note(n);

  const gates = plan?.gates ?? [];

  const truths = caseTruths(layout, cases, account);
  for (const c of cases) {
    const t = truths.get(`${c.split}/${c.id}`);
    if (t) draft.put(`cases/${c.split}/${c.id}/truth.json`, `${JSON.stringify(t, null, 2)}\n`);
  }
  const serviced = mapFixtureServices(layout, cases, truths, draft, account, note);
  for (const c of cases)
    if (c.absentAssets.length)
      note(
        `${c.split} case ${c.id}: input.md names assets the package does not hold (supply them before running): ${c.absentAssets.join(', ')}`,
      );

  const commission: Record<string, unknown> = {
    id,
    title: asText(taskJson?.title) ?? id,
    family: layout.family,
    entry: entry.command,
    exitCodes: [0],
    ...(external.length ? { external } : {}),
  };
  const resources = { name: 'requirement/04', text: texts['04']! };
  commission.budgets = budgetsFrom(protocol, layout.contract, resources, gates, note);
  const rowLimits = cases.map((c) => Number(c.row?.timeout_seconds)).filter((n) => Number.isFinite(n) && n > 0);
  if (rowLimits.length)
    note(
      `budget: the contract's per-row timeout_seconds (${Math.min(...rowLimits)}–${Math.max(...rowLimits)} s on ${rowLimits.length} rows) is each upstream task's own limit inside the native runtime; it stays in the case's truth.json, and heldout's wall budget is the one above for every case`,
    );
  commission.trials = 1;
  const artifacts = artifactsFrom(layout.family, texts['02']!, gates, note);
  if (artifacts.length) commission.artifacts = artifacts;
  const gated = new Set(artifacts.filter((a) => a.required).map((a) => a.path));
  if (plan && gates.length) note(`zero-score rules read from: ${plan.zeroFoundIn.join(', ')}`);
  const native = layout.family === 'optimization';
  for (const g of gates) note(`zero rule "${g.text}": ${gateDisposition(g, gated, native)}`);
  if (!native)
    for (const [i, c] of (plan?.ceilings ?? []).entries())
      note(
        `ceiling ${c.id ?? `ceiling-${i + 1}`}${c.max === null ? ' (graded)' : ` ≤ ${c.max}`}${c.band ? ` (tiered: band ${c.band})` : ''}${c.section ? ` from "${c.section}"` : ''}: ${c.max === null ? 'in every judge text' : 'a total ceiling the judge decides'} — ${c.condition.slice(0, 160)}`,
      );
  for (const n of plan?.negative ?? []) note(`not a zero rule (kept as judge guidance): "${n}"`);
  if (layout.family === 'editing') {
    const e = editingFrom(layout, taskJson, options.product, texts, draft, account, note);
    if ('refused' in e) throw new ImportError(source, [`refused: ${e.refused}`]);
    commission.editing = e.editing;
  }
  let rubric: Record<string, unknown>;
  if (layout.family === 'optimization') {
    copyStarter(layout, draft, account, missing);
    if (missing.length > 0) throw new ImportError(source, missing);
    const metric = asText(asObject(layout.contract?.evaluation)?.primary_metric) ?? "the source benchmark's metric";
    commission.optimization = {
      objective: `J = ${metric} on each held-out row, by the package's native evaluator (${asText(asObject(layout.contract?.fixed_space)?.evaluator) ?? 'its official grader'}); S = 100·min(1, (J1 − J0)/(100 − J0)) against a0 on the same rows`,
      starter: 'starter',
    };
    rubric = objectiveRubric(id, layout.contract, gates);
    note(
      `J is the native objective (${metric}), a command check in the image ${(rubric.dimensions as { items: { image: string }[] }[])[0]!.items[0]!.image} that the user builds (see heldout's README): the package ships no grader heldout can run, so without that image every case is an infra-error naming it, never a judged estimate`,
    );
    if (plan)
      note(
        `the package's rubric.md (${plan.dimensions.map((d) => `${d.title} ${d.weight}`).join(', ')}) is a judge aid of the source, not J; it is kept in source/ and not scored`,
      );
  } else rubric = rubricFrom(plan!, note);
  if ((rubric.ceilings as { id: string }[] | undefined)?.some((c) => c.id === 'zero-omits-target-prediction'))
    draft.put('checks/agentswe-prediction-rows.ts', PREDICTION_ROWS_CHECK);
  draft.put('commission.yaml', toYaml(commission));
  draft.put('rubric.yaml', toYaml(rubric));
  capsContract(layout.view.taskDir, account, note);
  keepSource(layout, taskJson, draft, account, note);

  const counts = {
    dev: cases.filter((c) => c.split === 'dev').length,
    heldout: cases.filter((c) => c.split === 'heldout').length,
  };
  note(
    `${counts.dev} development and ${counts.heldout} held-out cases imported${serviced.length ? ` (${serviced.length} with a case service)` : ''}; held-out cases sit in cases/heldout/ — move them out of the repository (HELDOUT_CASES) if builders can read it`,
  );
  const rows = account.table(listTree(taskDir), (rel) =>
    layoutDisposition(rel, { profile: layout.profile, lang: layout.lang }),
  );
  const built: BuiltPackage<AgentSweImportExtra> = {
    id,
    extra: { sourceFiles: rows },
    appendix: `## Every source file\n\nWhat became of each file of \`${path.basename(taskDir)}\` (${rows.length} files).\n\n${accountMarkdown(rows)}\n`,
  };
  return built;
}

/** The evaluator-issued caps contract (agentswe-result-score-caps/v1): its ceilings come from the rubric's caps. */
function capsContract(taskDir: string, account: FileAccount, note: (t: string) => void): void {
  const producers = listTree(taskDir).filter((f) => /(^|\/)(result_)?score_caps\.py$/.test(f));
  for (const p of producers)
    account.record(
      p,
      'ceiling',
      "the producer of the per-case caps contract (agentswe-result-score-caps/v1); heldout cannot run it, so the rubric's published caps are applied as judged ceilings instead",
    );
  if (producers.length)
    note(
      "ceilings: the package issues a per-case caps contract (agentswe-result-score-caps/v1: entries {cap_id, maximum_score, status}) from evidence heldout does not have; the rubric's published caps are heldout ceilings decided by the judge, which is what the contract's semantic_review entries are",
    );
}
