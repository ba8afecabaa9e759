import { fc, test as prop } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAgentLine, parseAgentMessage } from '../../src/tau2/agent/agent-protocol.js';
import {
  type AgentFunction,
  type AgentMessage,
  plainJson,
  runEpisode,
  scriptedUser,
  type Tau2Task,
} from '../../src/tau2/index.js';
import { pyJsonDumps } from '../../src/tau2/py/json.js';
import { fromPlain } from '../../src/tau2/py/plain.js';
import { PyFloat, type PyValue } from '../../src/tau2/py/values.js';
import { agentFactory, oracleExtras } from './agents.js';
import { domain } from './data.js';
import { referenceUnavailable, Tau2Reference, tau2Messages } from './tau2-reference.js';

/**
 * The agent's own arguments, from its tool call to the reward's replay: a model sends `refuel_data(gb_amount=2.0)` as
 * JSON text, Python's json.loads keeps the float, τ²'s tool writes "2.0 GB" into the bill, and the gold's `2.0` does the
 * same. Read as JavaScript reads JSON the replay would run `2` ("2 GB") and the DB check would fail an agent that did
 * exactly what the gold does.
 */
const unavailable = referenceUnavailable();
let ref: Tau2Reference | undefined;
beforeAll(() => {
  if (!unavailable) ref = new Tau2Reference();
});
afterAll(() => ref?.close());

/**
 * A real τ² telecom task's refuel, `refuel_data(customer_id, line_id, gb_amount=2.0)`, as a task graded on the
 * database alone (as stage 3 grades telecom tasks where τ²'s DB check can hold): without the task's phone set-up and
 * user action, whose sync_tools τ²'s unsynced gold replay never matches.
 */
async function refuelTask(): Promise<Tau2Task> {
  const d = await domain('telecom');
  const task = d.tasks.find((t) =>
    t.evaluation_criteria?.actions?.some((a) => a.name === 'refuel_data' && a.arguments.gb_amount instanceof PyFloat),
  );
  const refuel = task?.evaluation_criteria?.actions?.find((a) => a.name === 'refuel_data');
  if (!task || !refuel) throw new Error('no telecom task refuels a float amount');
  return {
    ...task,
    initial_state: null,
    evaluation_criteria: { actions: [refuel], reward_basis: ['DB'] },
  } as Tau2Task;
}

/**
 * The test oracle as a model-driven agent speaks: every call's arguments as JSON text (OpenAI's `arguments`), with
 * `edit` applied to that text.
 */
async function textOracle(task: Tau2Task, edit: (text: string) => string = (t) => t): Promise<AgentFunction> {
  const oracle = (await agentFactory('oracle.mjs', 'createOracle'))();
  const extras = oracleExtras(task);
  return async (msg) => {
    const reply = (await oracle(msg.type === 'start' ? { ...msg, ...extras } : msg)) as AgentMessage | undefined;
    if (reply?.type !== 'tool_calls') return reply;
    return {
      type: 'tool_calls',
      calls: reply.calls.map((c) => ({ ...c, arguments: edit(plainJson(c.arguments)) as never })),
    };
  };
}

describe('τ² episodes keep the agent’s raw arguments', () => {
  test('refuel_data(gb_amount=2.0) sent as the gold has it gets DB 1; gb_amount=2 gets 0 — as τ²’s evaluator says', async () => {
    const d = await domain('telecom');
    const task = await refuelTask();
    const verdicts: Record<string, unknown>[] = [];
    for (const [label, edit, expected] of [
      ['2.0', (t: string) => t, 1],
      ['2', (t: string) => t.replace('"gb_amount":2.0', '"gb_amount":2'), 0],
    ] as const) {
      const ep = await runEpisode({ task, domain: d, agent: await textOracle(task, edit), user: scriptedUser() });
      const refuel = ep.toolCalls.find((c) => c.name === 'refuel_data');
      expect(refuel?.ok, label).toBe(true);
      expect(plainJson(refuel?.arguments.gb_amount), label).toBe(label);
      expect(ep.info.termination, label).toBe('user_stop');
      expect(ep.rewardDetail.info.replayMismatches, label).toBeUndefined();
      expect(ep.reward, label).toBe(expected);
      if (ref) {
        const theirs = await ref.reward('telecom', task, tau2Messages(ep));
        verdicts.push({ label, heldout: ep.reward, tau2: theirs.reward, db: theirs.db_match });
      }
    }
    if (ref)
      expect(verdicts).toEqual([
        { label: '2.0', heldout: 1, tau2: 1, db: true },
        { label: '2', heldout: 0, tau2: 0, db: false },
      ]);
  });

  test('the record (episode.json) writes the float as the agent sent it, and holds no raw copy', async () => {
    const d = await domain('telecom');
    const task = await refuelTask();
    const ep = await runEpisode({ task, domain: d, agent: await textOracle(task), user: scriptedUser() });
    const text = plainJson({ messages: ep.messages, toolCalls: ep.toolCalls });
    expect(text).toContain('"gb_amount":2.0');
    expect(text).not.toContain('"gb_amount":2,');
    expect(text).not.toContain('rawArguments');
  });

  test('a protocol line whose arguments are a JSON object keeps 2.0 a float too', () => {
    const msg = parseAgentLine(
      '{"type":"tool_calls","calls":[{"id":"a","name":"refuel_data","arguments":{"gb_amount":2.0,"line_id":"L1"}}]}',
    );
    if (msg.type !== 'tool_calls') throw new Error('not a tool call');
    const [call] = msg.calls;
    expect(call.arguments.gb_amount).toBeInstanceOf(PyFloat);
    expect(plainJson(call.arguments)).toBe('{"gb_amount":2.0,"line_id":"L1"}');
    expect(call.rawArguments?.get('gb_amount')).toBeInstanceOf(PyFloat);
  });

  // Keys that JavaScript keeps in insertion order (an integer-like key would move first in a plain object; the
  // replay runs the exact arguments, so only the record's view would differ).
  const key = fc.string({ maxLength: 5 }).map((k) => `k${k}`);
  const value: fc.Arbitrary<PyValue> = fc.letrec<{ v: PyValue }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => new PyFloat(x)),
      fc.string({ unit: 'binary' }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('v'), { maxLength: 3 }),
      fc.array(fc.tuple(key, tie('v')), { maxLength: 3 }).map((es) => new Map(es)),
    ),
  })).v;
  prop.prop([fc.array(fc.tuple(key, value), { maxLength: 5 }).map((es) => new Map(es))])(
    "an agent's JSON arguments: the record's plain view and the exact view both read back as Python read the text",
    (args) => {
      const text = pyJsonDumps(args);
      const msg = parseAgentMessage({ type: 'tool_calls', calls: [{ id: 'c', name: 't', arguments: text }] });
      if (msg.type !== 'tool_calls') throw new Error('not a tool call');
      const [call] = msg.calls;
      expect(pyJsonDumps(call.rawArguments as PyValue)).toBe(text);
      expect(pyJsonDumps(fromPlain(call.arguments))).toBe(text);
    },
  );
});
