import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { llmUser, runEpisode, scriptedUser } from '../../src/tau2/index.js';
import { agentFactory, agentsDir } from './agents.js';
import { domain } from './data.js';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('model-backed parts against the stub server', () => {
  test('an empty answer of the user model ends the episode as a user error, never as a graded stop', async () => {
    const d = await domain('airline');
    stub = await startStubServer({ script: [{ content: 'I want to cancel reservation EHGLP3.' }, { content: '' }] });
    const createNop = await agentFactory('nop.mjs', 'createNop');
    const r = await runEpisode({
      task: d.tasks[0],
      domain: d,
      agent: createNop(),
      user: llmUser({ baseURL: stub.baseURL, model: 'user-model' }),
    });
    expect(r.info.termination).toBe('user_error');
    expect(r.info.detail).toMatch(/empty message/);
    expect(r.reward).toBe(0);
  });

  test('the LLM user speaks from the task instructions and ends the episode with its stop token', async () => {
    const d = await domain('airline');
    const task = d.tasks[0];
    stub = await startStubServer({
      script: [{ content: 'I want to cancel reservation EHGLP3.' }, { content: 'Thanks. ###STOP###' }],
    });
    const createNop = await agentFactory('nop.mjs', 'createNop');
    const r = await runEpisode({
      task,
      domain: d,
      agent: createNop(),
      user: llmUser({ baseURL: stub.baseURL, model: 'user-model' }),
    });
    expect(r.info.termination).toBe('user_stop');
    expect(r.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(r.messages[0].content).toBe('I want to cancel reservation EHGLP3.');
    const first = stub.requests[0] as any;
    expect(first.model).toBe('user-model');
    expect(first.messages[0].content).toContain('EHGLP3');
    expect(first.messages[0].content).toContain('###STOP###');
    const second = stub.requests[1] as any;
    // Roles are flipped for the simulator: the agent speaks as its "user".
    expect(second.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Sorry') });
    expect(second.messages.at(-2)).toMatchObject({
      role: 'assistant',
      content: 'I want to cancel reservation EHGLP3.',
    });
  });

  test('the openai agent runs a real tool-calling loop over stdio', async () => {
    const d = await domain('airline');
    const task = d.tasks.find((t) => t.evaluation_criteria?.actions?.some((a) => a.name === 'cancel_reservation'))!;
    const cancel = task.evaluation_criteria!.actions!.find((a) => a.name === 'cancel_reservation')!;
    stub = await startStubServer({
      script: [
        { toolCalls: [{ name: 'get_reservation_details', arguments: cancel.arguments }] },
        { toolCalls: [{ name: 'cancel_reservation', arguments: cancel.arguments }] },
        { content: 'Your reservation is cancelled.' },
      ],
    });
    const r = await runEpisode({
      task,
      domain: d,
      agent: [process.execPath, path.join(agentsDir, 'openai-agent.mjs')],
      spawn: { env: { OPENAI_BASE_URL: stub.baseURL, OPENAI_API_KEY: 'k', OPENAI_MODEL: 'agent-model' } },
      user: scriptedUser(),
    });
    expect(r.info.termination).toBe('user_stop');
    expect(r.toolCalls.map((c) => [c.name, c.ok])).toEqual([
      ['get_reservation_details', true],
      ['cancel_reservation', true],
    ]);
    const req = stub.requests[1] as any;
    expect(req.tools.map((t: any) => t.function.name)).toContain('book_reservation');
    expect(req.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining(cancel.arguments.reservation_id),
    });
    expect(r.messages.at(-2)).toMatchObject({ role: 'assistant', content: 'Your reservation is cancelled.' });
  });
});
