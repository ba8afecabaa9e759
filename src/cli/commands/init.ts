import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canaryLine, type Family } from '../../commission/index.js';
import { defineCommand, UsageError } from '../command.js';
import { requireDirectory } from '../errors.js';
import { creationSkeleton } from '../init/creation.js';
import { editingSkeleton } from '../init/editing.js';
import { optimizationSkeleton } from '../init/optimization.js';
import type { Files, Skeleton } from '../init/skeleton.js';
import { toolAgentSkeleton } from '../init/tool-agent.js';
import { declareOptions, stringOption } from '../options.js';

/** The families a skeleton is written for; a Harbor task is imported (`heldout import harbor`), not written here. */
type Written = Exclude<Family, 'harbor'>;
const SKELETONS: Record<Written, (id: string) => Skeleton> = {
  creation: creationSkeleton,
  editing: editingSkeleton,
  optimization: optimizationSkeleton,
  'tool-agent': toolAgentSkeleton,
};

/** How an existing delivery is started, guessed from the launcher it has (AgentSWE and Harbor name these). */
const LAUNCHERS: [string, string][] = [
  ['run_agent.py', 'python3 run_agent.py --input {input} --output {output}'],
  ['agent.py', 'python3 agent.py --input {input} --output {output}'],
  ['main.py', 'python3 main.py --input {input} --output {output}'],
  ['agent.mjs', 'node agent.mjs --input {input} --output {output}'],
  ['index.mjs', 'node index.mjs --input {input} --output {output}'],
  ['index.js', 'node index.js --input {input} --output {output}'],
  ['run.sh', 'sh run.sh {input} {output}'],
];

/** The entry command of an existing delivery, or a UsageError saying how to give one. */
export function entryOf(delivery: string, family: Family): string {
  const has = (f: string) => existsSync(path.join(delivery, f));
  // A tool-agent speaks the protocol on stdio: no input and output arguments.
  const stdio = (cmd: string) => (family === 'tool-agent' ? cmd.replace(/ --input .*$| \{input\}.*$/, '') : cmd);
  for (const [file, cmd] of LAUNCHERS) if (has(file)) return stdio(cmd);
  if (has('package.json')) {
    const pkg = JSON.parse(readFileSync(path.join(delivery, 'package.json'), 'utf8')) as { main?: unknown };
    if (typeof pkg.main === 'string') return stdio(`node ${pkg.main} --input {input} --output {output}`);
  }
  throw new UsageError(
    `init: cannot tell how ${delivery} starts (no ${LAUNCHERS.map(([f]) => f).join(', ')} or package.json main); give --entry '<command>'`,
  );
}

function slug(dir: string): string {
  const s = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return s || 'my-commission';
}

function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || (statSync(dir).isDirectory() && readdirSync(dir).length === 0);
}

function writeFiles(root: string, files: Files): void {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

export default defineCommand({
  name: 'init',
  summary:
    'write a commission skeleton (commented commission.yaml and rubric.yaml, a dev and a held-out case) and a delivery that passes it',
  help: `Usage: heldout init <dir> [--family ${Object.keys(SKELETONS).join('|')}] [--id <slug>] [--delivery <dir>]
       heldout init <dir> --from <delivery> [--entry <command>]

Writes a commission package that validates and runs: commission.yaml and rubric.yaml with a comment on every
field (the full reference is docs/commission.md), the four requirement documents, one dev case and one held-out
case (with truth.json, and a canary line in the held-out input.md), and — for editing and optimization — the
starter/ tree. Beside it, an example delivery that passes the commission (default <dir>-delivery).

  --family f        creation (default), editing, optimization or tool-agent (a Harbor task is imported:
                    heldout import harbor <task-dir>)
  --id slug         the commission id (default: the directory's name as a slug)
  --delivery dir    where the example delivery goes (default <dir>-delivery)
  --from delivery   an existing delivery to commission: its launcher (run_agent.py, agent.mjs, …, package.json
                    main) becomes the entry command, and no example delivery is written; the rubric and cases
                    are still the examples, to be rewritten for it
  --entry command   the entry command (with --from, instead of the guessed one)
  --force           write into a directory that is not empty

Exit: 0 written, 2 usage error (an existing non-empty directory without --force, an unknown family).`,
  options: declareOptions({ string: ['family', 'id', 'delivery', 'from', 'entry'], boolean: ['force'] }),
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('init: name exactly one directory to write the commission to');
    const dir = positionals[0]!;
    const family = (stringOption(values, 'family') ?? 'creation') as Written;
    if ((family as Family) === 'harbor')
      throw new UsageError('init: a harbor commission is imported from its task; use heldout import harbor <task-dir>');
    if (!Object.hasOwn(SKELETONS, family))
      throw new UsageError(`init: --family ${family} is not a family; use one of ${Object.keys(SKELETONS).join(', ')}`);
    const id = stringOption(values, 'id') ?? slug(dir);
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(id))
      throw new UsageError(`init: --id ${id} is not a slug; use lower-case letters, digits, ".", "_" and "-"`);
    const from = stringOption(values, 'from');
    if (from) requireDirectory(from, 'init: --from', 'give the directory of the delivery to commission');
    const deliveryDir = from ? null : (stringOption(values, 'delivery') ?? `${dir.replace(/\/+$/, '')}-delivery`);
    for (const d of [dir, ...(deliveryDir ? [deliveryDir] : [])]) {
      if (!isEmptyDir(d) && values.force !== true)
        throw new UsageError(`init: ${d} exists and is not empty; choose another directory or add --force`);
    }

    const skeleton = SKELETONS[family](id);
    const files = { ...skeleton.commission };
    // Each held-out case gets its canary: a delivery that holds it had the case (the run's contamination scan).
    for (const rel of Object.keys(files))
      if (/^cases\/heldout\/[^/]+\/input\.md$/.test(rel)) files[rel] = `${files[rel]}\n${canaryLine()}\n`;
    const entry = stringOption(values, 'entry') ?? (from && family !== 'editing' ? entryOf(from, family) : undefined);
    if (entry) files['commission.yaml'] = files['commission.yaml']!.replace(/^entry: .*$/m, `entry: ${entry}`);
    writeFiles(dir, files);
    if (deliveryDir) writeFiles(deliveryDir, skeleton.delivery);

    const delivery = deliveryDir ?? from!;
    console.log(`wrote the ${family} commission ${id} to ${dir} (1 dev case, 1 held-out case)`);
    if (deliveryDir) console.log(`wrote an example delivery that passes it to ${deliveryDir}`);
    else
      console.log(
        `entry: ${entry ?? '(the skeleton’s)'} for ${from}; the rubric and the cases are examples to rewrite`,
      );
    console.log(`next:
  npx heldout validate ${dir}
  npx heldout dev ${dir} --delivery ${delivery}
  npx heldout run ${dir} --delivery ${delivery} --split both`);
    return 0;
  },
});
