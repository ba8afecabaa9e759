import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileAccount } from './agentswe-account.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import type { PackageDraft } from './package-writer.js';
import { listTree } from './source-files.js';

const TASK_MAPPED = new Set(['id', 'title', 'family', 'protocol', 'upstream', 'lite', 'language']);
const PROTOCOL_MAPPED = new Set(['case_timeout_sec', 'dev_cases', 'heldout_cases', 'max_dev_rounds']);
const CONTRACT_MAPPED = new Set(['splits', 'fixed_space', 'evaluation', 'initial_artifact', 'runtime']);
const KEEP_TEXT = /\.(md|json|txt|ya?ml|csv)$/i;

/**
 * Keeps what frames the import but is not itself mapped — task.json, task_contract.json, READMEs, the judge
 * procedure, the code rubric, the caps contract's description, evaluator texts — under `source/`, and says which
 * of their fields or roles heldout has no counterpart for.
 */
export function keepSource(
  layout: AgentSweLayout,
  taskJson: Record<string, unknown> | null,
  draft: PackageDraft,
  account: FileAccount,
  note: (text: string) => void,
): void {
  const { view } = layout;
  const taskDir = view.taskDir;
  if (taskJson) {
    draft.put('source/task.json', readFileSync(path.join(taskDir, 'task.json')));
    const rest = Object.keys(taskJson)
      .filter((k) => !TASK_MAPPED.has(k))
      .sort();
    const protocol = (taskJson.protocol ?? {}) as Record<string, unknown>;
    const prest = Object.keys(protocol)
      .filter((k) => !PROTOCOL_MAPPED.has(k))
      .sort();
    account.record(
      'task.json',
      'budget',
      `id, title, family, protocol (case lists, case_timeout_sec → wallSeconds, max_dev_rounds → devRounds); kept as source/task.json. Not mapped: ${[...rest, ...prest.map((k) => `protocol.${k}`)].join(', ') || 'nothing'}`,
    );
    if (prest.length)
      note(
        `task.json protocol fields heldout does not map: ${prest.map((k) => `${k}=${JSON.stringify(protocol[k])}`).join(', ')}`,
      );
  }
  const contractHit = layout.family === 'optimization' ? view.resolve('benchmark/task_contract.json') : null;
  if (contractHit && layout.contract) {
    draft.put('source/task_contract.json', readFileSync(contractHit.abs));
    const rest = Object.keys(layout.contract)
      .filter((k) => !CONTRACT_MAPPED.has(k))
      .sort();
    account.record(
      contractHit.rel,
      'budget',
      `splits → cases and upstream ids (truth.json), fixed_space.budgets → budgets, evaluation.cli → entry, initial_artifact → starter/; kept as source/task_contract.json${rest.length ? `. Not mapped: ${rest.join(', ')}` : ''}`,
    );
    for (const s of view.superseded('benchmark/task_contract.json'))
      account.record(s, 'superseded', `replaced by ${contractHit.rel}`);
    if ('editable_space' in layout.contract)
      note(
        `editable space ${JSON.stringify(layout.contract.editable_space)}: heldout's optimization family does not restrict which files of the delivery changed; enforce it by review`,
      );
  }
  // Evaluator texts no step used: kept for the reader, with their role.
  for (const dir of layout.evaluatorDirs) {
    for (const logical of view.list(dir)) {
      const hit = view.resolve(logical)!;
      for (const s of view.superseded(logical))
        if (!account.has(s)) account.record(s, 'superseded', `replaced by ${hit.rel}`);
      if (account.has(hit.rel)) continue;
      const name = path.posix.basename(logical);
      if (!KEEP_TEXT.test(name)) continue;
      draft.put(`source/${hit.rel}`, readFileSync(hit.abs));
      if (/eval_prompt/.test(name))
        account.record(
          hit.rel,
          'kept for the judge',
          `source/${hit.rel}: the judge procedure and its own answer format; heldout's judge applies each dimension's rubric text and answers in its own JSON schema`,
        );
      else if (/code_rubric|code_axis/.test(logical))
        account.record(
          hit.rel,
          'kept in source/',
          `source/${hit.rel}: the Code rubric scores the implementation, "not averaged" with the Result; heldout grades the Result`,
        );
      else account.record(hit.rel, 'kept in source/', `source/${hit.rel}: evaluator reference text`);
    }
  }
  for (const readme of ['benchmark/README.md', 'tree/README.md', 'README.md']) {
    const hit = view.resolve(readme);
    if (hit && !account.has(hit.rel)) {
      draft.put(`source/${hit.rel}`, readFileSync(hit.abs));
      account.record(hit.rel, 'kept in source/', `source/${hit.rel}: the package's README`);
    }
  }
  // Everything else text-like that a reader may want beside the commission (meta notes, env recipe).
  for (const f of listTree(taskDir)) {
    if (account.has(f) || !KEEP_TEXT.test(f) || /^(profiles|lang)\//.test(f)) continue;
    if (/(^|\/)(meta|env)\//.test(f)) draft.put(`source/${f}`, readFileSync(path.join(taskDir, f)));
  }
}
