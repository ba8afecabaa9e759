import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStubServer } from '../../fixtures/stub-openai/server.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { heldout, runtimeStubEnv } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

// The runtime model through the runner's gateway, end to end, and the hollow-runtime detector (DESIGN §10): a
// commission that requires model use flags a delivery the gateway never saw call, and not one that did.
describe('model use through the gateway', async () => {
  const docker = await engineAnswers(WAIT_MS);
  const sandbox = docker ? 'docker' : 'process';
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-model-use-'));
  let stub: Awaited<ReturnType<typeof startStubServer>>;

  beforeAll(async () => {
    stub = await startStubServer({
      script: [{ content: 'Paris.', usage: { prompt_tokens: 12, completion_tokens: 3 } }],
    });
  });
  afterAll(async () => {
    await stub.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const run = async (delivery: string) => {
    const out = path.join(tmp, delivery);
    const r = await heldout(
      [
        'run',
        'fixtures/model-use/commission',
        '--delivery',
        `fixtures/model-use/deliveries/${delivery}`,
        '--sandbox',
        sandbox,
        '--out',
        out,
      ],
      { env: runtimeStubEnv(stub.baseURL) },
    );
    return { r, summary: JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).commissions[0] };
  };

  test(`a delivery that calls the model is served through the gateway and not flagged (${sandbox} sandbox)`, async () => {
    const before = stub.requests.length;
    const { r, summary } = await run('calls-model');
    expect(r.code, r.out).toBe(0);
    expect(summary.failureModes.noModelCalls).toBe(false);
    for (const c of summary.cases) {
      expect(c.modelCalls).toBe(1);
      expect(c.tokens).toBe(15);
    }
    const seen = stub.requests.slice(before);
    expect(seen).toHaveLength(2);
    expect(seen.every((q: any) => q.model === 'runtime-model')).toBe(true);
  });

  test('a delivery that never calls it is flagged as a hollow runtime', async () => {
    const { summary } = await run('never-calls');
    expect(summary.failureModes.noModelCalls).toBe(true);
    for (const c of summary.cases) expect(c.modelCalls).toBe(0);
  });
});
