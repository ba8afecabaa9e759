// The hostile packages of issue 17 (item 10), one by one: each is refused with one `file: field: problem` line
// naming what is wrong — never a raw EISDIR/ENOTDIR/ELOOP/ENOENT or YAML alias exception, never a hang on
// /dev/zero or a FIFO — and `heldout validate` prints those lines, exit 2, no stack. Links that stay inside the
// package (and, for what a sandbox sees, inside the case) still load.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { CommissionError, formatProblem, loadCommission } from '../../src/commission/index.js';
import { heldout } from '../helpers/cli.js';
import { writePackage } from './package-fixtures.js';

const commission = {
  id: 'hostile',
  title: 'Hostile package',
  family: 'creation',
  entry: 'python3 run.py --input {input} --output {output}',
  artifacts: [{ path: 'out.json', format: 'json' }],
};
const rubric = {
  dimensions: [{ id: 'a', title: 'A', max: 100, items: [{ check: 'exists', file: 'out.json', points: 100 }] }],
};

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A valid package, changed by `edit` (paths relative to it). */
function pkg(edit: (at: (rel: string) => string) => void, c: object = commission, r: object = rubric): string {
  const dir = writePackage({ commission: c, rubric: r });
  made.push(dir);
  const at = (rel: string) => path.join(dir, rel);
  edit(at);
  return dir;
}

/** Every problem line of loading `dir` (relative file names), or null when it loads. */
async function lines(dir: string): Promise<string[] | null> {
  try {
    await loadCommission(dir, { casesRoot: '' });
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(CommissionError);
    return (err as CommissionError).problems.map((p) => formatProblem(p));
  }
}

const replace = (p: string, make: (p: string) => void) => {
  rmSync(p, { recursive: true, force: true });
  make(p);
};

describe('files that are not what they should be', () => {
  test('commission.yaml linked to /dev/zero: refused at once, not read forever', async () => {
    const dir = pkg((at) => replace(at('commission.yaml'), (p) => symlinkSync('/dev/zero', p)));
    expect(await lines(dir)).toEqual([
      'commission.yaml: (root): is a link that leads out of the package (to /dev/zero)',
    ]);
  });

  test('a FIFO as commission.yaml is refused by type, never opened', async () => {
    const dir = pkg((at) => replace(at('commission.yaml'), (p) => spawnSync('mkfifo', [p])));
    expect(await lines(dir)).toEqual(['commission.yaml: (root): is a FIFO, not a regular file']);
  });

  test('rubric.yaml that is a directory (was EISDIR)', async () => {
    const dir = pkg((at) => replace(at('rubric.yaml'), (p) => mkdirSync(p)));
    expect(await lines(dir)).toEqual(['rubric.yaml: (root): must be a regular file, not a directory']);
  });

  test('requirement/ that is a file (was ENOTDIR)', async () => {
    const dir = pkg((at) => replace(at('requirement'), (p) => writeFileSync(p, 'x')));
    expect(await lines(dir)).toEqual([
      'requirement: (root): must be a directory',
      'requirement/01_*.md: (root): missing the goal document; add requirement/01_goal.md',
      'requirement/02_*.md: (root): missing the interface document; add requirement/02_interface.md',
      'requirement/03_*.md: (root): missing the requirements document; add requirement/03_requirements.md',
      'requirement/04_*.md: (root): missing the resources document; add requirement/04_resources.md',
    ]);
  });

  test('a loop of links (was ELOOP) and a dangling case link (was ENOENT)', async () => {
    const dir = pkg((at) => {
      symlinkSync(at('cases/dev/loop-b'), at('cases/dev/loop-a'));
      symlinkSync(at('cases/dev/loop-a'), at('cases/dev/loop-b'));
      symlinkSync(at('cases/dev/gone'), at('cases/dev/d2'));
    });
    expect(await lines(dir)).toEqual([
      `cases/dev/d2: (root): is a link to a missing file (→ ${dir}/cases/dev/gone)`,
      'cases/dev/loop-a: (root): is a loop of symbolic links',
      'cases/dev/loop-b: (root): is a loop of symbolic links',
    ]);
  });

  test('a dangling truth.json is refused, not silently "no truth"', async () => {
    const dir = pkg((at) => replace(at('cases/heldout/h1/truth.json'), (p) => symlinkSync(at('nowhere.json'), p)));
    expect(await lines(dir)).toEqual([
      `cases/heldout/h1/truth.json: (root): is a link to a missing file (→ ${dir}/nowhere.json)`,
    ]);
  });

  test('an input.md that is a directory, and one that links out of its case (to a held-out truth)', async () => {
    const dir = pkg((at) => {
      replace(at('cases/dev/d1/input.md'), (p) => mkdirSync(p));
      mkdirSync(at('cases/dev/d2'));
      symlinkSync(at('cases/heldout/h1/truth.json'), at('cases/dev/d2/input.md'));
    });
    expect(await lines(dir)).toEqual([
      'cases/dev/d1/input.md: (root): must be a regular file, not a directory',
      `cases/dev/d2/input.md: (root): is a link that leads out of its case directory (to ${dir}/cases/heldout/h1/truth.json)`,
      'cases/dev: (root): no development cases (need cases/dev/<case>/input.md)',
    ]);
  });

  test('assets with a link out or a FIFO are refused; a link back up does not loop the walk', async () => {
    const dir = pkg((at) => {
      mkdirSync(at('cases/dev/d1/assets/sub'), { recursive: true });
      writeFileSync(at('cases/dev/d1/assets/data.csv'), 'a\n');
      symlinkSync('..', at('cases/dev/d1/assets/sub/up'));
      symlinkSync('/etc/passwd', at('cases/dev/d1/assets/passwd'));
      spawnSync('mkfifo', [at('cases/dev/d1/assets/sub/pipe')]);
    });
    expect(await lines(dir)).toEqual([
      'cases/dev/d1/assets/passwd: (root): is a link that leads out of the assets directory (to /etc/passwd)',
      'cases/dev/d1/assets/sub/pipe: (root): is a FIFO, not a regular file',
    ]);
  });

  test('a file over the size bound is not read', async () => {
    const dir = pkg((at) => truncateSync(at('requirement/01_goal.md'), 9 * 1024 * 1024));
    expect(await lines(dir)).toEqual([
      'requirement/01_goal.md: (root): is 9437184 bytes, more than the 8388608 a package file may have',
    ]);
  });
});

