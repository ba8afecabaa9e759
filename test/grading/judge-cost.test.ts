// The judge's cost in money (issue 34): through the real gateway's judge role over loopback TCP, against the stub,
// a verdict's costUsd is the price of the usage its calls reported — the same figure the gateway ledgers for them,
// cached input at its rate — 0 when served from the cache, null (never 0) when the judge model has no price.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { type Gateway, startGateway } from '../../src/gateway/index.js';
import { gradeCase } from '../../src/grading/index.js';
import { judgedCase, tmpDir, verdict } from './judge-helpers.js';

const PRICE = { input: 3, output: 15, cachedInput: 0.3 };
let stub: StubServer;
let gw: Gateway;
beforeAll(async () => {
  stub = await startStubServer({
    script: [{ json: verdict(20, 20), usage: { prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 600 } }],
  });
  gw = await startGateway({
    env: {},
    tcp: true,
    ledgerDir: tmpDir('heldout-judge-cost-ledger-'),
    roles: { judge: { baseURL: stub.baseURL, apiKey: 'sk-judge-real', model: 'judge-model' } },
    pricing: { source: 'prices.yaml', models: { 'judge-model': PRICE } },
    onNotice: () => {},
  });
});
afterAll(async () => {
  await gw.close();
  await stub.close();
});

describe('judge cost', () => {
  test('a verdict costs what its calls reported, as the gateway ledgered them; a cached one costs 0', async () => {
    const cacheDir = tmpDir('heldout-judge-cost-cache-');
    const judge = { baseURL: gw.roleBaseURL('judge'), apiKey: 'heldout-judge', model: 'judge-model', price: PRICE };
    const c = { ...judgedCase(), cacheDir, judge };
    const first = await gradeCase(c);
    const expected = (400 * 3 + 600 * 0.3 + 200 * 15) / 1e6;
    expect(first.judge?.costUsd).toBeCloseTo(expected, 12);
    await gw.flush();
    const ledgered = gw.ledgerFor('_judge', 0).map((l) => l.costUsd);
    expect(ledgered).toHaveLength(1);
    expect(ledgered[0]).toBeCloseTo(first.judge!.costUsd!, 12);
    const repeat = await gradeCase(c);
    expect(repeat.judge).toMatchObject({ cached: true, costUsd: 0 });
  });

  test('a judge model with no price: costUsd null; without a table: no costUsd at all', async () => {
    const base = { baseURL: gw.roleBaseURL('judge'), apiKey: 'heldout-judge', model: 'judge-model' };
    const unpriced = await gradeCase({ ...judgedCase(), judge: { ...base, price: null } });
    expect(unpriced.status).toBe('graded');
    expect(unpriced.judge?.costUsd).toBeNull();
    const none = await gradeCase({ ...judgedCase(), judge: base });
    expect(none.judge).not.toHaveProperty('costUsd');
  });
});
