import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { createEnvironment, isWriteTool, runEpisode, scriptedUser } from '../../src/tau2/index.js';
import { agentFactory, agentsDir, oracleExtras } from './agents.js';
import { domain } from './data.js';

describe.each(['airline', 'retail'] as const)('%s scripted agents', (name) => {
  test('the oracle reaches reward 1 on every task (in-process)', async () => {
    const d = await domain(name);
    const createOracle = await agentFactory('oracle.mjs', 'createOracle');
    const failed: string[] = [];
    for (const task of d.tasks) {
      const r = await runEpisode({
        task,
        domain: d,
        agent: createOracle(),
        user: scriptedUser(),
        startExtras: oracleExtras(task),
      });
      if (r.reward !== 1) failed.push(`${task.id}: ${r.info.termination} ${JSON.stringify(r.rewardDetail.components)}`);
    }
    expect(failed).toEqual([]);
  });

  test('the nop agent gets 0 on every task whose gold changes the database, and never changes it', async () => {
    const d = await domain(name);
    const createNop = await agentFactory('nop.mjs', 'createNop');
    const initialHash = createEnvironment(d).hash();
    let writing = 0;
    for (const task of d.tasks) {
      const r = await runEpisode({ task, domain: d, agent: createNop(), user: scriptedUser() });
      expect(r.toolCalls).toEqual([]);
      if (r.rewardDetail.info.goldHash !== initialHash) {
        writing++;
        expect(r.reward, `task ${task.id}`).toBe(0);
      }
    }
    expect(writing).toBeGreaterThan(name === 'airline' ? 20 : 90);
  });

  test('the oracle and nop over the stdio protocol (a sample)', async () => {
    const d = await domain(name);
    const sample = d.tasks.filter((t) => (t.evaluation_criteria?.actions ?? []).length > 3).slice(0, 3);
    for (const task of sample) {
      const oracle = await runEpisode({
        task,
        domain: d,
        agent: [process.execPath, path.join(agentsDir, 'oracle.mjs')],
        user: scriptedUser(),
        startExtras: oracleExtras(task),
      });
      expect(oracle.info.termination).toBe('user_stop');
      expect(oracle.reward).toBe(1);
      expect(oracle.toolCalls.map((c) => c.name)).toEqual(task.evaluation_criteria?.actions?.map((a) => a.name));
      const nop = await runEpisode({
        task,
        domain: d,
        agent: [process.execPath, path.join(agentsDir, 'nop.mjs')],
        user: scriptedUser(),
      });
      expect(nop.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      // A delivery that never calls a tool leaves the database where it was: DB 0 exactly where the gold writes.
      const goldWrites = task.evaluation_criteria?.actions?.some((a) => isWriteTool(d, a.name)) ?? false;
      expect(nop.toolCalls).toEqual([]);
      expect(nop.rewardDetail.components.DB).toBe(goldWrites ? 0 : 1);
      if (goldWrites) expect(nop.reward).toBe(0);
    }
  });
});
