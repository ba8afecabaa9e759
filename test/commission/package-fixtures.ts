import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';

/** Writes a commission package from plain objects into a fresh temp dir; returns the dir. */
export function writePackage(pkg: {
  commission: unknown;
  rubric: unknown;
  dev?: string[];
  heldout?: string[];
}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-pkg-'));
  writeFileSync(path.join(dir, 'commission.yaml'), stringify(pkg.commission));
  writeFileSync(path.join(dir, 'rubric.yaml'), stringify(pkg.rubric));
  mkdirSync(path.join(dir, 'requirement'));
  for (const [n, name] of [
    ['01', 'goal'],
    ['02', 'interface'],
    ['03', 'requirements'],
    ['04', 'resources'],
  ]) {
    writeFileSync(path.join(dir, 'requirement', `${n}_${name}.md`), `# ${name}\n\nText.\n`);
  }
  for (const [split, ids] of [
    ['dev', pkg.dev ?? ['d1']],
    ['heldout', pkg.heldout ?? ['h1']],
  ] as const) {
    for (const id of ids) {
      mkdirSync(path.join(dir, 'cases', split, id), { recursive: true });
      writeFileSync(path.join(dir, 'cases', split, id, 'input.md'), `case ${id}\n`);
      writeFileSync(path.join(dir, 'cases', split, id, 'truth.json'), JSON.stringify({ answer: id }));
    }
  }
  return dir;
}

/** Splits `total` into `n` positive integer parts (n ≤ total). */
const partition = (total: number, n: number) =>
  fc.uniqueArray(fc.integer({ min: 1, max: total - 1 }), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
    const s = [0, ...cuts.sort((a, b) => a - b), total];
    return s.slice(1).map((v, i) => v - s[i]);
  });

const slug = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);

export const validItem = (points: number) =>
  fc.oneof(
    fc.record({ check: fc.constant('exists'), file: fc.constant('out.json'), points: fc.constant(points) }),
    fc.record({
      check: fc.constant('json-equals'),
      file: fc.constant('out.json'),
      path: fc.constant('answer'),
      expected: fc.constant({ truth: 'answer' }),
      points: fc.constant(points),
    }),
    fc.record({ judge: fc.string({ minLength: 1 }), points: fc.constant(points) }),
  );

export const validRubric = fc
  .integer({ min: 1, max: 6 })
  .chain((n) => partition(100, n))
  .chain((maxima) =>
    fc.tuple(
      ...maxima.map((max, i) =>
        fc.record({
          id: fc.constant(`d${i}`),
          title: fc.string({ minLength: 1, maxLength: 20 }),
          max: fc.constant(max),
          items: validItem(max).map((it) => [it]),
        }),
      ),
    ),
  )
  .map((dimensions) => ({ dimensions }));

export const validCommission = fc.record({
  id: slug,
  title: fc.string({ minLength: 1, maxLength: 40 }),
  family: fc.constant('creation'),
  entry: fc.constant('python3 run.py --input {input} --output {output}'),
  trials: fc.integer({ min: 1, max: 5 }),
  budgets: fc.record(
    { wallSeconds: fc.integer({ min: 1, max: 3600 }), memoryMb: fc.integer({ min: 64, max: 8192 }) },
    { requiredKeys: [] },
  ),
  pass: fc.record({ minResult: fc.integer({ min: 0, max: 100 }) }),
  artifacts: fc.constant([{ path: 'out.json', format: 'json' }]),
});
