import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { CommissionError, loadCommission } from '../../src/commission/index.js';
import { validCommission, validRubric, writePackage } from './package-fixtures.js';

async function problemsOf(dir: string) {
  try {
    await loadCommission(dir);
    return null;
  } catch (err) {
    if (!(err instanceof CommissionError)) throw new Error(`not a CommissionError: ${(err as Error).stack}`);
    return err.problems;
  }
}

describe('commission packages', () => {
  test.prop([validCommission, validRubric], { numRuns: 40 })(
    'random valid packages load',
    async (commission, rubric) => {
      const dir = writePackage({ commission, rubric });
      try {
        const c = await loadCommission(dir);
        expect(c.config.id).toBe(commission.id);
        expect(c.rubric.dimensions.reduce((s, d) => s + d.max, 0)).toBe(100);
        expect(c.cases.heldout.map((x) => x.id)).toEqual(['h1']);
        expect(c.cases.heldout[0].truth).toEqual({ answer: 'h1' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  // Each corruption names the field it breaks; the loader must name that file and field, never crash.
  const corruptions = fc.constantFrom(
    { field: 'id', set: (c: any) => Object.assign(c, { id: 'Not A Slug!' }) },
    { field: 'family', set: (c: any) => Object.assign(c, { family: 'compilation' }) },
    { field: 'entry', set: (c: any) => Object.assign(c, { entry: 42 }) },
    { field: 'trials', set: (c: any) => Object.assign(c, { trials: -1 }) },
    { field: 'budgets.wallSeconds', set: (c: any) => Object.assign(c, { budgets: { wallSeconds: 'ten' } }) },
    { field: 'pass.minResult', set: (c: any) => Object.assign(c, { pass: { minResult: 101 } }) },
    { field: 'title', set: (c: any) => delete c.title },
    { field: 'unexpectedKey', set: (c: any) => Object.assign(c, { unexpectedKey: true }) },
    { field: 'artifacts.0.format', set: (c: any) => Object.assign(c, { artifacts: [{ path: 'a', format: 'docx' }] }) },
  );

  test.prop([validCommission, validRubric, corruptions], { numRuns: 40 })(
    'corrupted commission.yaml names file and field',
    async (original, rubric, corruption) => {
      const commission = structuredClone(original);
      corruption.set(commission);
      const dir = writePackage({ commission, rubric });
      try {
        const problems = await problemsOf(dir);
        expect(problems).not.toBeNull();
        const hit = problems!.find(
          (p) => p.file === 'commission.yaml' && p.path.startsWith(corruption.field.split('.')[0]),
        );
        expect(hit, JSON.stringify(problems)).toBeDefined();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test.prop([validCommission, validRubric, fc.integer({ min: 1, max: 30 })], { numRuns: 25 })(
    'rubric whose maxima do not sum to 100 is refused naming rubric.yaml dimensions',
    async (commission, original, delta) => {
      const rubric = structuredClone(original);
      rubric.dimensions[0].max += delta;
      rubric.dimensions[0].items[0].points += delta;
      const dir = writePackage({ commission, rubric });
      try {
        const problems = await problemsOf(dir);
        expect(problems?.some((p) => p.file === 'rubric.yaml' && p.path === 'dimensions')).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test.prop([validCommission, validRubric, fc.string({ minLength: 1, maxLength: 30 }), fc.nat()], { numRuns: 40 })(
    'random byte damage to the YAML gives problems, never a crash',
    async (commission, rubric, junk, at) => {
      const dir = writePackage({ commission, rubric });
      try {
        const file = path.join(dir, 'commission.yaml');
        const text = (await import('node:fs')).readFileSync(file, 'utf8');
        const i = at % (text.length + 1);
        writeFileSync(file, text.slice(0, i) + junk + text.slice(i));
        const problems = await problemsOf(dir);
        // Damage may still leave a valid document; when it does not, every problem names a file.
        for (const p of problems ?? []) expect(p.file).toMatch(/\S/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test.prop([validCommission, validRubric], { numRuns: 10 })(
    'YAML syntax errors carry line and column',
    async (commission, rubric) => {
      const dir = writePackage({ commission, rubric });
      try {
        writeFileSync(path.join(dir, 'commission.yaml'), 'id: x\ntitle: [unclosed\nfamily: creation\n');
        const problems = await problemsOf(dir);
        expect(problems?.[0]).toMatchObject({ file: 'commission.yaml' });
        expect(problems?.[0].path).toMatch(/^line \d+, column \d+$/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  test.prop([validCommission, validRubric], { numRuns: 10 })(
    'duplicate outcome and ceiling ids, and a missing check module in an outcome or ceiling, are refused by field',
    async (commission, original) => {
      const dim = original.dimensions[0].id;
      const when = { check: 'exists', file: 'out.txt', points: 0 };
      const problemsWith = async (outcomes: unknown[], ceilings: unknown[]) => {
        const dir = writePackage({ commission, rubric: { ...structuredClone(original), outcomes, ceilings } as any });
        try {
          return ((await problemsOf(dir)) ?? [])
            .filter((p) => p.file === 'rubric.yaml')
            .map((p) => `${p.path}: ${p.message}`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      };
      // Grading looks both up by id: a second entry with the same id would silently never apply.
      const duplicates = await problemsWith(
        [
          { id: 'O1', title: 'one', when, caps: { [dim]: 0 } },
          { id: 'O1', title: 'again', when, caps: {} },
        ],
        [
          { id: 'C', max: 30, reason: 'r', unless: when },
          { id: 'C', max: 10, reason: 'r', unless: when },
        ],
      );
      expect(duplicates).toEqual([
        'outcomes.1.id: duplicate outcome O1; rename one',
        'ceilings.1.id: duplicate ceiling C; rename one',
      ]);
      const modules = await problemsWith(
        [{ id: 'O1', title: 'one', when: { check: 'function', module: 'gone.ts', points: 0 }, caps: {} }],
        [{ id: 'C', max: 10, reason: 'r', unless: { check: 'function', module: 'missing.ts', points: 0 } }],
      );
      expect(modules).toEqual([
        'outcomes.0.when.module: checks/gone.ts not found; add it to checks/ or fix the name',
        'ceilings.0.unless.module: checks/missing.ts not found; add it to checks/ or fix the name',
      ]);
    },
  );

  test('optimization.starter names the a0 directory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-starter-'));
    try {
      cpSync(path.resolve(import.meta.dirname, '../../tasks/ticket-routing'), dir, { recursive: true });
      renameSync(path.join(dir, 'starter'), path.join(dir, 'a0'));
      expect((await problemsOf(dir))?.map((p) => `${p.file}: ${p.message}`)).toEqual([
        'starter: missing: an optimization commission starts from starter/; add it',
      ]);
      const file = path.join(dir, 'commission.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^ {2}starter: starter$/m, '  starter: a0'));
      expect((await loadCommission(dir)).starterDir).toBe(path.join(dir, 'a0'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
