import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { type CheckItem, checkSchema } from '../../src/commission/index.js';
import { zodProblems } from '../../src/commission/zod-problems.js';
import {
  CHECK_KINDS,
  type CheckContext,
  type CheckKind,
  type CheckKindName,
  type CheckKindTable,
  CheckSetupError,
  checkKindNames,
  readOutput,
  runCheck,
} from '../../src/grading/checks.js';
import { fixtures, outputDir } from './helpers.js';

// The kinds registered by name: a kind added in a test is dispatched like the built-in ones, an unknown name is
// refused with the known ones, and the registry and the commission schema name the same kinds.

const out = outputDir({ 'notes.md': 'one\ntwo\nthree\n' });
const ctx: CheckContext = {
  caseId: 'case-1',
  split: 'dev',
  input: 'Write three notes.',
  truth: null,
  outputDir: out,
  execution: null,
  checksDir: path.join(fixtures, 'checks'),
};

/** A kind of this test's own: full points when the file has at least `min` lines (reads through heldout's reader). */
const lineCount: CheckKind<{ check: 'line-count'; file: string; min: number }> = {
  run(item, c) {
    const n = readOutput(c.outputDir, item.file).split('\n').filter(Boolean).length;
    return { score: n >= item.min ? 1 : 0, evidence: `${item.file} has ${n} lines (at least ${item.min} wanted)` };
  },
};
const withLineCount = { ...CHECK_KINDS, 'line-count': lineCount };

const schemaKinds = checkSchema.options.map((o) => String(o.shape.check.value));

describe('check kinds by registry', () => {
  test('a kind registered beside the built-in ones is dispatched, and reads outputs as they do', async () => {
    expect(await runCheck({ check: 'line-count', file: 'notes.md', min: 3 }, ctx, withLineCount)).toEqual({
      score: 1,
      evidence: 'notes.md has 3 lines (at least 3 wanted)',
    });
    expect(await runCheck({ check: 'line-count', file: 'notes.md', min: 4 }, ctx, withLineCount)).toMatchObject({
      score: 0,
    });
    // A missing output is the delivery's fault: 0 with the reader's reason, never a setup error.
    const missing = await runCheck({ check: 'line-count', file: 'absent.md', min: 1 }, ctx, withLineCount);
    expect(missing.score).toBe(0);
    expect(missing.evidence).toMatch(/absent\.md/);
    // The built-in kinds still dispatch through the extended table.
    const exists = checkSchema.parse({ check: 'exists', file: 'notes.md', points: 1 }) as CheckItem;
    expect(await runCheck(exists, ctx, withLineCount)).toEqual({ score: 1, evidence: 'notes.md exists' });
  });

  test('an unknown kind is the evaluator setup fault, naming every known kind', async () => {
    const refused = runCheck({ check: 'line-count', file: 'notes.md', min: 1 }, ctx);
    await expect(refused).rejects.toBeInstanceOf(CheckSetupError);
    await expect(refused).rejects.toThrow(
      'unknown check kind "line-count"; known: exists, json-equals, json-contains, regex, number, schema, reward, command, function',
    );
    await expect(runCheck({ check: 'nope' }, ctx, withLineCount)).rejects.toThrow(/known: .*function, line-count$/);
  });

  test('the registry and the commission schema name the same kinds, so validate lists what grading runs', () => {
    expect(checkKindNames()).toEqual(schemaKinds);
    const raw = { check: 'nope', file: 'a.json', points: 1 };
    const parsed = checkSchema.safeParse(raw);
    expect(parsed.success).toBe(false);
    const messages = zodProblems(parsed.error!, 'rubric.yaml', [], raw).map((l) => l.message);
    expect(messages.join('\n')).toContain(`unknown check kind "nope"; use one of: ${checkKindNames().join(', ')}`);
  });

  test('a table missing a schema kind, or holding one the schema lacks, does not compile', () => {
    const { function: _dropped, ...partial } = CHECK_KINDS;
    // @ts-expect-error the schema's `function` kind has no entry
    const missing: CheckKindTable = partial;
    // @ts-expect-error `line-count` is not in the schema's check union
    const extra = { ...CHECK_KINDS, 'line-count': lineCount } satisfies CheckKindTable;
    const name: CheckKindName = 'reward';
    expect(Object.keys(missing)).not.toContain('function');
    expect(Object.keys(extra)).toContain('line-count');
    expect(CHECK_KINDS[name]).toBeDefined();
  });
});