describe('YAML and JSON that would throw or never end', () => {
  test.each([
    ['an unset anchor', 'extra: *nowhere\n', /^commission\.yaml: \(root\): cannot be read as YAML: Unresolved alias/],
    [
      'an alias bomb',
      `a: &a [x,x,x,x,x,x,x,x,x]\n${'bcdefgh'
        .split('')
        .map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`)
        .join('\n')}\n`,
      /^commission\.yaml: \(root\): cannot be read as YAML: Excessive alias count/,
    ],
    [
      'an alias inside its own anchor',
      'extra: &me\n  again: *me\n',
      /^commission\.yaml: extra\.again: refers to itself/,
    ],
    [
      'flow nesting 100,000 deep',
      `extra: ${'['.repeat(100_000)}\n`,
      /^commission\.yaml: line 2: nests deeper than 100/,
    ],
  ])('%s', async (_what, tail, expected) => {
    const dir = pkg((at) => writeFileSync(at('commission.yaml'), `id: hostile\n${tail}`));
    const got = await lines(dir);
    expect(got?.[0]).toMatch(expected);
  });

  test('a truth.json nested 10,000 deep (parses, but nothing could serialise it again)', async () => {
    const dir = pkg((at) =>
      writeFileSync(at('cases/dev/d1/truth.json'), `{"a": ${'['.repeat(1e4)}${']'.repeat(1e4)}}`),
    );
    expect((await lines(dir))?.[0]).toMatch(
      /^cases\/dev\/d1\/truth\.json: a\.0\.0\.0\.0\.0\.…: nests deeper than 100 levels$/,
    );
  });
});

describe('paths that leave where they are resolved', () => {
  test('`..` and absolute paths in artifacts, check files, check modules, the patch and the starter', async () => {
    const c = {
      ...commission,
      family: 'optimization',
      artifacts: [{ path: '../../../../etc/passwd', format: 'any' }],
      optimization: { objective: 'J', starter: '../elsewhere' },
    };
    const r = {
      dimensions: [
        {
          id: 'a',
          title: 'A',
          max: 100,
          items: [
            { check: 'exists', file: '/etc/shadow', points: 50 },
            { check: 'function', module: '../../evil.ts', points: 50 },
          ],
        },
      ],
      outcomes: [{ id: 'O', title: 'o', when: { check: 'regex', file: 'a/../../b', pattern: 'x', points: 0 } }],
    };
    const got = await lines(pkg(() => {}, c, r));
    expect(got).toEqual([
      'commission.yaml: artifacts.0.path: must be a relative path inside the output directory (no "..", not absolute)',
      'commission.yaml: optimization.starter: must be a relative path inside the commission (no "..", not absolute)',
      'rubric.yaml: dimensions.0.items.0.file: must be a relative path inside the output directory (no "..", not absolute)',
      'rubric.yaml: dimensions.0.items.1.module: must be a relative path inside checks/ (no "..", not absolute)',
      'rubric.yaml: outcomes.0.when.file: must be a relative path inside the output directory (no "..", not absolute)',
    ]);
    const e = await lines(pkg(() => {}, { ...commission, family: 'editing', editing: { patch: '../p.patch' } }));
    expect(e).toContain(
      'commission.yaml: editing.patch: must be a relative path inside the delivery (no "..", not absolute)',
    );
  });
});

describe('links that stay inside still load', () => {
  test('a case linked from another split, a truth.json shared inside the package, assets linking within themselves', async () => {
    const dir = pkg((at) => {
      writeFileSync(at('shared-truth.json'), '{"answer": "shared"}');
      replace(at('cases/heldout/h1/truth.json'), (p) => symlinkSync('../../../shared-truth.json', p));
      symlinkSync(at('cases/dev/d1'), at('cases/heldout/h2'));
      mkdirSync(at('cases/dev/d1/assets'));
      writeFileSync(at('cases/dev/d1/assets/a.txt'), 'a');
      symlinkSync('a.txt', at('cases/dev/d1/assets/b.txt'));
    });
    expect(await lines(dir)).toBeNull();
    const c = await loadCommission(dir, { casesRoot: '' });
    expect(c.cases.heldout.map((x) => [x.id, x.truth])).toEqual([
      ['h1', { answer: 'shared' }],
      ['h2', { answer: 'd1' }],
    ]);
    expect(c.cases.dev[0]!.assetsDir).toBe(path.join(dir, 'cases/dev/d1/assets'));
  });
});

describe('held-out cases outside the repository (HELDOUT_CASES)', () => {
  test('are read under the same rules, inside their own root', async () => {
    const dir = pkg(() => {});
    const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-outside-cases-'));
    made.push(root);
    mkdirSync(path.join(root, 'hostile', 'o1'), { recursive: true });
    writeFileSync(path.join(root, 'hostile', 'o1', 'input.md'), 'outside case\n');
    const c = await loadCommission(dir, { casesRoot: root });
    expect(c.cases.heldout.map((x) => x.id)).toEqual(['o1']);
    symlinkSync('/etc/passwd', path.join(root, 'hostile', 'o1', 'truth.json'));
    const problems = await loadCommission(dir, { casesRoot: root }).catch((e: CommissionError) => e.problems);
    expect((problems as { file: string; message: string }[]).map((p) => p.message)).toEqual([
      'is a link that leads out of HELDOUT_CASES/<id> (to /etc/passwd)',
    ]);
  });
});

test('heldout validate prints file: field: problem lines for hostile packages, exit 2, no stack', async () => {
  const zero = pkg((at) => replace(at('commission.yaml'), (p) => symlinkSync('/dev/zero', p)));
  const isDir = pkg((at) => replace(at('rubric.yaml'), (p) => mkdirSync(p)));
  const alias = pkg((at) => writeFileSync(at('commission.yaml'), 'id: x\nextra: *nowhere\n'));
  const r = await heldout(['validate', zero, isDir, alias]);
  expect(r.code, r.out).toBe(2);
  const out = r.out.trim().split('\n');
  expect(out).toEqual([
    `${zero}/commission.yaml: (root): is a link that leads out of the package (to /dev/zero)`,
    `${isDir}/rubric.yaml: (root): must be a regular file, not a directory`,
    expect.stringMatching(
      new RegExp(`^${alias}/commission\\.yaml: \\(root\\): cannot be read as YAML: Unresolved alias`),
    ),
  ]);
  expect(r.out).not.toMatch(/^\s+at /m);
});
