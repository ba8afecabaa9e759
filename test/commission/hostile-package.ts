// Hostile commission packages for the loader's fuzz test: a small valid package written from objects, then
// edits to its fields (paths with `..`), its YAML (aliases, deep nesting) and its files (byte flips, truncation,
// type swaps, links in and out, FIFOs, devices, oversized files).
import { spawnSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';

/** Every path of the base package the loader looks at (parents before children). */
export const BASE_PATHS = [
  'commission.yaml',
  'rubric.yaml',
  'requirement',
  'requirement/01_goal.md',
  'requirement/02_interface.md',
  'requirement/03_requirements.md',
  'requirement/04_resources.md',
  'cases',
  'cases/dev',
  'cases/dev/d1',
  'cases/dev/d1/input.md',
  'cases/dev/d1/truth.json',
  'cases/dev/d1/assets',
  'cases/dev/d1/assets/data.txt',
  'cases/heldout',
  'cases/heldout/h1',
  'cases/heldout/h1/input.md',
  'cases/heldout/h1/truth.json',
  'cases/heldout/h1/case.yaml',
  'cases/heldout/h1/fixture',
  'cases/heldout/h1/fixture/rows.json',
  'checks',
  'checks/score.ts',
  'services',
  'services/api.mjs',
] as const;
const FILES = BASE_PATHS.filter((p) => /\.(yaml|md|json|txt|ts|mjs)$/.test(p));
const YAMLS = ['commission.yaml', 'rubric.yaml', 'cases/heldout/h1/case.yaml'] as const;
const DOCS = [...YAMLS, 'cases/dev/d1/truth.json', 'cases/heldout/h1/truth.json'] as const;

function baseCommission() {
  return {
    id: 'fuzz',
    title: 'Fuzzed package',
    family: 'creation',
    entry: 'python3 run.py --input {input} --output {output}',
    budgets: { wallSeconds: 30, memoryMb: 256 },
    artifacts: [{ path: 'out.json', format: 'json', schema: { type: 'object', required: ['answer'] } }],
    // Issue 19's services: a file of the package every case mounts (a case's own, in h1's case.yaml).
    services: [{ name: 'api', image: 'heldout/runtime:1', files: { '{commission}/services/api.mjs': '/srv/api.mjs' } }],
  } as Record<string, any>;
}

function baseRubric() {
  return {
    dimensions: [
      {
        id: 'answer',
        title: 'Answer',
        max: 100,
        items: [
          { check: 'json-equals', file: 'out.json', path: 'answer', expected: { truth: 'answer' }, points: 60 },
          { check: 'function', module: 'score.ts', points: 40 },
        ],
      },
    ],
    outcomes: [{ id: 'O1', title: 'answers', when: { check: 'exists', file: 'out.json', points: 0 }, caps: {} }],
  } as Record<string, any>;
}

/** A field that names a path, and how to set it in the base objects. */
const PATH_FIELDS = [
  {
    file: 'commission.yaml',
    field: 'artifacts.0.path',
    set: (c: any, _r: any, v: string) => (c.artifacts[0].path = v),
  },
  {
    file: 'rubric.yaml',
    field: 'dimensions.0.items.0.file',
    set: (_c: any, r: any, v: string) => (r.dimensions[0].items[0].file = v),
  },
  {
    file: 'rubric.yaml',
    field: 'dimensions.0.items.1.module',
    set: (_c: any, r: any, v: string) => (r.dimensions[0].items[1].module = v),
  },
  {
    file: 'rubric.yaml',
    field: 'outcomes.0.when.file',
    set: (_c: any, r: any, v: string) => (r.outcomes[0].when.file = v),
  },
  {
    file: 'commission.yaml',
    // the source is the key: the field is named by it
    field: (v: string) => `services.0.files.${v}`,
    set: (c: any, _r: any, v: string) => (c.services[0].files = { [v]: '/srv/x' }),
  },
] as const;

export type Mutation =
  | { kind: 'dotdot'; at: number; value: string }
  | { kind: 'flip'; file: string; at: number; byte: number }
  | { kind: 'truncate'; file: string; at: number }
  | { kind: 'swap'; path: string; to: 'dir' | 'file' | 'empty' | 'fifo' | 'device' | 'missing' }
  | { kind: 'link'; path: string; to: string }
  | { kind: 'alias'; file: string; how: 'unresolved' | 'bomb' | 'self' | 'insert'; at: number }
  | { kind: 'deep'; file: string; depth: number; how: 'flow' | 'block' }
  | { kind: 'huge'; file: string };

const DOTDOT = fc.constantFrom(
  '../../../../etc/passwd',
  '..',
  '../out.json',
  'a/../../b',
  '/etc/passwd',
  'x/..\\..\\y',
);
/** Link targets: out of the package, dangling, loops, up and inside it. */
const TARGETS = fc.constantFrom(
  '/dev/zero',
  '/dev/urandom',
  '/etc/passwd',
  '/nonexistent/file',
  '@self',
  '@loop',
  '..',
  '.',
  '@inside:cases/heldout/h1/truth.json',
  '@inside:cases/heldout/h1',
  '@inside:requirement',
);

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('dotdot' as const), at: fc.nat(PATH_FIELDS.length - 1), value: DOTDOT }),
  fc.record({ kind: fc.constant('flip' as const), file: fc.constantFrom(...FILES), at: fc.nat(), byte: fc.nat(255) }),
  fc.record({ kind: fc.constant('truncate' as const), file: fc.constantFrom(...FILES), at: fc.nat() }),
  fc.record({
    kind: fc.constant('swap' as const),
    path: fc.constantFrom(...BASE_PATHS),
    to: fc.constantFrom('dir', 'file', 'empty', 'fifo', 'device', 'missing' as const),
  }),
  fc.record({ kind: fc.constant('link' as const), path: fc.constantFrom(...BASE_PATHS), to: TARGETS }),
  fc.record({
    kind: fc.constant('alias' as const),
    file: fc.constantFrom(...YAMLS),
    how: fc.constantFrom('unresolved', 'bomb', 'self', 'insert' as const),
    at: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('deep' as const),
    file: fc.constantFrom(...DOCS),
    depth: fc.oneof(fc.integer({ min: 1, max: 150 }), fc.constantFrom(1000, 20_000, 200_000)),
    how: fc.constantFrom('flow', 'block' as const),
  }),
  fc.record({ kind: fc.constant('huge' as const), file: fc.constantFrom(...FILES) }),
);

