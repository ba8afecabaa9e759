// Claude Code as a delivery through `heldout run`, on docker (the runtime image: the librt its binary links, the
// C.UTF-8 locale) and on the process backend, against an Anthropic-protocol upstream: its Read tool on a file,
// then the final answer, graded. `npm run test:clients` only.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startAnthropicStub } from '../../fixtures/stub-openai/anthropic.js';
import type { StubReply, StubRequest } from '../../fixtures/stub-openai/server.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { sandboxTempDir } from '../../src/util/index.js';
import { heldout, runtimeStubEnv } from '../helpers/cli.js';
import { clientPrefix } from '../helpers/clients.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const at = clientPrefix('claude-code');
const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
const bin =
  'prefix' in at ? path.join(at.prefix, 'node_modules', '@anthropic-ai', `claude-code-linux-${arch}`, 'claude') : '';
const skip = 'skip' in at ? at.skip : existsSync(bin) ? '' : `no Claude Code binary at ${bin}`;
const docker = await engineAnswers(WAIT_MS);
const tmp = sandboxTempDir('heldout-cc-delivery-');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function reply(req: StubRequest): StubReply {
  const text = JSON.stringify(req.body?.messages ?? []);
  if (text.includes('the gnu is an antelope')) return { content: 'FINAL: a gnu is an antelope' };
  const file = /\(the file is ([^)\s]+)\)/.exec(text)?.[1];
  return file ? { toolCalls: [{ name: 'Read', arguments: { file_path: file } }] } : { content: 'no file named' };
}

describe.skipIf(skip).each([...(docker ? ['docker'] : []), 'process'])(
  'Claude Code as a delivery (%s sandbox)',
  (sandbox) => {
    test('its Read tool on a file, then the final answer, graded through the gateway', async () => {
      const stub = await startAnthropicStub({ script: reply });
      try {
        const delivery = path.join(tmp, `claude-code-${sandbox}`);
        mkdirSync(delivery, { recursive: true });
        cpSync('fixtures/clients/claude-code/agent.sh', path.join(delivery, 'agent.sh'));
        cpSync(bin, path.join(delivery, 'claude'));
        const out = path.join(tmp, `out-${sandbox}`);
        const env = { ...runtimeStubEnv(stub.baseURL), HELDOUT_RUNTIME_PROTOCOL: 'anthropic' };
        const args = [
          'run',
          'fixtures/clients/cli-commission',
          '--delivery',
          delivery,
          '--sandbox',
          sandbox,
          '--out',
          out,
        ];
        const r = await heldout(args, { env });
        const c = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).commissions[0].cases[0];
        expect(c, r.out).toMatchObject({ status: 'graded', passed: true });
        expect(c.modelCalls).toBeGreaterThanOrEqual(2);
        expect(stub.requests.some((b) => JSON.stringify(b.messages).includes('the gnu is an antelope'))).toBe(true);
      } finally {
        await stub.close();
      }
    });
  },
);
