import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { gradeCase, repairEnvelope } from '../../src/grading/index.js';
import { judgedCase, verdict } from './judge-helpers.js';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer({ script: [] });
});
afterAll(() => stub.close());
const judge = () => ({ baseURL: stub.baseURL, apiKey: 'k', model: 'judge-model', maxRetries: 0 });

describe('envelope repair', () => {
  test('code fences, leading prose and trailing commas are repaired; prose alone is not', () => {
    expect(repairEnvelope('```json\n{"a": [1, 2,],}\n```')).toEqual({ ok: true, value: { a: [1, 2] }, repaired: true });
    expect(repairEnvelope('Here is my verdict: {"a": 1} Hope it helps.')).toEqual({
      ok: true,
      value: { a: 1 },
      repaired: true,
    });
    expect(repairEnvelope('{"a": 1}')).toEqual({ ok: true, value: { a: 1 }, repaired: false });
    expect(repairEnvelope('I cannot grade this.')).toEqual({ ok: false, error: 'no JSON object in the answer' });
    expect(repairEnvelope('{"a": 1, "b": }').ok).toBe(false);
  });
});

describe('the judge through the stub model', () => {
  test('a fenced answer with a trailing comma is repaired and scored; the request is schema-constrained', async () => {
    const body = JSON.stringify(verdict(27, 24), null, 1).replace(/"solid"\n}$/, '"solid",\n}');
    stub.setScript([{ content: `Sure, here it is:\n\`\`\`json\n${body}\n\`\`\`` }]);
    const before = stub.requests.length;
    const g = await gradeCase({ ...judgedCase(), judge: judge() });
    expect(stub.requests.length - before).toBe(1);
    expect(g).toMatchObject({
      status: 'graded',
      result: 40 + 27 + 24,
      passed: true,
      judge: { model: 'judge-model', assessment: 'solid', cached: false },
    });
    expect(g.dimensions.correctness!.items.map((i) => i.earned)).toEqual([40, 27]);
    const req = stub.requests.at(-1);
    expect(req.model).toBe('judge-model');
    expect(req.response_format.type).toBe('json_schema');
    expect(req.response_format.json_schema.schema.properties.dimensions.properties.clarity.properties.score).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 30,
    });
    const prompt = req.messages.map((m: { content: string }) => m.content).join('\n');
    expect(prompt).toMatch(/^<<<DATA-[0-9a-f]+ BEGIN file "answer\.json">>>\n\{"capital": "Paris"/m);
    expect(prompt).toContain('What is the capital of France? Explain.');
    expect(prompt).toContain('The answer is clear and well organised.');
    expect(prompt).toMatch(
      /correctness: json-equals answer\.json:capital: 100% — evidence: "answer\.json:capital: expected \\"Paris\\", found \\"Paris\\""/,
    );
  });

  test('a malformed response body is retried once and then scored', async () => {
    const before = stub.requests.length;
    stub.setScript((_req, i) => (i === before ? { malformed: true } : { json: verdict(30, 30) }));
    const g = await gradeCase({ ...judgedCase(), judge: judge() });
    expect(stub.requests.length - before).toBe(2);
    expect(g).toMatchObject({ status: 'graded', result: 100 });
  });

  test('an answer that stays unparseable makes the case unscored with judge-error, never 0 or 100', async () => {
    stub.setScript(() => ({ content: 'I am unable to grade this submission.' }));
    const before = stub.requests.length;
    const g = await gradeCase({ ...judgedCase(), judge: judge() });
    expect(stub.requests.length - before).toBe(2);
    expect(g.status).toBe('unscored');
    expect(g.result).toBeNull();
    expect(g.passed).toBe(false);
    expect(g.reason).toBe('judge-error: unparseable answer: no JSON object in the answer');
    // The deterministic part is still reported.
    expect(g.dimensions.correctness!.items[0]).toMatchObject({ kind: 'json-equals', score: 1, earned: 40 });
    expect(g.dimensions.correctness!.items[1]).toMatchObject({ kind: 'judge', score: null, earned: null });
  });

  test('a total that disagrees with the scores is recomputed', async () => {
    stub.setScript(() => ({ json: { ...verdict(10, 10), total: 95 } }));
    const g = await gradeCase({ ...judgedCase(), judge: judge() });
    expect(g.result).toBe(60);
  });
});
