import { describe, expect, test } from 'vitest';
import { gradeCase, judgeConfigFromEnv, NO_JUDGE_REASON } from '../../src/grading/index.js';
import { judgedCase } from './judge-helpers.js';

describe('without a judge model', () => {
  test('judged items are unscored with the reason, the checks still reported', async () => {
    const g = await gradeCase({ ...judgedCase(), judge: null });
    expect(g).toMatchObject({ status: 'unscored', result: null, passed: false, reason: NO_JUDGE_REASON, gate: null });
    expect(NO_JUDGE_REASON).toBe(
      'no judge model configured: set HELDOUT_JUDGE_BASE_URL/HELDOUT_JUDGE_MODEL (or OPENAI_BASE_URL)',
    );
    expect(g.dimensions.correctness!.earned).toBe(40);
  });

  test('a rubric of checks only needs no judge', async () => {
    const c = judgedCase();
    c.commission.rubric.dimensions = [
      { id: 'all', title: 'All', max: 100, items: [c.commission.rubric.dimensions[0]!.items[0]!] },
    ];
    c.commission.rubric.dimensions[0]!.items[0]!.points = 100;
    c.commission.rubric.outcomes = [];
    expect(await gradeCase({ ...c, judge: null })).toMatchObject({ status: 'graded', result: 100, passed: true });
  });

  test('the judge configuration comes from HELDOUT_JUDGE_* or OPENAI_* and needs both a URL and a model', () => {
    expect(judgeConfigFromEnv({})).toBeNull();
    expect(judgeConfigFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' })).toBeNull();
    expect(
      judgeConfigFromEnv({
        HELDOUT_JUDGE_BASE_URL: 'http://127.0.0.1:1/v1',
        HELDOUT_JUDGE_MODEL: 'j',
        OPENAI_API_KEY: 'k',
        HELDOUT_JUDGE_SAMPLES: '3',
      }),
    ).toEqual({
      baseURL: 'http://127.0.0.1:1/v1',
      apiKey: 'k',
      model: 'j',
      samples: 3,
    });
  });
});
