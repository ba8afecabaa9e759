import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doNothingAgent, generateTasks, instantiateSequence, validateTask } from '../../../src/taste/index.js';
import { runEpisode, scriptedUser } from '../../../src/tau2/index.js';
import { domain, tau2Dir } from '../../tau2/data.js';
import { referenceUnavailable, Tau2Reference, tau2Messages } from '../../tau2/tau2-reference.js';

/**
 * TASTE stage 3 keeps no task a do-nothing agent already passes. On the real telecom data at seed 1 stage 2 picks a
 * medoid whose gold reads, runs phone checks and turns roaming on and off again: graded on DB alone (τ²'s DB check
 * holds there), the gold ends where it started, so an agent that never calls a tool gets reward 1.
 */
const SEQUENCE = [
  'get_bills_for_customer',
  'check_installed_apps',
  'enable_roaming',
  'disable_roaming',
  'check_wifi_status',
  'check_app_status',
  'reboot_device',
  'check_vpn_status',
  'check_sim_status',
];

const unavailable = referenceUnavailable();
let ref: Tau2Reference | undefined;
beforeAll(() => {
  if (!unavailable) ref = new Tau2Reference();
});
afterAll(() => ref?.close());

describe('stage 3 rejects a task that a do-nothing agent passes (telecom, seed 1)', () => {
  it('the validation fails it at "measures", after every deterministic step passed; τ² grades the do-nothing episode 1 too', async () => {
    const d = await domain('telecom');
    const made = instantiateSequence(d, SEQUENCE, { seed: 1, id: 'nothing' });
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.task.evaluation_criteria?.reward_basis).toEqual(['DB']);
    const ep = await runEpisode({ task: made.task, domain: d, agent: doNothingAgent(), user: scriptedUser() });
    expect(ep.toolCalls).toEqual([]);
    expect(ep.reward).toBe(1);
    if (ref) expect((await ref.reward('telecom', made.task, tau2Messages(ep))).reward).toBe(1);

    const v = await validateTask(d, made.task);
    expect(v).toMatchObject({
      ok: false,
      passed: ['arguments', 'entities', 'schema', 'executes', 'policy'],
      failed: { step: 'measures' },
    });
    expect(v.failed?.reason).toMatch(
      /^a do-nothing agent \(no tool calls\) already gets reward 1 \(user_stop, graded on DB\)/,
    );
  });

  it('generation replaces that medoid (the reason recorded) and keeps no task the do-nothing agent passes', async () => {
    const d = await domain('telecom');
    const r = await generateTasks(path.join(tau2Dir, 'telecom'), { seed: 1 });
    expect(r.notInstantiable).toContainEqual({
      sequence: SEQUENCE,
      reason: expect.stringMatching(/^a do-nothing agent \(no tool calls\) already gets reward 1/),
    });
    expect(r.entries.every((e) => e.status === 'generated')).toBe(true);
    expect(r.tasks.length).toBe(r.medoids);
    expect(r.tasks.map((t) => t.evaluation_criteria?.actions?.map((a) => a.name))).not.toContainEqual(SEQUENCE);
    const passed: string[] = [];
    for (const t of r.tasks) {
      const ep = await runEpisode({ task: t, domain: d, agent: doNothingAgent(), user: scriptedUser() });
      if (ep.reward === 1) passed.push(t.id);
    }
    expect(passed).toEqual([]);
  });
});
