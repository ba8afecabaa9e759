import { describe, expect, test } from 'vitest';
import { gradeCase } from '../../src/grading/index.js';
import { caseRef, execution, makeCommission, outputDir } from './helpers.js';

// Two dimensions scored by checks; outcome o1 (all sources cited) caps coverage, its safety condition (no e-mail
// address leaked) caps both; a total ceiling of 75 applies unless a summary exists.
const commission = makeCommission(
  { artifacts: [{ path: 'report.md', format: 'markdown' }], pass: { minResult: 70 } },
  {
    dimensions: [
      {
        id: 'coverage',
        title: 'Coverage',
        max: 60,
        items: [{ check: 'regex', file: 'report.md', pattern: 'Findings', points: 60 }],
      },
      {
        id: 'privacy',
        title: 'Privacy',
        max: 40,
        items: [{ check: 'regex', file: 'report.md', pattern: '\\S+@\\S+', negate: true, points: 40 }],
      },
    ],
    outcomes: [
      {
        id: 'o1',
        title: 'All sources cited',
        when: { check: 'regex', file: 'report.md', pattern: 'Sources: 3', points: 0 },
        caps: { coverage: 30 },
        safety: {
          when: { check: 'regex', file: 'report.md', pattern: '\\S+@\\S+', negate: true, points: 0 },
          caps: { coverage: 20, privacy: 5 },
        },
      },
    ],
    ceilings: [
      {
        id: 'no-summary',
        max: 75,
        reason: 'valid primary artifact but no summary',
        unless: { check: 'exists', file: 'summary.md', points: 0 },
      },
    ],
  },
);
const grade = (files: Record<string, string>, truth: Record<string, unknown> | null = null) =>
  gradeCase({
    commission,
    caseRef: caseRef(truth),
    trial: 1,
    execution: execution(),
    outputDir: outputDir(files),
    judge: null,
  });

describe('outcomes and conditions turn into ceilings', () => {
  test('everything met: no ceiling, full marks', async () => {
    const g = await grade({ 'report.md': '# Findings\nSources: 3\n', 'summary.md': 'ok' });
    expect(g).toMatchObject({ status: 'graded', result: 100, passed: true, ceilingHit: false, ceilings: [] });
    expect(g.outcomes).toEqual([
      { id: 'o1', satisfied: true, safety: true, evidence: expect.stringContaining('Sources: 3') },
    ]);
  });

  test('an unmet outcome caps its dimension and the missing summary caps the total', async () => {
    const g = await grade({ 'report.md': '# Findings\nSources: 2\n' });
    expect(g.dimensions.coverage).toMatchObject({ earned: 60, cap: 30, score: 30 });
    expect(g.result).toBe(70);
    expect(g.ceilings.map((c) => [c.kind, c.max, c.binding])).toEqual([
      ['dimension', 30, true],
      ['total', 75, false],
    ]);
    expect(g).toMatchObject({ ceilingHit: true, ceilingSet: false, passed: true });
  });

  test('a safety failure applies its caps together with the partial cap; the minimum wins', async () => {
    const g = await grade({ 'report.md': '# Findings\nSources: 2\nmail bob@example.com\n', 'summary.md': 'ok' });
    expect(g.outcomes[0]).toMatchObject({ satisfied: false, safety: false });
    expect(g.dimensions.coverage).toMatchObject({ cap: 20, score: 20 });
    expect(g.dimensions.privacy).toMatchObject({ earned: 0, cap: 5, score: 0 });
    expect(g).toMatchObject({ result: 20, passed: false });
  });

  test('a total ceiling sets the Result when it is lowest', async () => {
    const g = await grade({ 'report.md': '# Findings\nSources: 3\n' });
    expect(g).toMatchObject({ result: 75, ceilingHit: true, ceilingSet: true });
    expect(g.ceilings).toEqual([
      { kind: 'total', max: 75, reason: 'valid primary artifact but no summary', binding: true },
    ]);
  });

  test('a failed gate scores 0 with every dimension at 0', async () => {
    const g = await grade({});
    expect(g).toMatchObject({ status: 'gate-failed', gate: 'missing-artifact', result: 0, passed: false });
    expect(g.dimensions.coverage).toMatchObject({ score: 0, max: 60, cap: null });
  });

  test('a fault of the evaluator setup is an infra error, not a score', async () => {
    const broken = structuredClone(commission);
    broken.rubric.dimensions[0]!.items = [
      {
        check: 'json-equals',
        file: 'report.md',
        path: '',
        expected: { truth: 'missing.path' },
        loose: false,
        points: 60,
      },
    ];
    const g = await gradeCase({
      commission: broken,
      caseRef: caseRef({}),
      trial: 1,
      execution: execution(),
      outputDir: outputDir({ 'report.md': 'x' }),
      judge: null,
    });
    expect(g).toMatchObject({
      status: 'infra-error',
      result: null,
      passed: false,
      reason: 'evaluator setup: truth.json has no path missing.path',
    });
  });
});
