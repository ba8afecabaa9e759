import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { type CheckItem, checkSchema } from '../../src/commission/index.js';
import { type CheckContext, CheckSetupError, runCheck } from '../../src/grading/index.js';
import { fixtures, outputDir, shRunner } from './helpers.js';

const out = outputDir({
  'answer.json': JSON.stringify({
    answer: 'Paris is the capital',
    city: ' PARIS ',
    tags: ['geo', 'Europe', 'capital'],
    stats: { total: '41.8', rows: [{ v: 3 }] },
  }),
  'report.md': '# Report\nAll 3 sources cited.\n',
});
const ctx = (over: Partial<CheckContext> = {}): CheckContext => ({
  caseId: 'case-1',
  split: 'heldout',
  input: 'What is the capital of France?',
  truth: { capital: 'Paris', tags: ['geo', 'capital', 'history'], total: 42, minLength: 10 },
  outputDir: out,
  execution: null,
  checksDir: path.join(fixtures, 'checks'),
  runCommand: shRunner,
  ...over,
});
const check = (raw: Record<string, unknown>, over: Partial<CheckContext> = {}) =>
  runCheck(checkSchema.parse({ points: 10, ...raw }) as CheckItem, ctx(over));

describe('each check kind scores in [0, 1] with concrete evidence', () => {
  test('exists', async () => {
    expect(await check({ check: 'exists', file: 'report.md' })).toEqual({ score: 1, evidence: 'report.md exists' });
    expect(await check({ check: 'exists', file: 'nope.md' })).toEqual({ score: 0, evidence: 'nope.md is missing' });
  });

  test('json-equals against a literal and a truth path, strict and loose', async () => {
    expect(
      await check({ check: 'json-equals', file: 'answer.json', path: 'stats.rows.0.v', expected: { value: 3 } }),
    ).toMatchObject({ score: 1 });
    const strict = await check({
      check: 'json-equals',
      file: 'answer.json',
      path: 'city',
      expected: { truth: 'capital' },
    });
    expect(strict).toEqual({ score: 0, evidence: 'answer.json:city: expected "Paris", found " PARIS "' });
    expect(
      await check({
        check: 'json-equals',
        file: 'answer.json',
        path: 'city',
        expected: { truth: 'capital' },
        loose: true,
      }),
    ).toMatchObject({ score: 1 });
    expect(await check({ check: 'json-equals', file: 'answer.json', path: 'nope.x', expected: { value: 1 } })).toEqual({
      score: 0,
      evidence: 'answer.json has no nope.x',
    });
  });

  test('json-contains scores the share of expected elements found', async () => {
    const r = await check({ check: 'json-contains', file: 'answer.json', path: 'tags', expected: { truth: 'tags' } });
    expect(r.score).toBeCloseTo(2 / 3);
    expect(r.evidence).toBe('answer.json:tags: 2/3 expected found; missing ["history"]');
    expect(
      await check({ check: 'json-contains', file: 'answer.json', path: 'answer', expected: { value: 'capital' } }),
    ).toMatchObject({ score: 1 });
  });

  test('regex and negated regex', async () => {
    expect(await check({ check: 'regex', file: 'report.md', pattern: 'All \\d+ sources' })).toMatchObject({ score: 1 });
    const neg = await check({ check: 'regex', file: 'report.md', pattern: 'TODO|lorem', flags: 'i', negate: true });
    expect(neg).toMatchObject({ score: 1, evidence: expect.stringContaining('no match') });
    expect(
      await check({ check: 'regex', file: 'report.md', pattern: 'report', flags: 'i', negate: true }),
    ).toMatchObject({ score: 0 });
  });

  test('number within tolerance (numeric strings accepted)', async () => {
    expect(
      await check({
        check: 'number',
        file: 'answer.json',
        path: 'stats.total',
        expected: { truth: 'total' },
        tolerance: 0.5,
      }),
    ).toEqual({
      score: 1,
      evidence: 'answer.json:stats.total: expected 42 ± 0.5, found 41.8',
    });
    expect(
      await check({
        check: 'number',
        file: 'answer.json',
        path: 'stats.total',
        expected: { truth: 'total' },
        tolerance: 0.1,
      }),
    ).toMatchObject({ score: 0 });
  });

  test('schema', async () => {
    const schema = { type: 'object', required: ['answer', 'confidence'] };
    const r = await check({ check: 'schema', file: 'answer.json', schema });
    expect(r.score).toBe(0);
    expect(r.evidence).toMatch(/confidence/);
    expect(
      await check({ check: 'schema', file: 'answer.json', schema: { type: 'object', required: ['answer'] } }),
    ).toMatchObject({ score: 1 });
  });

  test('command by exit code and by reward, through the runner callback', async () => {
    expect(await check({ check: 'command', run: 'grep -q Paris {output}/answer.json' })).toMatchObject({ score: 1 });
    const failed = await check({ check: 'command', run: 'echo "2 of 5 hidden tests failed" >&2; exit 1' });
    expect(failed).toEqual({
      score: 0,
      evidence: '`echo "2 of 5 hidden tests failed" >&2; exit 1` exited 1: 2 of 5 hidden tests failed',
    });
    expect(await check({ check: 'command', run: 'echo 0.25 > {output}/reward.txt', score: 'reward' })).toEqual({
      score: 0.25,
      evidence: expect.stringContaining('reward 0.25'),
    });
    expect(
      await check({ check: 'command', run: `echo '{"reward": 0.75}' > {output}/reward.json`, score: 'reward' }),
    ).toMatchObject({ score: 0.75 });
    expect(await check({ check: 'command', run: 'true', score: 'reward' })).toMatchObject({
      score: 0,
      evidence: expect.stringContaining('no readable reward'),
    });
  });

  test('a command check never changes the case outputs it reads', async () => {
    await check({ check: 'command', run: 'rm {output}/report.md' });
    expect(await check({ check: 'exists', file: 'report.md' })).toMatchObject({ score: 1 });
  });

  test('function: a TypeScript module from checks/ gets the case context', async () => {
    expect(await check({ check: 'function', module: 'answer-length.ts' })).toEqual({
      score: 1,
      evidence: 'case-1: answer has 20 characters, needs 10',
    });
    const partial = await check({ check: 'function', module: 'answer-length.ts' }, { truth: { minLength: 40 } });
    expect(partial.score).toBe(0.5);
    const missing = await check({ check: 'function', module: 'answer-length.ts' }, { outputDir: outputDir({}) });
    expect(missing).toEqual({ score: 0, evidence: 'answer.json is missing' });
  });

  test('faults of the evaluator setup are not scored against the delivery', async () => {
    await expect(
      check({ check: 'json-equals', file: 'answer.json', path: 'city', expected: { truth: 'no.such' } }),
    ).rejects.toThrow(CheckSetupError);
    await expect(check({ check: 'function', module: 'nope.ts' })).rejects.toThrow(/checks\/nope\.ts not found/);
    await expect(check({ check: 'command', run: 'true' }, { runCommand: undefined })).rejects.toThrow(/command runner/);
  });
});
