import { describe, expect, test } from 'vitest';
import { gradeCase } from '../../src/grading/index.js';
import { caseRef, execution, makeCommission, oneDimension, outputDir } from './helpers.js';

const commission = makeCommission(
  {
    artifacts: [
      { path: 'report.md', format: 'markdown' },
      { path: 'table.csv', format: 'csv', required: false },
    ],
  },
  oneDimension([{ check: 'exists', file: 'report.md', points: 100 }]),
);
const report = (r: unknown) => JSON.stringify(r);

describe("claims in the delivery's run_report.json are checked against what was observed", () => {
  test('a claimed artifact that is missing and "complete" despite a failed gate are both listed', async () => {
    const out = outputDir({
      'run_report.json': report({ artifacts: ['report.md', 'table.csv'], status: 'complete', tests_passed: true }),
    });
    const g = await gradeCase({
      commission,
      caseRef: caseRef(),
      trial: 1,
      execution: execution(),
      outputDir: out,
      judge: null,
    });
    expect(g.gate).toBe('missing-artifact');
    expect(g.claimsContradicted).toEqual([
      'claims artifact report.md, but it is missing',
      'claims artifact table.csv, but it is missing',
      'claims status "complete", but the missing-artifact gate failed: required artifact report.md is missing',
    ]);
  });

  test('a claimed artifact that is invalid is listed; true claims are not', async () => {
    const out = outputDir({
      'report.md': '# R',
      'table.csv': 'a,b\n1\n',
      'run_report.json': report({ artifacts: [{ path: 'report.md' }, 'table.csv'], status: 'complete' }),
    });
    const g = await gradeCase({
      commission,
      caseRef: caseRef(),
      trial: 1,
      execution: execution(),
      outputDir: out,
      judge: null,
    });
    expect(g.status).toBe('graded');
    expect(g.claimsContradicted).toEqual(['claims artifact table.csv, but it row 2 has 1 columns, the header has 2']);
  });

  test('no run_report.json, no contradictions', async () => {
    const g = await gradeCase({
      commission,
      caseRef: caseRef(),
      trial: 1,
      execution: execution(),
      outputDir: outputDir({ 'report.md': '# R' }),
      judge: null,
    });
    expect(g.claimsContradicted).toEqual([]);
  });
});
