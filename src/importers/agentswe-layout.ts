import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Overlay, TaskView } from './agentswe-view.js';
import { readIfExists, subdirs } from './source-files.js';
import { asObject, asText } from './values.js';

/** The AgentSWE task families, each with its own directory layout. */
export type AgentSweFamily = 'creation' | 'editing' | 'optimization';

/** Which overlays to apply: a profile name or `paper` (none); a language overlay name or `as-run` (none). */
export interface OverlayChoice {
  profile?: string;
  lang?: string;
}

/** Where one family keeps its pieces (logical paths: overlays resolve through `view`), earlier entries first. */
export interface AgentSweLayout {
  family: AgentSweFamily;
  view: TaskView;
  /** Requirement documents: the Builder-visible copy first (creation's builder_package), then the evaluator's. */
  requirementDirs: string[];
  caseRoots: { dev: string[]; heldout: string[] };
  /** Where evaluator material lives; the first holds the Result rubric for creation and optimization. */
  evaluatorDirs: string[];
  /** Optimization: the starter a0 (the contract's initial artifact). */
  starterDir: string | null;
  contract: Record<string, unknown> | null;
  profile: string | null;
  lang: string | null;
  /** What was chosen about overlays and why, for the notes. */
  choices: string[];
}

const NO_PROFILE = new Set(['paper', 'none']);
const NO_LANG = new Set(['as-run', 'none']);

/**
 * The family (task.json's, else guessed from the directories present), the overlays to apply and where the pieces
 * live; null, with the reason added to `missing`, when `taskDir` is not an AgentSWE task directory or an overlay
 * asked for does not exist.
 */
export function detectLayout(
  taskDir: string,
  taskJson: Record<string, unknown> | null,
  choice: OverlayChoice,
  missing: string[],
): AgentSweLayout | null {
  const has = (...p: string[]) => existsSync(path.join(taskDir, ...p));
  const declared = asText(taskJson?.family);
  let family: AgentSweFamily;
  if (declared === 'creation' || declared === 'editing' || declared === 'optimization') family = declared;
  else if (has('benchmark', 'task_contract.json')) family = 'optimization';
  else if (has('tree')) family = 'editing';
  else if (has('benchmark') || has('builder_package')) family = 'creation';
  else {
    missing.push('benchmark/ (creation, optimization) or tree/ (editing): this is not an AgentSWE task directory');
    return null;
  }
  const choices: string[] = [];
  const overlays: Overlay[] = [];
  const profile = pickProfile(taskDir, taskJson, choice.profile, choices, missing);
  if (profile) overlays.push({ kind: 'profile', name: profile, dir: `profiles/${profile}`, mirrors: '' });
  const lang = family === 'editing' ? pickLang(taskDir, taskJson, choice.lang, choices, missing) : null;
  if (family !== 'editing' && choice.lang && !NO_LANG.has(choice.lang))
    missing.push(`--lang ${choice.lang}: only editing tasks have language overlays (lang/<l>/ mirroring tree/)`);
  if (lang) overlays.push({ kind: 'lang', name: lang, dir: `lang/${lang}`, mirrors: 'tree' });
  const view = new TaskView(taskDir, overlays);

  if (family === 'editing') {
    if (!has('tree'))
      missing.push('tree/ (the editing layout: tree/input, tree/dev_cases, tree/test_cases, tree/evaluator)');
    return {
      family,
      view,
      requirementDirs: ['tree/input'],
      caseRoots: { dev: ['tree/dev_cases'], heldout: ['tree/test_cases'] },
      evaluatorDirs: ['tree/evaluator', 'tree/agentloop/evaluator', 'tree/agentloop'],
      starterDir: null,
      contract: null,
      profile,
      lang,
      choices,
    };
  }
  let contract: Record<string, unknown> | null = null;
  let starterDir: string | null = null;
  if (family === 'optimization') {
    const hit = view.resolve('benchmark/task_contract.json');
    if (!hit) missing.push('benchmark/task_contract.json (splits, budgets, editable space, entry command)');
    else contract = parseObject(readIfExists(hit.abs), hit.rel, missing);
    const initial = asText(asObject(contract?.initial_artifact)?.path) ?? 'starter_harness';
    starterDir = `benchmark/${initial}`;
  }
  return {
    family,
    view,
    requirementDirs: family === 'creation' ? ['builder_package/input', 'benchmark/input'] : ['benchmark/input'],
    caseRoots:
      family === 'creation'
        ? { dev: ['benchmark/dev_cases', 'builder_package/dev_cases'], heldout: ['benchmark/test_cases'] }
        : { dev: ['benchmark/dev_cases'], heldout: ['benchmark/test_cases'] },
    evaluatorDirs: family === 'creation' ? ['benchmark/evaluator', 'adapter/evaluator'] : ['benchmark/evaluator'],
    starterDir,
    contract,
    profile,
    lang,
    choices,
  };
}

// The default profile is the Lite one a Lite task ships (the bytes the paper's Lite runs received); `paper` keeps
// the paper bytes. AgentSWE's own default is the paper bytes; heldout's users run the Lite tasks first.
function pickProfile(
  taskDir: string,
  taskJson: Record<string, unknown> | null,
  asked: string | undefined,
  choices: string[],
  missing: string[],
): string | null {
  const available = subdirs(path.join(taskDir, 'profiles'));
  if (asked !== undefined) {
    if (NO_PROFILE.has(asked)) {
      choices.push(`profile: none (--profile ${asked}): the paper bytes`);
      return null;
    }
    if (!available.includes(asked)) {
      missing.push(
        `--profile ${asked}: no profiles/${asked}/ (${available.length ? `available: ${available.join(', ')}` : 'the task has no profiles'})`,
      );
      return null;
    }
    choices.push(`profile: ${asked} (--profile)`);
    return asked;
  }
  const lite = available.filter((p) => /^lite/i.test(p));
  if (taskJson?.lite === true && lite.length === 1) {
    choices.push(`profile: ${lite[0]} (the task is marked lite; --profile paper keeps the paper bytes)`);
    return lite[0]!;
  }
  if (available.length) choices.push(`profile: none (the paper bytes); available: ${available.join(', ')}`);
  return null;
}

function pickLang(
  taskDir: string,
  taskJson: Record<string, unknown> | null,
  asked: string | undefined,
  choices: string[],
  missing: string[],
): string | null {
  const available = subdirs(path.join(taskDir, 'lang'));
  if (asked !== undefined) {
    if (NO_LANG.has(asked)) {
      choices.push(`language: the as-run tree (--lang ${asked})`);
      return null;
    }
    if (!available.includes(asked)) {
      missing.push(
        `--lang ${asked}: no lang/${asked}/ (${available.length ? `available: ${available.join(', ')}` : 'none'})`,
      );
      return null;
    }
    choices.push(`language: ${asked} (--lang)`);
    return asked;
  }
  const language = asObject(taskJson?.language);
  const marked = available.find((l) =>
    [language?.release_task_docs, language?.english_task_docs].some((v) => typeof v === 'string' && v.includes(l)),
  );
  const pick = marked ?? (available.length === 1 ? available[0]! : null);
  if (pick) {
    choices.push(
      `language: ${pick} over tree/ (${marked ? "the task's release language docs" : 'the only language overlay'}; --lang as-run keeps the as-run tree)`,
    );
  } else if (available.length) choices.push(`language: the as-run tree; overlays available: ${available.join(', ')}`);
  return pick;
}

/** A JSON object from text, or null with the problem added to `missing`. */
export function parseObject(text: string | null, name: string, missing: string[]): Record<string, unknown> | null {
  if (text === null) return null;
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
