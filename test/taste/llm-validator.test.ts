import { afterEach, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { llmValidator, parseVerdict } from '../../src/taste/index.js';

const tools = [
  { name: 'get_user_details', type: 'READ', description: 'Get the details of a user.\nMore.' },
  { name: 'cancel_reservation', type: 'WRITE', description: 'Cancel the whole reservation.' },
];
let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('LLM validator against the stub OpenAI server', () => {
  test('sends a domain-agnostic prompt with the numbered sequence and reads a JSON verdict', async () => {
    stub = await startStubServer({
      script: [{ json: { plausible: false, problematic_indices: [1, 7], reason: 'cancel before lookup' } }],
    });
    const v = llmValidator({ baseURL: stub.baseURL, apiKey: 'k', model: 'judge', tools });
    const r = await v.validate(['cancel_reservation', 'get_user_details']);
    expect(r).toEqual({ plausible: false, problematicIndices: [1], reason: 'cancel before lookup' });
    const body = stub.requests[0];
    expect(body.model).toBe('judge');
    expect(body.messages[0].content).toMatch(/read before write/i);
    expect(body.messages[0].content).toMatch(/several user intents/i);
    expect(body.messages[1].content).toContain('0. cancel_reservation\n1. get_user_details');
    expect(body.messages[1].content).toContain('get_user_details (READ): Get the details of a user.');
  });

  test('tolerates code fences, retries once on a non-JSON reply, and never invents a verdict', async () => {
    stub = await startStubServer({
      script: [
        { content: 'Here you go:\n```json\n{"plausible": true, "problematic_indices": [], "reason": "fine"}\n```' },
        { content: 'I think it is fine.' },
        { content: '{"plausible": true, "problematic_indices": [], "reason": "ok"}' },
        { content: 'no json' },
        { content: 'still none' },
      ],
    });
    const v = llmValidator({ baseURL: stub.baseURL, apiKey: 'k', model: 'm', tools });
    expect((await v.validate(['get_user_details'])).plausible).toBe(true);
    expect((await v.validate(['get_user_details'])).reason).toBe('ok');
    await expect(v.validate(['get_user_details'])).rejects.toThrow(/no JSON/);
  });

  test('a server error rejects', async () => {
    stub = await startStubServer({ script: [{ status: 400 }] });
    const v = llmValidator({ baseURL: stub.baseURL, apiKey: 'k', model: 'm', tools });
    await expect(v.validate(['get_user_details'])).rejects.toThrow();
  });
});

test('parseVerdict requires a boolean plausible', () => {
  expect(() => parseVerdict('{"reason": "x"}', 3)).toThrow(/plausible/);
  expect(parseVerdict('{"plausible": "false", "problematic_indices": ["2", -1]}', 3).problematicIndices).toEqual([2]);
});
