import path from 'node:path';
import { globToRegExp } from '../util/index.js';

/**
 * What every file of a Harbor task becomes, by Harbor's layout (`TaskPaths`): the importer copies the whole task
 * verbatim to `harbor/` and this says, per file, what heldout does with it at run time.
 */
export interface TaskLayout {
  /** Relative paths of every file of the task. */
  files: string[];
  /** The final stage's local COPY/ADD sources (relative to environment/) and destinations. */
  copies: { from: string[]; to: string }[];
  /** Compose sidecars' build contexts (relative to environment/), by service name. */
  serviceContexts: Record<string, string>;
  hasCompose: boolean;
  steps: string[];
  /** Tests directories a separate verifier's image is built from (`tests`, `steps/<name>/tests`). */
  verifierContexts?: string[];
}

/** Files Harbor itself never reads, and why they are in a task directory. */
const AUTHOR_FILES: [RegExp, string][] = [
  [/^README(\.\w+)?$/i, "the recipe's documentation"],
  [/^\.gitignore$|^\.gitattributes$/, 'a git file'],
  [/^(F2P|PROVENANCE)\.json$/, "the task author's provenance record"],
  [/^HANDOFF\.md$/, "the task author's notes"],
  [/^config\.ya?ml$/, 'a Harbor job config (`harbor run -c`), not part of the task'],
  [
    /^metrics\//,
    'a Harbor job-level metric (`-c config.yaml`); heldout reports each reward key as a dimension instead',
  ],
];

// A COPY source is read as Docker reads it: Go's filepath.Match.
const glob = (pattern: string) => globToRegExp(pattern, { go: 'match' });

/** Where a build-context file lands in the image by the COPY/ADD instructions, or null when none copies it. */
function copiedTo(rel: string, copies: TaskLayout['copies']): string | null {
  for (const c of copies) {
    for (const raw of c.from) {
      const src = path.posix.normalize(raw).replace(/\/$/, '').replace(/^\.$/, '');
      const intoDir = c.to.endsWith('/');
      if (src === '' || rel.startsWith(`${src}/`)) {
        const inner = src === '' ? rel : rel.slice(src.length + 1);
        return path.posix.join(c.to, inner);
      }
      if (rel === src || glob(src).test(rel)) return intoDir ? path.posix.join(c.to, path.posix.basename(rel)) : c.to;
    }
  }
  return null;
}

/** Every file of the task with what heldout makes of it (`harbor/<file>` holds the copy). */
export function accountFiles(layout: TaskLayout): Map<string, string> {
  const out = new Map<string, string>();
  const stepOf = (f: string) => /^steps\/([^/]+)\/(.*)$/.exec(f);
  for (const f of layout.files) {
    const copy = `copied to harbor/${f}`;
    const author = AUTHOR_FILES.find(([re]) => re.test(f));
    let became: string;
    if (f === 'task.toml') became = 'read into commission.yaml (harbor block, budgets) and the notes above';
    else if (f === 'instruction.md')
      became = layout.steps.length
        ? 'not used: a multi-step task has per-step instructions (as in Harbor)'
        : 'the case input `task` (input.md), canary lines stripped as Harbor does';
    else if (f === 'trajectory.json')
      became = 'not used: prior agent context (ATIF) that Harbor seeds; a heldout delivery starts fresh';
    else if (f === 'environment/Dockerfile')
      became = "the trial's image: built, or its base mapped and its final stage replayed";
    else if (/^environment\/docker-compose\.ya?ml$/.test(f))
      became = f.endsWith('.yaml')
        ? "read: its services other than `main` became the commission's services"
        : 'not used: Harbor reads only docker-compose.yaml';
    else if (f.startsWith('environment/')) {
      const rel = f.slice('environment/'.length);
      const svc = Object.entries(layout.serviceContexts).find(([, ctx]) => ctx === '.' || rel.startsWith(`${ctx}/`));
      const dest = copiedTo(rel, layout.copies);
      if (svc && svc[1] !== '.') became = `build context of compose service \`${svc[0]}\``;
      else if (dest) became = `in the image at ${dest} (COPY)`;
      else became = 'in the build context only (no COPY of the final stage names it)';
    } else if (layout.verifierContexts?.some((c) => f.startsWith(`${c}/`))) {
      const c = layout.verifierContexts.find((x) => f.startsWith(`${x}/`))!;
      became = `the separate verifier's image build context (${c}/Dockerfile builds it; the image owns /tests)`;
    } else if (f === 'tests/test.sh')
      became = 'the verifier: uploaded to /tests and run as /tests/test.sh after the agent';
    else if (f.startsWith('tests/'))
      became = `uploaded to /tests/${f.slice(6)} before the verifier${layout.steps.length ? " of every step (under the step's own tests/)" : ''}`;
    else if (f === 'solution/solve.sh') became = 'the oracle: `heldout run --oracle` runs it as /solution/solve.sh';
    else if (f.startsWith('solution/')) became = `uploaded to /solution/${f.slice(9)} for the oracle only`;
    else if (stepOf(f)) {
      const [, step, rest] = stepOf(f)!;
      if (rest === 'instruction.md') became = `the instruction of step ${step}, canary lines stripped`;
      else if (rest === 'tests/test.sh') became = `step ${step}'s verifier, run as /tests/test.sh`;
      else if (rest!.startsWith('tests/'))
        became = `uploaded to /tests/${rest!.slice(6)} before step ${step}'s verifier`;
      else if (rest === 'solution/solve.sh') became = `the oracle of step ${step}, run as /solution/solve.sh`;
      else if (rest!.startsWith('solution/'))
        became = `uploaded to /solution/${rest!.slice(9)} for step ${step}'s oracle`;
      else if (rest === 'workdir/setup.sh')
        became = `uploaded to the workdir and run (bash) before step ${step}'s agent`;
      else if (rest!.startsWith('workdir/')) became = `uploaded to the workdir before step ${step}'s agent`;
      else became = `not used: Harbor reads no steps/${step}/${rest}`;
    } else if (author) became = `not used: ${author[1]}`;
    else became = 'not used: not part of the Harbor task layout';
    out.set(f, `${became}; ${copy}`);
  }
  return out;
}