/** Whether this machine lets us make a device node (root in most CI containers); else devices become links. */
let mknodWorks: boolean | undefined;

/** Writes the base package with `mutations` applied in order into a fresh temp dir. */
export function hostilePackage(mutations: Mutation[]): {
  dir: string;
  dotdotFields: { file: string; field: string }[];
} {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-fuzz-pkg-'));
  const commission = baseCommission();
  const rubric = baseRubric();
  const dotdotFields: { file: string; field: string }[] = [];
  // The last value set to a field is the one written (a service's source is its key: an earlier one is gone).
  const lastValue = new Map<number, string>();
  for (const m of mutations) if (m.kind === 'dotdot') lastValue.set(m.at, m.value);
  for (const [at, value] of lastValue) {
    const f = PATH_FIELDS[at]!;
    f.set(commission, rubric, value);
    dotdotFields.push({ file: f.file, field: typeof f.field === 'string' ? f.field : f.field(value) });
  }
  writeFileSync(path.join(dir, 'commission.yaml'), stringify(commission));
  writeFileSync(path.join(dir, 'rubric.yaml'), stringify(rubric));
  for (const [n, name] of [
    ['01', 'goal'],
    ['02', 'interface'],
    ['03', 'requirements'],
    ['04', 'resources'],
  ]) {
    mkdirSync(path.join(dir, 'requirement'), { recursive: true });
    writeFileSync(path.join(dir, 'requirement', `${n}_${name}.md`), `# ${name}\n`);
  }
  for (const [split, id] of [
    ['dev', 'd1'],
    ['heldout', 'h1'],
  ]) {
    mkdirSync(path.join(dir, 'cases', split!, id!), { recursive: true });
    writeFileSync(path.join(dir, 'cases', split!, id!, 'input.md'), `case ${id}\n`);
    writeFileSync(path.join(dir, 'cases', split!, id!, 'truth.json'), JSON.stringify({ answer: id, total_events: 50 }));
  }
  mkdirSync(path.join(dir, 'cases/dev/d1/assets'));
  writeFileSync(path.join(dir, 'cases/dev/d1/assets/data.txt'), 'a,b\n1,2\n');
  writeFileSync(
    path.join(dir, 'cases/heldout/h1/case.yaml'),
    stringify({ services: [{ name: 'db', image: 'heldout/runtime:1', files: { fixture: '/data' } }] }),
  );
  mkdirSync(path.join(dir, 'cases/heldout/h1/fixture'));
  writeFileSync(path.join(dir, 'cases/heldout/h1/fixture/rows.json'), '[]\n');
  mkdirSync(path.join(dir, 'services'));
  writeFileSync(path.join(dir, 'services/api.mjs'), '// the fixture api\n');
  mkdirSync(path.join(dir, 'checks'));
  writeFileSync(path.join(dir, 'checks/score.ts'), 'export default () => ({ score: 1, evidence: "ok" });\n');
  for (const m of mutations) {
    try {
      apply(dir, m);
    } catch {
      // The path is gone or below something that is no directory any more (an earlier swap): nothing to do.
    }
  }
  return { dir, dotdotFields };
}

