import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { gradeCase } from '../../src/grading/index.js';
import { judgedCase, verdict } from './judge-helpers.js';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.close());

describe('a judge that cannot answer', () => {
  test('transport faults are retried by the client, then the case is unscored with judge-error', async () => {
    stub.setScript(() => ({ status: 503 }));
    const before = stub.requests.length;
    const g = await gradeCase({
      ...judgedCase(),
      judge: { baseURL: stub.baseURL, model: 'judge-model', maxRetries: 1 },
    });
    expect(stub.requests.length - before).toBe(2);
    expect(g.status).toBe('unscored');
    expect(g.reason).toMatch(/^judge-error: HTTP 503/);
    expect(g.result).toBeNull();
    expect(g.passed).toBe(false);
    expect(g.judge).toBeNull();
  });

  test('one transient 500 is absorbed by the client retry', async () => {
    const before = stub.requests.length;
    stub.setScript((_r, i) => (i === before ? { status: 500 } : { json: verdict(20, 20) }));
    const g = await gradeCase({
      ...judgedCase(),
      judge: { baseURL: stub.baseURL, model: 'judge-model', maxRetries: 1 },
    });
    expect(g).toMatchObject({ status: 'graded', result: 80 });
  });

  test('an unreachable judge is unscored too', async () => {
    const g = await gradeCase({
      ...judgedCase(),
      judge: { baseURL: 'http://127.0.0.1:9/v1', model: 'm', maxRetries: 0 },
    });
    expect(g.status).toBe('unscored');
    expect(g.reason).toMatch(/^judge-error: /);
  });

  test('n-sample judging keeps the median total and reports every sample', async () => {
    const totals = [
      [5, 5],
      [25, 25],
      [10, 10],
    ];
    const before = stub.requests.length;
    stub.setScript((_r, i) => ({ json: verdict(...(totals[i - before] as [number, number])) }));
    const g = await gradeCase({ ...judgedCase(), judge: { baseURL: stub.baseURL, model: 'judge-model', samples: 3 } });
    expect(stub.requests.length - before).toBe(3);
    expect(g.judge?.samples).toEqual([10, 50, 20]);
    expect(g.result).toBe(40 + 20);
  });
});
