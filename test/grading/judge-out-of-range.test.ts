import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { gradeCase, validateAnswer } from '../../src/grading/index.js';
import { judgedCase, verdict } from './judge-helpers.js';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.close());
const judge = () => ({ baseURL: stub.baseURL, model: 'judge-model', maxRetries: 0 });
const dims = [
  { id: 'correctness', title: 'C', max: 30, rubric: ['r'] },
  { id: 'clarity', title: 'L', max: 30, rubric: ['r'] },
];

describe('judge scores are validated', () => {
  test('scores must be integers within [0, max] and every asked outcome decided', () => {
    const outcomes = [{ id: 'o1', title: 'o', satisfied: 'x' }];
    expect(validateAnswer(verdict(30, 0), { dimensions: dims, outcomes }).ok).toBe(true);
    expect(validateAnswer(verdict(31, 0), { dimensions: dims, outcomes })).toMatchObject({
      ok: false,
      error: expect.stringContaining('correctness.score'),
    });
    expect(validateAnswer(verdict(-1, 0), { dimensions: dims, outcomes }).ok).toBe(false);
    expect(validateAnswer(verdict(12.5, 0), { dimensions: dims, outcomes })).toMatchObject({
      ok: false,
      error: expect.stringContaining('int'),
    });
    expect(validateAnswer({ ...verdict(1, 1), outcomes: [] }, { dimensions: dims, outcomes })).toEqual({
      ok: false,
      error: 'outcome o1 was not decided',
    });
  });

  test('an out-of-range score is rejected and asked again; a valid second answer is used', async () => {
    const before = stub.requests.length;
    stub.setScript((_r, i) => (i === before ? { json: verdict(45, 20) } : { json: verdict(25, 20) }));
    const g = await gradeCase({ ...judgedCase(), judge: judge() });
    expect(stub.requests.length - before).toBe(2);
    const retry = stub.requests.at(-1).messages.at(-1).content as string;
    expect(retry).toMatch(/^Your answer was rejected \(answer rejected: dimensions\.correctness\.score/);
    expect(g).toMatchObject({ status: 'graded', result: 40 + 25 + 20 });
  });

  test('an answer that stays out of range makes the case unscored', async () => {
    stub.setScript(() => ({ json: verdict(45, 20) }));
    const g = await gradeCase({ ...judgedCase(), judge: judge() });
    expect(g.status).toBe('unscored');
    expect(g.result).toBeNull();
    expect(g.reason).toMatch(/^judge-error: answer rejected: dimensions\.correctness\.score: Too big/);
  });

  test('an unmet judged outcome applies its cap', async () => {
    stub.setScript(() => ({ json: verdict(30, 30, false) }));
    const g = await gradeCase({ ...judgedCase(), judge: judge() });
    expect(g.outcomes).toEqual([
      { id: 'o1', satisfied: false, safety: null, evidence: 'judge: answers another question' },
    ]);
    expect(g.dimensions.clarity).toMatchObject({ earned: 30, cap: 10, score: 10 });
    expect(g).toMatchObject({ result: 80, ceilingHit: true, ceilingSet: false });
    expect(g.ceilings).toEqual([
      {
        kind: 'dimension',
        dimension: 'clarity',
        max: 10,
        reason: 'outcome o1 unmet: Answers the question asked',
        binding: true,
      },
    ]);
  });
});