/**
 * The path of `rel` below `dir` when every directory on the way is a real directory of the package (never a link:
 * an earlier mutation may have made `cases` a link to `..` or `/etc`), else null: a mutation never acts through a
 * link, so it can only ever change the package itself.
 */
function below(dir: string, rel: string): string | null {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const st = lstatOrNull(path.join(dir, ...parts.slice(0, i)));
    if (!st?.isDirectory()) return null;
  }
  return path.join(dir, rel);
}

/** `rel` when it is a regular file of the package (reached through real directories), else null. */
function regular(dir: string, rel: string): string | null {
  const p = below(dir, rel);
  return p && lstatOrNull(p)?.isFile() ? p : null;
}

/** `rel` removed first (whatever it is; a link itself, never what it points to), or null when unreachable. */
function fresh(dir: string, rel: string): string | null {
  const p = below(dir, rel);
  if (p) rmSync(p, { recursive: true, force: true });
  return p;
}

function apply(dir: string, m: Mutation): void {
  switch (m.kind) {
    case 'dotdot':
      return;
    case 'flip': {
      const p = regular(dir, m.file);
      if (!p) return;
      const bytes = readFileSync(p);
      if (bytes.length === 0) return;
      bytes[m.at % bytes.length] = m.byte;
      writeFileSync(p, bytes);
      return;
    }
    case 'truncate': {
      const p = regular(dir, m.file);
      if (!p) return;
      truncateSync(p, m.at % (statSync(p).size + 1));
      return;
    }
    case 'huge': {
      // Sparse: 9 MiB on paper, nothing on disk.
      const p = regular(dir, m.file);
      if (p) truncateSync(p, 9 * 1024 * 1024);
      return;
    }
    case 'swap': {
      const p = fresh(dir, m.path);
      if (!p || m.to === 'missing') return;
      if (m.to === 'dir') {
        mkdirSync(p);
        writeFileSync(path.join(p, 'inside.md'), 'x');
      } else if (m.to === 'file') writeFileSync(p, 'not what was expected\n');
      else if (m.to === 'empty') writeFileSync(p, '');
      else if (m.to === 'fifo') spawnSync('mkfifo', [p]);
      else {
        mknodWorks ??= spawnSync('mknod', [path.join(dir, '.probe'), 'c', '1', '5']).status === 0;
        rmSync(path.join(dir, '.probe'), { force: true });
        if (mknodWorks) spawnSync('mknod', [p, 'c', '1', '5']);
        else symlinkSync('/dev/zero', p);
      }
      return;
    }
    case 'link': {
      const p = fresh(dir, m.path);
      if (!p) return;
      if (m.to === '@self') symlinkSync(p, p);
      else if (m.to === '@loop') {
        symlinkSync(`${p}.b`, p);
        symlinkSync(p, `${p}.b`);
      } else if (m.to.startsWith('@inside:')) symlinkSync(path.join(dir, m.to.slice(8)), p);
      else symlinkSync(m.to, p);
      return;
    }
    case 'alias': {
      const p = regular(dir, m.file);
      if (!p) return;
      const text = readFileSync(p, 'utf8');
      const add =
        m.how === 'unresolved'
          ? 'extra: *nowhere\n'
          : m.how === 'self'
            ? 'extra: &me\n  again: *me\n'
            : m.how === 'bomb'
              ? `${['a: &a [x,x,x,x,x,x,x,x,x]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`)].join('\n')}\n`
              : null;
      if (add) writeFileSync(p, text + add);
      else {
        const i = m.at % (text.length + 1);
        writeFileSync(p, `${text.slice(0, i)} *a &a ${text.slice(i)}`);
      }
      return;
    }
    case 'deep': {
      const p = regular(dir, m.file);
      if (!p) return;
      const json = m.file.endsWith('.json');
      const nest =
        m.how === 'flow' || json
          ? `${'['.repeat(m.depth)}1${']'.repeat(m.depth)}`
          : `\n${Array.from({ length: Math.min(m.depth, 3000) }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')} 1`;
      writeFileSync(p, json ? `{"answer": "d", "deep": ${nest}}` : `${readFileSync(p, 'utf8')}deep: ${nest}\n`);
      return;
    }
  }
}

