import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type GateBullet, planRubric } from './agentswe-rubric.js';
import { codeBlocks } from './markdown.js';
import {
  commissionId,
  formatOf,
  listTree,
  notesMarkdown,
  PackageDraft,
  readIfExists,
  subdirs,
  toYaml,
  writePackage,
} from './package-writer.js';
import { ImportError, type ImportOptions, type ImportResult } from './types.js';

/** The entry command an AgentSWE commission uses when the package states none. */
export const AGENTSWE_DEFAULT_ENTRY = 'python run_agent.py --input {input} --output {output}';

type Family = 'creation' | 'editing' | 'optimization';

/** Where one AgentSWE layout keeps its pieces; earlier directories win over later ones (the evaluator's copy first). */
interface Layout {
  family: Family;
  inputDirs: string[];
  caseRoots: { dev: string[]; heldout: string[] };
  evaluatorDir: string;
  starterDirs: string[];
  contract: Record<string, unknown> | null;
}

const REQUIREMENT_PREFIXES = ['01', '02', '03', '04'] as const;
const REQUIREMENT_NAMES = {
  '01': 'goal',
  '02': 'interface and delivery',
  '03': 'requirements and constraints',
  '04': 'resources',
};

/**
 * Imports an AgentSWE task directory (creation: `benchmark/` + `builder_package/`; editing: `tree/`; optimization:
 * `benchmark/task_contract.json`) into a heldout commission at `outDir`. Deterministic: the same package always
 * gives byte-identical files. Rejects with an `ImportError` naming every missing piece of an incomplete package.
 */
