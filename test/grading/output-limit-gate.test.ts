/**
 * Issue 17, item 5 in grading: an execution stopped for its outputs fails the `output-limit` gate (its SIGKILL is the
 * symptom, not an error exit), and a stream the sandbox cut at its cap is reported, in the grade and the summary.
 */
import { describe, expect, test } from 'vitest';
import { GATE_CATEGORIES, gradeCase, runGates } from '../../src/grading/index.js';
import { caseSummarySchema, summarizeCommission } from '../../src/report/index.js';
import { caseRef, execution, makeCommission, oneDimension, outputDir } from './helpers.js';

const commission = makeCommission(
  { artifacts: [{ path: 'answer.json', format: 'json' }] },
  oneDimension([{ check: 'exists', file: 'answer.json', points: 100 }]),
);

describe('the output budget in grading', () => {
  test('output-limit is a gate category, the first of the budgets', () => {
    expect(GATE_CATEGORIES.indexOf('output-limit')).toBe(GATE_CATEGORIES.indexOf('timeout') - 1);
  });

  test('a run stopped for its outputs fails output-limit, not error-exit, whatever it left', () => {
    const g = runGates({
      execution: execution({
        exitCode: 137,
        signal: 'SIGKILL',
        outputLimit: 'the outputs hold more than 10000 files and directories',
      }),
      outputDir: outputDir({ 'answer.json': '{"answer": 42}' }),
      commission,
    });
    expect(g).toMatchObject({ passed: false, gate: 'output-limit' });
    expect(g.reason).toBe('the outputs hold more than 10000 files and directories; only what fits was kept');
  });

  test('outputs past the budget fail output-limit even when the wall clock stopped the run while it wrote', () => {
    const g = runGates({
      execution: execution({ exitCode: 137, timedOut: true, outputLimit: 'the outputs nest deeper than 32 levels' }),
      outputDir: outputDir({}),
      commission,
    });
    expect(g.gate).toBe('output-limit');
  });

  test('truncated streams are in the grade and the summary; none truncated, no field', async () => {
    const cut = await gradeCase({
      commission,
      caseRef: caseRef(),
      trial: 1,
      execution: execution({ stdoutTruncated: true, stderrTruncated: true }),
      outputDir: outputDir({ 'answer.json': '{"answer": 42}' }),
      judge: null,
    });
    expect(cut.truncated).toEqual(['stdout', 'stderr']);
    const whole = await gradeCase({
      commission,
      caseRef: caseRef(),
      trial: 1,
      execution: execution(),
      outputDir: outputDir({ 'answer.json': '{"answer": 42}' }),
      judge: null,
    });
    expect(whole).not.toHaveProperty('truncated');
    const summary = summarizeCommission({
      id: 'c',
      family: 'creation',
      split: 'heldout',
      delivery: { path: '/d', digest: 'sha256:00', frozen: false },
      passRule: { minResult: 60 },
      cases: [cut, { ...whole, id: 'case-2' }],
    });
    expect(summary.cases.map((c) => c.truncated)).toEqual([['stdout', 'stderr'], undefined]);
    // summary@2's case rows carry it (an optional field: a row without it stays valid).
    for (const c of summary.cases) expect(caseSummarySchema.parse(c).truncated).toEqual(c.truncated);
  });
});
