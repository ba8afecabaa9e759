// Cost in money end to end (issue 34): `heldout run --pricing` on the docker sandbox, the stub as the runtime
// upstream. Each ledger line carries its call's cost, each case and entry and the run theirs in summary.json and
// report.md; a usd budget on a model the table lacks is refused as the evaluator's fault (infra-error, never the
// delivery's) and the model named once. (A null cost for an unpriced call: test/gateway/cost.test.ts and
// test/report/cost.test.ts.)
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStubServer } from '../../fixtures/stub-openai/server.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { sandboxTempDir } from '../../src/util/index.js';
import { heldout, runtimeStubEnv } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const COMMISSION = 'fixtures/model-use/commission';
const DELIVERY = 'fixtures/model-use/deliveries/calls-model';
const docker = await engineAnswers(WAIT_MS);
const tmp = sandboxTempDir('heldout-cost-');
let stub: Awaited<ReturnType<typeof startStubServer>>;

beforeAll(async () => {
  stub = await startStubServer({ script: [{ content: 'Paris.', usage: { prompt_tokens: 12, completion_tokens: 3 } }] });
});
afterAll(async () => {
  await stub.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** A pricing file in the test's temp dir. */
function pricing(name: string, text: string): string {
  const file = path.join(tmp, name);
  writeFileSync(file, text);
  return file;
}

async function run(tag: string, commission: string, pricingFile: string) {
  const out = path.join(tmp, tag);
  const args = ['run', commission, '--delivery', DELIVERY, '--sandbox', 'docker', '--out', out];
  const r = await heldout([...args, '--pricing', pricingFile], { env: runtimeStubEnv(stub.baseURL) });
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  const ledger = (caseId: string) =>
    readFileSync(path.join(out, 'ledger', `model-use_calls-model_heldout_${caseId}.1.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  return {
    r,
    summary,
    entry: summary.commissions[0],
    ledger,
    markdown: readFileSync(path.join(out, 'report.md'), 'utf8'),
  };
}

describe.skipIf(!docker)('cost in money through heldout run (docker sandbox)', () => {
  test('each call priced in the ledger; each case, entry and the run in summary.json; the Cost column in report.md', async () => {
    const file = pricing('prices.yaml', 'models:\n  runtime-model: { input: 1, output: 2 }\n');
    const { r, summary, entry, ledger, markdown } = await run('priced', COMMISSION, file);
    expect(r.code, r.out).toBe(0);
    const perCall = (12 * 1 + 3 * 2) / 1e6;
    expect(entry.cases).toHaveLength(2);
    for (const c of entry.cases) {
      expect(ledger(c.id)).toEqual([expect.objectContaining({ model: 'runtime-model', costUsd: perCall })]);
      expect(c.cost).toEqual({ delivery: perCall, user: 0, judge: 0, total: perCall });
    }
    expect(entry.cost.total).toBeCloseTo(2 * perCall, 15);
    expect(summary.cost.total).toBeCloseTo(2 * perCall, 15);
    expect(markdown).toMatch(/\| Cost \|/);
    expect(markdown).toContain('$0.0000360');
    expect(r.out).not.toMatch(/not in the pricing table/);
  });

  test('a usd budget on a model missing from the table: 503 model_unpriced, an infra-error, nothing sent upstream', async () => {
    const dir = path.join(tmp, 'commission-usd');
    cpSync(COMMISSION, dir, { recursive: true });
    const yaml = readFileSync(path.join(dir, 'commission.yaml'), 'utf8');
    expect(yaml).toContain('modelCalls: 3 }');
    writeFileSync(path.join(dir, 'commission.yaml'), yaml.replace('modelCalls: 3 }', 'modelCalls: 3, usd: 1 }'));
    const file = pricing('other.yaml', 'models:\n  other-model: { input: 1, output: 2 }\n');
    const before = stub.requests.length;
    const { r, entry, ledger } = await run('usd-unpriced', dir, file);
    expect(entry.cases).toHaveLength(2);
    for (const c of entry.cases) {
      expect(ledger(c.id)).toEqual([
        expect.objectContaining({
          status: 503,
          classification: 'provider_failure',
          error: 'model_unpriced',
          costUsd: 0,
        }),
      ]);
      // the evaluator's table is at fault: the case is lost to infrastructure, not failed by the delivery
      expect(c).toMatchObject({ status: 'infra-error', result: null });
      expect(c.reason).toContain('model_unpriced');
    }
    expect(entry.result, r.out).toMatchObject({ n: 0, infraErrors: 2 });
    expect(stub.requests.length).toBe(before);
    // refused before it was sent, each call cost nothing; the unpriced model is said once for the run
    for (const c of entry.cases) expect(c.cost).toEqual({ delivery: 0, user: 0, judge: 0, total: 0 });
    expect(r.out.match(/model runtime-model is not in the pricing table/g)).toHaveLength(1);
  });
});
