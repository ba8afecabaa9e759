// Client conformance (issue 32): a delivery built on a real agent client, pinned in test/clients.json and installed
// from the npm registry outside the repository, runs held-out cases through `heldout run` on docker and on the
// process backend, against an Anthropic-protocol upstream and an OpenAI-compatible one (translated): a tool call then
// a final answer, streamed and not; a call budget stops a looping client; a provider 500 and an in-stream provider
// error are infra-errors; the upstream sees the client's request but the model.
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startAnthropicStub } from '../../fixtures/stub-openai/anthropic.js';
import {
  type StubReply,
  type StubRequest,
  type StubServer,
  startStubServer,
} from '../../fixtures/stub-openai/server.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { sandboxTempDir } from '../../src/util/index.js';
import { heldout, runtimeStubEnv } from '../helpers/cli.js';
import { clientPrefix } from '../helpers/clients.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const COMMISSION = 'fixtures/clients/commission';
const docker = await engineAnswers(WAIT_MS);
const sdk = clientPrefix('anthropic-sdk');
const tmp = sandboxTempDir('heldout-clients-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The delivery: the fixture's agent with the pinned SDK beside it (copied: a container sees no host symlink). */
function delivery(): string {
  const dir = path.join(tmp, 'anthropic-sdk');
  mkdirSync(dir, { recursive: true });
  cpSync('fixtures/clients/anthropic-sdk/agent.mjs', path.join(dir, 'agent.mjs'));
  if ('prefix' in sdk)
    cpSync(path.join(sdk.prefix, 'node_modules'), path.join(dir, 'node_modules'), {
      recursive: true,
      dereference: true,
    });
  return dir;
}

/** The first user turn names the case; a turn carrying a tool result gets the final answer. */
function reply(req: StubRequest): StubReply {
  const msgs: any[] = req.body?.messages ?? [];
  const mode = String(msgs.find((m) => m.role === 'user')?.content ?? '');
  const answered = msgs.some(
    (m) => m.role === 'tool' || (Array.isArray(m.content) && m.content.some((b: any) => b.type === 'tool_result')),
  );
  if (mode === 'fault-500') return { status: 500 };
  if (mode === 'fault-stream') return { content: 'one two three four', streamError: true };
  if (mode === 'loop' || !answered)
    return {
      toolCalls: [{ name: 'lookup', arguments: { word: 'gnu' } }],
      usage: { input_tokens: 20, output_tokens: 4 },
    };
  return { content: 'A gnu is an antelope.', usage: { input_tokens: 30, output_tokens: 6 } };
}

// Each backend with one protocol, so both backends and both protocols run within CI's budget.
const runs = docker
  ? [
      ['docker', 'anthropic'],
      ['process', 'openai'],
    ]
  : [
      ['process', 'anthropic'],
      ['process', 'openai'],
    ];
const why = 'skip' in sdk ? sdk.skip : docker ? '' : 'docker: no engine answers here';
if (why) test.skip(why, () => {});

describe.skipIf('skip' in sdk).each(runs)(
  '@anthropic-ai/sdk as a delivery (%s sandbox, %s upstream)',
  (sandbox, protocol) => {
    test('tool loops pass streamed and not; faults are infra-errors; a looping client is stopped by its call budget', async () => {
      const stub: StubServer =
        protocol === 'anthropic'
          ? await startAnthropicStub({ script: reply })
          : await startStubServer({ script: reply });
      try {
        const out = path.join(tmp, `out-${sandbox}-${protocol}`);
        const env = { ...runtimeStubEnv(stub.baseURL), HELDOUT_RUNTIME_PROTOCOL: protocol };
        const r = await heldout(['run', COMMISSION, '--delivery', delivery(), '--sandbox', sandbox, '--out', out], {
          env,
        });
        const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).commissions[0];
        const byId = Object.fromEntries(summary.cases.map((c: any) => [c.id, c]));
        const ledger = (id: string) =>
          readFileSync(path.join(out, 'ledger', `client-conformance_anthropic-sdk_heldout_${id}.1.jsonl`), 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
        for (const id of ['tool-plain', 'tool-stream']) {
          expect(byId[id], `${id}\n${r.out}`).toMatchObject({ status: 'graded', passed: true, modelCalls: 2 });
          expect(ledger(id).map((l) => [l.endpoint, l.classification, l.model, l.stream])).toEqual([
            ['messages', 'success', 'runtime-model', id === 'tool-stream'],
            ['messages', 'success', 'runtime-model', id === 'tool-stream'],
          ]);
        }
        for (const id of ['fault-500', 'fault-stream']) {
          expect(byId[id], id).toMatchObject({ status: 'infra-error', result: null });
          expect(ledger(id)[0]).toMatchObject({ classification: 'provider_failure' });
        }
        expect(byId.loop.status).not.toBe('infra-error');
        expect(byId.loop.passed).toBe(false);
        expect(ledger('loop').map((l) => l.error)).toEqual([null, null, null, 'budget_exceeded']);
        if (protocol === 'anthropic') {
          // what the upstream heard of the first turn is the client's body with only the model replaced
          const first = stub.requests.find((b) => b.messages.length === 1 && b.messages[0].content === 'tool-stream');
          expect(first).toEqual({
            model: 'runtime-model',
            max_tokens: 200,
            stream: true,
            tools: [expect.objectContaining({ name: 'lookup' })],
            messages: [{ role: 'user', content: 'tool-stream' }],
          });
          expect(stub.calls.every((c) => c.headers['x-api-key'] === 'sk-runtime-real-key')).toBe(true);
        } else expect(stub.calls.every((c) => c.path === '/v1/chat/completions')).toBe(true);
      } finally {
        await stub.close();
      }
    });
  },
);