export async function importAgentSwe(
  taskDirArg: string,
  outDir: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const taskDir = path.resolve(taskDirArg);
  const rel = (p: string) => path.relative(taskDir, p).split(path.sep).join('/') || '.';
  if (!existsSync(taskDir) || !statSync(taskDir).isDirectory())
    throw new ImportError(taskDirArg, [`${taskDirArg} is not a directory`]);

  const missing: string[] = [];
  const draft = new PackageDraft();
  const taskJson = readJson(path.join(taskDir, 'task.json'), 'task.json', missing);
  const layout = detectLayout(taskDir, taskJson, missing);
  if (!layout) throw new ImportError(taskDirArg, missing);
  const protocol = obj(taskJson?.protocol);
  const contract = layout.contract;

  // --- requirement documents: the evaluator's copy, else the builder-visible one.
  const requirement: Record<string, string> = {};
  for (const prefix of REQUIREMENT_PREFIXES) {
    const found = findDoc(layout.inputDirs, prefix);
    if (!found) {
      missing.push(
        `requirement document ${prefix}_*.md (${REQUIREMENT_NAMES[prefix]}) in ${layout.inputDirs.map(rel).join(' or ')}`,
      );
      continue;
    }
    const text = readFileSync(found.path, 'utf8');
    requirement[prefix] = text;
    draft.put(`requirement/${found.name}`, text);
    if (found.index > 0)
      draft.note(
        `requirement/${found.name}: not in ${rel(layout.inputDirs[0]!)}; taken from ${rel(path.dirname(found.path))}`,
      );
    for (const other of layout.inputDirs.slice(found.index + 1)) {
      const copy = readIfExists(path.join(other, found.name));
      if (copy !== null && copy !== text) {
        draft.note(
          `requirement/${found.name}: the copy in ${rel(path.dirname(found.path))} was used; the one in ${rel(other)} differs from it`,
        );
      }
    }
  }

  // --- cases
  const caseIds = {
    dev: stringList(protocol?.dev_cases) ?? stringList(obj(contract?.splits)?.dev) ?? null,
    heldout:
      stringList(protocol?.heldout_cases) ??
      stringList(obj(contract?.splits)?.heldout ?? obj(contract?.splits)?.test) ??
      null,
  };
  const caseCounts = { dev: 0, heldout: 0 };
  for (const split of ['dev', 'heldout'] as const) {
    const roots = layout.caseRoots[split];
    const present = [...new Set(roots.flatMap((r) => subdirs(r)))].sort();
    const ids = caseIds[split] ?? present;
    const extra = present.filter((id) => !ids.includes(id));
    if (caseIds[split] && extra.length > 0)
      draft.note(`${split} case directories not named by the protocol, not imported: ${extra.join(', ')}`);
    for (const id of ids) {
      if (copyCase(draft, roots, split, id, rel, missing)) caseCounts[split]++;
    }
    if (ids.length === 0)
      missing.push(
        `${split === 'dev' ? 'development' : 'held-out'} cases (${roots.map((r) => `${rel(r)}/<case>/input.md`).join(' or ')})`,
      );
  }

  // --- rubric
  const rubricMd = readIfExists(path.join(layout.evaluatorDir, 'rubric.md'));
  const dimsFile = findDimensionsJson(layout.evaluatorDir);
  let dimsJson: unknown;
  if (dimsFile) {
    try {
      dimsJson = JSON.parse(readFileSync(dimsFile, 'utf8'));
    } catch (err) {
      missing.push(`${rel(dimsFile)} is not valid JSON (${(err as Error).message})`);
    }
  }
  const objective = obj(contract?.objective);
  let plan: ReturnType<typeof planRubric> | null = null;
  if (rubricMd !== null || dimsJson !== undefined) plan = planRubric(rubricMd, dimsJson);
  else if (layout.family !== 'optimization') {
    missing.push(
      `the result rubric: ${rel(layout.evaluatorDir)}/rubric.md or ${rel(layout.evaluatorDir)}/result_dimensions.json`,
    );
  }
  if (plan) {
    missing.push(
      ...plan.problems.map(
        (p) => `${rubricMd !== null ? `${rel(layout.evaluatorDir)}/rubric.md` : rel(dimsFile!)}: ${p}`,
      ),
    );
    for (const n of plan.notes) draft.note(n);
  }

  if (missing.length > 0) throw new ImportError(taskDirArg, missing);

  // --- commission.yaml
  const id = commissionId(str(taskJson?.id) ?? path.basename(taskDir));
  const title = str(taskJson?.title) ?? id;
  const entry = entryCommand(
    taskJson,
    contract,
    requirement['02']!,
    readIfExists(path.join(path.dirname(layout.evaluatorDir), 'README.md')),
    draft,
  );
  const budgets = budgetsFrom(protocol, obj(contract?.budgets), requirement['04']!, plan?.gates ?? [], draft);
  const artifacts = layout.family === 'editing' ? [] : artifactsFrom(requirement['02']!, plan?.gates ?? [], draft);

  const commission: Record<string, unknown> = { id, title, family: layout.family, entry, exitCodes: [0] };
  commission.budgets = budgets;
  commission.trials = 1;
  if (artifacts.length > 0) commission.artifacts = artifacts;
  if (layout.family === 'editing') commission.editing = editingFrom(protocol, draft);
  if (layout.family === 'optimization') {
    commission.optimization = {
      objective:
        str(objective?.description) ??
        str(objective?.name) ??
        str(contract?.objective) ??
        "the source benchmark's native metric",
      starter: 'starter',
    };
  }
  draft.put('commission.yaml', toYaml(commission));

  // --- starter (editing a0 / optimization's working agent)
  if (layout.family !== 'creation') {
    const starter = layout.starterDirs.find((d) => existsSync(d));
    if (starter) draft.copyTree(starter, 'starter');
    else {
      const upstream = obj(taskJson?.upstream);
      draft.note(
        `no starter tree in the package (looked in ${layout.starterDirs.map(rel).join(', ')}): put the pinned a0 into starter/ before running${upstream?.repo ? ` (${String(upstream.repo)} at ${String(upstream.commit ?? 'its pinned commit')})` : ''}; until then \`heldout validate\` refuses the commission`,
      );
    }
  }

  // --- rubric.yaml
  const rubric = plan ? rubricFrom(plan, draft) : objectiveRubric(objective, draft);
  draft.put('rubric.yaml', toYaml(rubric));

  // --- the source's evaluator texts, kept for reference, and everything else not mapped.
  for (const f of listTree(layout.evaluatorDir)) {
    if (/\.(md|json|txt|ya?ml)$/i.test(f))
      draft.put(`source/evaluator/${f}`, readFileSync(path.join(layout.evaluatorDir, f)));
    else draft.note(`${rel(layout.evaluatorDir)}/${f}: evaluator code is not run by heldout (not imported)`);
  }
  if (existsSync(path.join(layout.evaluatorDir, 'eval_prompt.md'))) {
    draft.note(
      "eval_prompt.md (the judge procedure and its free-text response format) is not executed: heldout's judge applies each dimension's rubric text and answers in its own JSON schema; the procedure is kept in source/evaluator/eval_prompt.md",
    );
  }
  if (existsSync(path.join(layout.evaluatorDir, 'code_rubric.md'))) {
    draft.note(
      'code_rubric.md scores the implementation, not the results; heldout grades results only, so it is not mapped (kept in source/evaluator/)',
    );
  }
  if (taskJson) {
    draft.put('source/task.json', `${JSON.stringify(taskJson, null, 2)}\n`);
    const mapped = new Set(['id', 'title', 'family', 'protocol']);
    const rest = Object.keys(taskJson)
      .filter((k) => !mapped.has(k))
      .sort();
    if (rest.length)
      draft.note(`task.json fields with no heldout counterpart (kept in source/task.json): ${rest.join(', ')}`);
    const pmapped = new Set([
      'case_timeout_sec',
      'dev_cases',
      'heldout_cases',
      'max_dev_rounds',
      'memory_mb',
      'cpus',
      'entry_command',
      'regression_command',
      'patch',
      'allowed_paths',
      'forbidden_paths',
    ]);
    const prest = Object.keys(protocol ?? {})
      .filter((k) => !pmapped.has(k))
      .sort();
    if (prest.length)
      draft.note(
        `task.json protocol fields not mapped: ${prest.map((k) => `${k}=${JSON.stringify(protocol![k])}`).join(', ')}`,
      );
  }
  if (contract) {
    draft.put('source/task_contract.json', `${JSON.stringify(contract, null, 2)}\n`);
    const editable = contract.editable_space ?? contract.editable;
    if (editable !== undefined) {
      draft.note(
        `editable space ${JSON.stringify(editable)}: heldout's optimization family does not restrict which files of the delivery changed; enforce it by review or a check`,
      );
    }
    const cmapped = new Set(['entry_command', 'entry', 'splits', 'budgets', 'objective', 'editable_space', 'editable']);
    const crest = Object.keys(contract)
      .filter((k) => !cmapped.has(k))
      .sort();
    if (crest.length) draft.note(`task_contract.json fields not mapped: ${crest.join(', ')}`);
  }
  const readme = path.join(path.dirname(layout.evaluatorDir), 'README.md');
  if (existsSync(readme)) draft.put('source/README.md', readFileSync(readme));

  draft.note(
    `${caseCounts.dev} development and ${caseCounts.heldout} held-out cases imported; held-out cases sit in cases/heldout/ — move them out of the repository (HELDOUT_CASES) if builders can read it`,
  );
  draft.put('IMPORT-NOTES.md', notesMarkdown('agentswe', path.basename(taskDir), draft.notes));
  return writePackage(draft, outDir, id, options);
}

