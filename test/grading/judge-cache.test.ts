import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { gradeCase } from '../../src/grading/index.js';
import { judgedCase, tmpDir, verdict } from './judge-helpers.js';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer({ script: [{ json: verdict(20, 20) }] });
});
afterAll(() => stub.close());

describe('the judge cache', () => {
  test('serves a repeat without a request and never serves another trial', async () => {
    const cacheDir = tmpDir('heldout-judge-cache-');
    const c = { ...judgedCase(), cacheDir, judge: { baseURL: stub.baseURL, model: 'judge-model' } };
    const first = await gradeCase(c);
    expect(first).toMatchObject({ status: 'graded', result: 80, judge: { cached: false } });
    expect(stub.requests).toHaveLength(1);

    const repeat = await gradeCase(c);
    expect(stub.requests).toHaveLength(1);
    expect(repeat).toMatchObject({ result: 80, judge: { cached: true, assessment: 'solid' } });

    stub.setScript([{ json: verdict(10, 10) }]);
    const trial2 = await gradeCase({ ...c, trial: 2 });
    expect(stub.requests).toHaveLength(2);
    expect(trial2).toMatchObject({ result: 60, judge: { cached: false } });

    // Changed artifacts are a new delivery: judged again.
    writeFileSync(path.join(c.outputDir, 'notes.md'), 'added later');
    await gradeCase(c);
    expect(stub.requests).toHaveLength(3);
  });
});
