import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { familyStrategy, gradeCase } from '../../src/grading/index.js';
import { processBackend } from '../../src/sandbox/index.js';
import { caseRef, execution, makeCommission, outputDir } from './helpers.js';

const harbor = { image: { context: 'harbor/environment' } };
const rubric = {
  dimensions: [
    {
      id: 'reward',
      title: 'Reward',
      max: 100,
      items: [{ check: 'reward' as const, file: 'reward.json', points: 100 }],
    },
  ],
};

describe('the harbor family', () => {
  test("grades the verifier's reward whatever the agent's exit: a non-zero exit or a timeout is no gate", async () => {
    const c = makeCommission({ family: 'harbor', harbor }, rubric);
    for (const ex of [execution({ exitCode: 1 }), execution({ exitCode: null, timedOut: true, signal: 'SIGKILL' })]) {
      const g = await gradeCase({
        commission: c,
        caseRef: caseRef(),
        trial: 1,
        execution: ex,
        outputDir: outputDir({ 'reward.json': '{"reward": 1}' }),
        judge: null,
        cacheDir: null,
      });
      expect({ status: g.status, gate: g.gate, result: g.result }).toEqual({
        status: 'graded',
        gate: null,
        result: 100,
      });
    }
  });

  test('its oracle is the task directory; other families have none', () => {
    const c = { dir: '/tasks/t', config: makeCommission({ family: 'harbor', harbor }, rubric).config };
    expect(familyStrategy('harbor').oracle?.(c)).toEqual({ label: 'oracle', dir: path.resolve('/tasks/t/harbor') });
    expect(familyStrategy('creation').oracle).toBeUndefined();
  });

  test('a backend without trial containers (process) refuses the case as an infra-error saying why', async () => {
    const c = makeCommission({ family: 'harbor', harbor }, rubric);
    const ref = { ...caseRef(), dir: '/x', assetsDir: null };
    const run = await familyStrategy('harbor').runCase!({
      backend: processBackend,
      spec: {
        runId: 'r',
        caseId: 'task',
        trial: 1,
        command: 'true',
        deliveryDir: '/x',
        inputPath: ref.inputPath,
        assetsDir: null,
        outputDir: outputDir({}),
        limits: { wallSeconds: 1, memoryMb: 64, cpus: 1, pids: 8, outputBytes: 1024 },
      },
      commission: { dir: '/tasks/t', config: c.config },
      caseRef: ref,
      split: 'heldout',
      trial: 1,
      gateway: { socketPath: '/nope', roles: {} as never, registerCase: () => ({}) as never },
      caseKey: 'k',
    });
    expect(run.grade).toMatchObject({
      status: 'infra-error',
      reason: expect.stringMatching(/sandbox process cannot run Harbor tasks/),
    });
  });
});