function detectLayout(taskDir: string, taskJson: Record<string, unknown> | null, missing: string[]): Layout | null {
  const j = (...p: string[]) => path.join(taskDir, ...p);
  const declared = str(taskJson?.family);
  const contractPath = j('benchmark', 'task_contract.json');
  let family: Family;
  if (declared === 'creation' || declared === 'editing' || declared === 'optimization') family = declared;
  else if (existsSync(contractPath)) family = 'optimization';
  else if (existsSync(j('tree'))) family = 'editing';
  else if (existsSync(j('benchmark')) || existsSync(j('builder_package'))) family = 'creation';
  else {
    missing.push('benchmark/ (creation, optimization) or tree/ (editing): this is not an AgentSWE task directory');
    return null;
  }
  if (family === 'editing') {
    if (!existsSync(j('tree')))
      missing.push('tree/ (the editing layout: tree/input, tree/dev_cases, tree/test_cases, tree/evaluator)');
    return {
      family,
      inputDirs: [j('tree', 'input'), j('builder_package', 'input')],
      caseRoots: {
        dev: [j('tree', 'dev_cases'), j('builder_package', 'dev_cases')],
        heldout: [j('tree', 'test_cases')],
      },
      evaluatorDir: j('tree', 'evaluator'),
      starterDirs: [j('tree', 'a0'), j('tree', 'starter'), j('tree', 'repo')],
      contract: null,
    };
  }
  let contract: Record<string, unknown> | null = null;
  if (family === 'optimization') {
    contract = readJson(contractPath, 'benchmark/task_contract.json', missing);
    if (!existsSync(contractPath))
      missing.push('benchmark/task_contract.json (splits, budgets, editable space, entry command)');
  }
  const caseRoot = (...names: string[]) => names.map((n) => j('benchmark', n));
  return {
    family,
    inputDirs: [j('benchmark', 'input'), j('builder_package', 'input')],
    caseRoots:
      family === 'optimization'
        ? {
            dev: [...caseRoot('dev_cases', 'cases', 'instances'), j('builder_package', 'dev_cases')],
            heldout: caseRoot('test_cases', 'cases', 'instances'),
          }
        : {
            dev: [j('benchmark', 'dev_cases'), j('builder_package', 'dev_cases')],
            heldout: [j('benchmark', 'test_cases')],
          },
    evaluatorDir: j('benchmark', 'evaluator'),
    starterDirs: [j('benchmark', 'starter'), j('benchmark', 'a0'), j('builder_package', 'starter')],
    contract,
  };
}