/**
 * What must make the load fail whatever else happened: a FIFO, a device, or a link out of the package, dangling or
 * looping, at a path the loader reads (below real directories only: a path under a swapped parent is never reached).
 */
export function mustRefuse(dir: string): string | null {
  const root = realpathSync(dir);
  for (const rel of BASE_PATHS) {
    if (!referenced(dir, rel)) continue;
    const parts = rel.split('/');
    let reachable = true;
    for (let i = 1; i < parts.length && reachable; i++) {
      const st = lstatOrNull(path.join(dir, ...parts.slice(0, i)));
      reachable = st?.isDirectory() === true;
    }
    if (!reachable) continue;
    const p = path.join(dir, rel);
    const st = lstatOrNull(p);
    if (!st) continue;
    if (st.isFIFO() || st.isCharacterDevice() || st.isBlockDevice()) return `${rel} is special`;
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(p);
      } catch {
        return `${rel} is a broken link`;
      }
      if (real !== root && !real.startsWith(root + path.sep)) return `${rel} leads out`;
    }
  }
  return null;
}

/**
 * Paths read only because a document names them (a service's files): read when the naming document, a regular file,
 * still holds the name. (Damage that keeps the name but drops its use also makes the document invalid.)
 */
const NAMED_BY: Record<string, { doc: string; name: string }> = {
  services: { doc: 'commission.yaml', name: '{commission}/services/api.mjs' },
  'services/api.mjs': { doc: 'commission.yaml', name: '{commission}/services/api.mjs' },
  'cases/heldout/h1/fixture': { doc: 'cases/heldout/h1/case.yaml', name: 'fixture' },
  'cases/heldout/h1/fixture/rows.json': { doc: 'cases/heldout/h1/case.yaml', name: 'fixture' },
};

function referenced(dir: string, rel: string): boolean {
  const by = NAMED_BY[rel];
  if (!by) return true;
  const doc = regular(dir, by.doc);
  return doc !== null && readFileSync(doc, 'utf8').includes(by.name);
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
