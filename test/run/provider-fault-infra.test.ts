// Provider faults are not the delivery's (issue 17, items 4 and 8), through `heldout run` with the stub as the
// runtime upstream, on docker and on the process backend: a delivery whose model call got a provider 500 (after the
// gateway's retries) and that exits 1, or whose stream the upstream cut mid-event, is an infra-error with the ledger
// lines as evidence, dropped from the mean and counted; one that retried and wrote its answer is graded as usual.
// Issue 31: the same for a provider error sent inside the 200 stream, and for a provider that goes silent — seen by
// the gateway's idle timeout (half the case's wall budget), or cut by the wall after a quarter of it in silence.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type StubReply, type StubRequest, startStubServer } from '../../fixtures/stub-openai/server.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { sandboxTempDir } from '../../src/util/index.js';
import { heldout, runtimeStubEnv } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const COMMISSION = 'fixtures/model-use/commission';
const docker = await engineAnswers(WAIT_MS);

/** Answers by delivery: what each fault needs of the runtime upstream (a delivery says which by its request). */
let script: (req: StubRequest) => StubReply = () => ({ content: 'ok' });
let stub: Awaited<ReturnType<typeof startStubServer>>;
const tmp = sandboxTempDir('heldout-provider-fault-');

beforeAll(async () => {
  stub = await startStubServer({ script: (req) => script(req) });
});
afterAll(async () => {
  await stub.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The commission with another wall budget: a copy in the test's temp dir. */
function withWall(wallSeconds: number): string {
  const dir = path.join(tmp, `commission-wall-${wallSeconds}`);
  if (existsSync(dir)) return dir;
  cpSync(COMMISSION, dir, { recursive: true });
  const yaml = readFileSync(path.join(dir, 'commission.yaml'), 'utf8');
  expect(yaml).toContain('wallSeconds: 30');
  writeFileSync(path.join(dir, 'commission.yaml'), yaml.replace('wallSeconds: 30', `wallSeconds: ${wallSeconds}`));
  return dir;
}

async function run(delivery: string, sandbox: string, { commission = COMMISSION, tag = '' } = {}) {
  const out = path.join(tmp, `${path.basename(delivery)}${tag}-${sandbox}`);
  const r = await heldout(['run', commission, '--delivery', delivery, '--sandbox', sandbox, '--out', out], {
    env: runtimeStubEnv(stub.baseURL),
  });
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).commissions[0];
  /** The ledger lines of one case (the session names a case's ledger `<commission>/<label>/<split>/<case>`). */
  const ledger = (caseId: string) =>
    readFileSync(path.join(out, 'ledger', `model-use_${path.basename(delivery)}_heldout_${caseId}.1.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const caseOutput = (caseId: string, file: string) =>
    readFileSync(path.join(out, 'cases/model-use', path.basename(delivery), 'heldout', `${caseId}-t1`, file), 'utf8');
  return { r, summary, ledger, caseOutput };
}

const sandboxes = [...(docker ? ['docker'] : []), 'process'];
if (!docker) test.skip('docker: no engine answers here (the process backend runs below)', () => {});

describe.each(sandboxes)('provider faults through heldout run (%s sandbox)', (sandbox) => {
  test('a provider 500 on its one model call, then exit 1: infra-error with the ledger line, not error-exit 0', async () => {
    script = () => ({ status: 500 });
    const { r, summary, ledger } = await run('fixtures/faults/provider-500', sandbox);
    expect(summary.cases.length, r.out).toBe(2);
    for (const c of summary.cases) {
      const lines = ledger(c.id);
      expect(lines).toEqual([
        expect.objectContaining({ status: 500, classification: 'provider_failure', attempts: 4 }),
      ]);
      expect(c).toMatchObject({ status: 'infra-error', result: null, passed: false, gate: null });
      expect(c.reason).toContain(`${lines[0].callId} runtime chat.completions: 500 provider_failure upstream_500`);
      expect(c.reason).toContain('error-exit gate failed: the entry command exited 1');
    }
    expect(summary.result).toMatchObject({ n: 0, infraErrors: 2 });
    expect(summary.failureModes).toMatchObject({ errorExit: 0 });
  });

  test('a stream the upstream cut mid-event: the delivery saw whole events and the error event; infra-error', async () => {
    script = () => ({ content: 'thirteen is a prime above ten', truncate: 'mid-event' });
    const { r, summary, ledger, caseOutput } = await run('fixtures/faults/truncated-stream', sandbox);
    expect(summary.cases.length, r.out).toBe(2);
    for (const c of summary.cases) {
      const seen = JSON.parse(caseOutput(c.id, 'stream.json'));
      expect(seen).toMatchObject({ unparsable: [], error: 'stream_truncated', done: false });
      expect(seen.content).toBe('thirteen is a ');
      expect(ledger(c.id)).toEqual([
        expect.objectContaining({ stream: true, classification: 'provider_failure', error: 'stream_truncated' }),
      ]);
      expect(c).toMatchObject({ status: 'infra-error', result: null });
      expect(c.reason).toContain('provider_failure stream_truncated');
    }
    expect(summary.result).toMatchObject({ n: 0, infraErrors: 2 });
  });

  test('a provider error inside the 200 stream (a chat error chunk): the delivery saw it; infra-error, not error-exit 0', async () => {
    script = () => ({ content: 'thirteen is a prime above ten', streamError: { message: 'The server had an error' } });
    const { r, summary, ledger, caseOutput } = await run('fixtures/faults/truncated-stream', sandbox, {
      tag: '-error',
    });
    expect(summary.cases.length, r.out).toBe(2);
    for (const c of summary.cases) {
      expect(JSON.parse(caseOutput(c.id, 'stream.json'))).toMatchObject({ error: 'server_error', done: false });
      expect(ledger(c.id)).toEqual([
        expect.objectContaining({
          status: 200,
          classification: 'provider_failure',
          error: 'upstream_stream_error',
          upstreamError: expect.objectContaining({ event: 'error', message: 'The server had an error' }),
        }),
      ]);
      expect(c).toMatchObject({ status: 'infra-error', result: null });
      expect(c.reason).toContain('200 provider_failure upstream_stream_error');
      expect(c.reason).toContain('error-exit gate failed');
    }
    expect(summary.result).toMatchObject({ n: 0, infraErrors: 2 });
  });

  test("a provider that never answers: the gateway's idle timeout (half the 6 s wall) ends the call first; infra-error, not timeout 0", async () => {
    script = () => ({ hang: true });
    const commission = withWall(6);
    const { r, summary, ledger } = await run('fixtures/faults/provider-500', sandbox, { commission, tag: '-silent' });
    expect(summary.cases.length, r.out).toBe(2);
    for (const c of summary.cases) {
      expect(ledger(c.id)).toEqual([
        expect.objectContaining({ status: 504, classification: 'transport_failure', error: 'upstream_timeout' }),
      ]);
      expect(c).toMatchObject({ status: 'infra-error', result: null });
      expect(c.reason).toContain('error-exit gate failed');
    }
    expect(summary.result).toMatchObject({ n: 0, infraErrors: 2 });
    expect(summary.failureModes).toMatchObject({ timeout: 0 });
  });

  test('a call silent for over a quarter of the 12 s wall when the wall kills the case: upstream_silent; infra-error, not timeout 0', async () => {
    script = () => ({ hang: true });
    const { r, summary, ledger } = await run('fixtures/faults/silent-at-wall', sandbox, { commission: withWall(12) });
    expect(summary.cases.length, r.out).toBe(2);
    for (const c of summary.cases) {
      expect(ledger(c.id)).toEqual([
        expect.objectContaining({ status: 499, classification: 'transport_failure', error: 'upstream_silent' }),
      ]);
      expect(c).toMatchObject({ status: 'infra-error', result: null });
      expect(c.reason).toContain('transport_failure upstream_silent');
      expect(c.reason).toContain('timeout gate failed');
    }
    expect(summary.result).toMatchObject({ n: 0, infraErrors: 2 });
  });

  test('a delivery that retried past the provider 500 and wrote its answer is graded as usual', async () => {
    // The gateway's four attempts of each case's first call get 500s; the delivery's own second call succeeds.
    const seenPrompts = new Map<string, number>();
    script = (req) => {
      const prompt = JSON.stringify(req.body?.messages ?? '');
      const n = (seenPrompts.get(prompt) ?? 0) + 1;
      seenPrompts.set(prompt, n);
      return n <= 4 ? { status: 500 } : { content: '13' };
    };
    const { r, summary, ledger } = await run('fixtures/model-use/deliveries/retries-model', sandbox);
    expect(summary.cases.length, r.out).toBe(2);
    for (const c of summary.cases) {
      expect(ledger(c.id).map((l) => l.classification)).toEqual(['provider_failure', 'success']);
      expect(c).toMatchObject({ status: 'graded', result: 100, passed: true });
    }
    expect(summary.result).toMatchObject({ n: 2, infraErrors: 0, mean: 100 });
  });
});