function findDoc(dirs: string[], prefix: string): { path: string; name: string; index: number } | null {
  for (const [index, dir] of dirs.entries()) {
    if (!existsSync(dir)) continue;
    const name = readdirSync(dir)
      .sort()
      .find((n) => n.startsWith(prefix) && n.endsWith('.md'));
    if (name) return { path: path.join(dir, name), name, index };
  }
  return null;
}

/** Merges one case from its roots file by file (the first root's copy wins); false when it has no input.md. */
function copyCase(
  draft: PackageDraft,
  roots: string[],
  split: 'dev' | 'heldout',
  id: string,
  rel: (p: string) => string,
  missing: string[],
): boolean {
  const taken = new Map<string, string>();
  for (const root of roots) {
    for (const f of listTree(path.join(root, id))) if (!taken.has(f)) taken.set(f, root);
  }
  const where = roots.map((r) => `${rel(r)}/${id}`).join(' or ');
  if (!taken.has('input.md')) {
    missing.push(`${split} case ${id}: input.md (looked in ${where})`);
    return false;
  }
  const sources = new Set(taken.values());
  if (sources.size > 1) {
    draft.note(
      `${split} case ${id} merged from ${[...sources].map((r) => rel(r)).join(' and ')}: ${[...taken].map(([f, r]) => `${f} ← ${rel(r)}`).join(', ')}`,
    );
  }
  const dest = `cases/${split}/${id}`;
  for (const [f, root] of [...taken].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (f === 'input.md' || f.startsWith('assets/')) draft.put(`${dest}/${f}`, readFileSync(path.join(root, id, f)));
    else draft.note(`${rel(root)}/${id}/${f}: not an input or asset, not imported`);
  }
  const input = readFileSync(path.join(taken.get('input.md')!, id, 'input.md'), 'utf8');
  const refs = [
    ...new Set([...input.matchAll(/\bassets\/[^\s)\]"'`<>]+/g)].map((m) => m[0].replace(/[.,;:]+$/, ''))),
  ].sort();
  const absent = refs.filter((r) => !taken.has(r));
  if (absent.length)
    draft.note(`${split} case ${id}: input.md references assets absent from the package: ${absent.join(', ')}`);
  return true;
}

function findDimensionsJson(evaluatorDir: string): string | null {
  if (!existsSync(evaluatorDir)) return null;
  const name = readdirSync(evaluatorDir)
    .sort()
    .find((n) => /dimensions.*\.json$/i.test(n));
  return name ? path.join(evaluatorDir, name) : null;
}

/** Placeholders a foreign command writes as `<...>` after a flag, mapped to heldout's by the flag's name. */
const FLAG_PLACEHOLDERS: [RegExp, string][] = [
  [/^input/, '{input}'],
  [/^out/, '{output}'],
  [/^run/, '{run}'],
  [/^case/, '{case}'],
];

/** Rewrites `--input <input.md> --output <dir>` style placeholders to heldout's; returns the command and leftovers. */
export function normalizeEntry(command: string): { command: string; unknown: string[] } {
  const unknown: string[] = [];
  const joined = command
    .replace(/\\\r?\n\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const out = joined.replace(/(--?([\w-]+))(\s+|=)<([^>]+)>/g, (m, flag: string, name: string, sep: string) => {
    const hit = FLAG_PLACEHOLDERS.find(([re]) => re.test(name.toLowerCase()));
    if (!hit) {
      unknown.push(m);
      return m;
    }
    return `${flag}${sep}${hit[1]}`;
  });
  for (const m of out.matchAll(/<[^>]+>/g)) if (!unknown.some((u) => u.includes(m[0]))) unknown.push(m[0]);
  return { command: out, unknown };
}

function entryCommand(
  taskJson: Record<string, unknown> | null,
  contract: Record<string, unknown> | null,
  iface: string,
  readme: string | null,
  draft: PackageDraft,
): string {
  const declared = str(obj(taskJson?.protocol)?.entry_command) ?? str(contract?.entry_command) ?? str(contract?.entry);
  let source = declared ? 'the protocol' : '';
  let raw = declared;
  if (!raw) {
    for (const [doc, name] of [
      [iface, '02 interface document'],
      [readme ?? '', 'benchmark README'],
    ] as const) {
      for (const b of codeBlocks(doc)) {
        const cmd = b.code
          .replace(/\\\r?\n\s*/g, ' ')
          .split(/\r?\n/)
          .find((l) => /--input\b/.test(l) && /--output\b/.test(l));
        if (cmd) {
          raw = cmd;
          source = `the ${name}`;
          break;
        }
      }
      if (raw) break;
    }
  }
  if (!raw) {
    draft.note(`no launch command found in the package; the entry defaults to \`${AGENTSWE_DEFAULT_ENTRY}\``);
    return AGENTSWE_DEFAULT_ENTRY;
  }
  const { command, unknown } = normalizeEntry(raw);
  if (unknown.length)
    draft.note(`entry command (from ${source}) keeps placeholders heldout does not define: ${unknown.join(', ')}`);
  return command;
}

function budgetsFrom(
  protocol: Record<string, unknown> | null,
  cb: Record<string, unknown> | null,
  resources: string,
  gates: GateBullet[],
  draft: PackageDraft,
): Record<string, number> {
  const b: Record<string, number> = {};
  const wall = num(protocol?.case_timeout_sec) ?? num(cb?.case_timeout_sec) ?? num(cb?.wall_seconds);
  const gateSeconds = gates.find((g) => g.seconds !== null)?.seconds ?? null;
  if (wall !== null) b.wallSeconds = wall;
  else {
    const m =
      /(\d+)[-\s]*(?:seconds|s)\b[^.\n]*wall/i.exec(resources) ??
      /wall[^.\n]*?(\d+)\s*(?:seconds|s)\b/i.exec(resources);
    if (m) b.wallSeconds = Number(m[1]);
    else if (gateSeconds !== null) b.wallSeconds = gateSeconds;
    else draft.note("no per-case time budget found; heldout's default wall-clock budget (600 s) applies");
  }
  if (gateSeconds !== null && b.wallSeconds !== undefined && gateSeconds !== b.wallSeconds) {
    draft.note(
      `the rubric's time gate says ${gateSeconds} s, the protocol ${b.wallSeconds} s; the protocol's budget was used`,
    );
  }
  const mem = num(protocol?.memory_mb) ?? num(cb?.memory_mb);
  if (mem !== null) b.memoryMb = mem;
  else {
    const line = resources
      .split(/\r?\n/)
      .find((l) => /memory/i.test(l) && /\d+(?:\.\d+)?\s*(?:GiB|GB|MiB|MB)\b/i.test(l));
    const m = line ? /(\d+(?:\.\d+)?)\s*(GiB|GB|MiB|MB)\b/i.exec(line) : null;
    const gateMem = gates.find((g) => g.memoryMb !== null)?.memoryMb ?? null;
    if (m) b.memoryMb = Math.round(Number(m[1]) * (/^G/i.test(m[2]!) ? 1024 : 1));
    else if (gateMem !== null) b.memoryMb = gateMem;
    else draft.note("no per-case memory budget found; heldout's default (4096 MiB) applies");
  }
  const cpus = num(protocol?.cpus) ?? num(cb?.cpus);
  if (cpus !== null) b.cpus = cpus;
  const calls = num(cb?.model_calls);
  if (calls !== null) b.modelCalls = calls;
  else {
    const m = /at most (\d+) requests/i.exec(resources);
    if (m) {
      b.modelCalls = Number(m[1]);
      draft.note(
        `budgets.modelCalls = ${m[1]} read from the resources document ("${m[0]}"); provider-specific sub-budgets there are not enforced separately`,
      );
    }
  }
  const tokens = num(cb?.model_tokens);
  if (tokens !== null) b.modelTokens = tokens;
  const rounds = num(protocol?.max_dev_rounds) ?? num(cb?.max_dev_rounds) ?? num(cb?.dev_rounds);
  if (rounds !== null) b.devRounds = rounds;
  return b;
}

/** The artifacts of the interface document's output tree; the rubric's mechanical zero-gates make some required. */
function artifactsFrom(iface: string, gates: GateBullet[], draft: PackageDraft) {
  const listed: string[] = [];
  const dirs: string[] = [];
  for (const b of codeBlocks(iface)) {
    const lines = b.code.split(/\r?\n/).filter((l) => l.trim() !== '');
    if (lines.length < 2 || !/output[^/]*\/\s*$/i.test(lines[0]!)) continue;
    for (const l of lines.slice(1)) {
      const m = /^([\s|│`├└]*?)(?:\|--|`--|├──|└──|[-*])\s*(.+?)\s*$/.exec(l);
      if (!m) continue;
      const depth = m[1]!.replace(/\s+$/, '').length;
      const name = m[2]!;
      if (depth > 0) continue;
      if (name.endsWith('/')) dirs.push(name);
      else if (!name.includes('<')) listed.push(name);
    }
    if (listed.length) break;
  }
  const required = new Set(gates.flatMap((g) => g.required));
  const collective = new Set(gates.flatMap((g) => g.collective));
  for (const f of required) if (!listed.includes(f)) listed.push(f);
  if (dirs.length)
    draft.note(
      `output directories ${dirs.join(', ')} (one file per declared item) are not declared as artifacts: their files vary per case`,
    );
  if (collective.size) {
    const covered = [...required].length > 0;
    draft.note(
      `the zero-gate "${[...collective].join(', ')} collectively absent" is ${covered ? 'implied by the required artifacts' : 'not enforced deterministically (no single artifact is required)'}`,
    );
  }
  const optional = listed.filter((f) => !required.has(f));
  if (optional.length)
    draft.note(
      `artifacts declared but not gated (the rubric deducts for them instead of zeroing): ${optional.join(', ')}`,
    );
  return listed.map((p) => ({ path: p, format: formatOf(p), required: required.has(p) }));
}

function editingFrom(protocol: Record<string, unknown> | null, draft: PackageDraft) {
  const editing: Record<string, unknown> = { patch: str(protocol?.patch) ?? 'solution.patch' };
  const allowed = stringList(protocol?.allowed_paths);
  const forbidden = stringList(protocol?.forbidden_paths);
  if (allowed) editing.allowedPaths = allowed;
  if (forbidden) editing.forbiddenPaths = forbidden;
  const reg = str(protocol?.regression_command);
  if (reg) editing.regression = { command: reg };
  else
    draft.note(
      "no regression command (protocol.regression_command): μ_reg, the preservation of the product's behaviour, is not checked",
    );
  return editing;
}

function rubricFrom(plan: NonNullable<ReturnType<typeof planRubric>>, draft: PackageDraft) {
  const guidance = plan.guidance ? `\n\nGeneral rubric rules (apply to every dimension):\n${plan.guidance}` : '';
  const dimensions = plan.dimensions.map((d) => ({
    id: d.id,
    title: d.title,
    max: d.weight,
    items: [
      {
        judge: `${d.text ?? `Score "${d.title}" (${d.weight} points) against the requirement.`}${guidance}`,
        points: d.weight,
        title: d.title,
      },
    ],
  }));
  const judged = plan.gates.filter((g) => g.judged);
  for (const g of plan.gates) {
    const parts = [
      g.mechanical.includes('exit') ? 'launch/exit → error-exit gate' : null,
      g.mechanical.includes('budget') ? 'time/memory → timeout/oom gates (budgets)' : null,
      g.required.length
        ? `${g.required.join(', ')} → required artifacts (missing-artifact/invalid-artifact gates)`
        : null,
      g.collective.length ? `${g.collective.join(', ')} all absent → implied by the required artifacts` : null,
      g.judged ? 'the rest → judged zero ceiling' : null,
    ].filter(Boolean);
    draft.note(`zero-gate "${g.text}": ${parts.join('; ')}`);
  }
  const rubric: Record<string, unknown> = { dimensions };
  if (judged.length) {
    rubric.ceilings = [
      {
        id: 'zero-gates',
        max: 0,
        reason: 'a zero-gate of the source rubric that needs judgment',
        unless: {
          judge: `The run is valid: none of these zero-gate conditions holds (each one, when it holds, makes the case 0/100):\n${judged.map((g) => `- ${g.text}`).join('\n')}`,
        },
      },
    ];
  }
  return rubric;
}

function objectiveRubric(objective: Record<string, unknown> | null, draft: PackageDraft) {
  const command = str(objective?.command);
  const name = str(objective?.name) ?? 'objective';
  const description = str(objective?.description) ?? "the source benchmark's native metric";
  const item = command
    ? { check: 'command', run: command, score: 'reward', points: 100, title: name }
    : { judge: `Estimate ${name} (${description}) for this case from the produced outputs.`, points: 100, title: name };
  if (!command)
    draft.note(
      'the objective has no command computing it (objective.command); it is judged, which is weaker than the native metric',
    );
  return { dimensions: [{ id: 'objective', title: name, max: 100, items: [item] }] };
}

function readJson(p: string, name: string, missing: string[]): Record<string, unknown> | null {
  const text = readIfExists(p);
  if (text === null) {
    if (name === 'task.json') missing.push('task.json (id, family, protocol: case budget and case lists)');
    return null;
  }
  try {
    const v = JSON.parse(text);
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
      missing.push(`${name}: must be a JSON object`);
      return null;
    }
    return v as Record<string, unknown>;
  } catch (err) {
    missing.push(`${name}: invalid JSON (${(err as Error).message})`);
    return null;
  }
}

const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const stringList = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
