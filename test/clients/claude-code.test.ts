// Claude Code (`claude -p`), unmodified, through the real gateway as a delivery on the process backend sees it (the
// gateway's TCP address in ANTHROPIC_BASE_URL, the placeholder key): against an Anthropic-protocol upstream and an
// OpenAI-compatible one (translated), a tool call (its Read tool on a file of the case) then the final answer.
// `npm run test:clients` only (its native binary is ~200 MB); skips when `.ci/install-clients --large` has not run.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { startAnthropicStub } from '../../fixtures/stub-openai/anthropic.js';
import {
  type StubReply,
  type StubRequest,
  type StubServer,
  startStubServer,
} from '../../fixtures/stub-openai/server.js';
import { type Gateway, startGateway } from '../../src/gateway/index.js';
import { clientPrefix } from '../helpers/clients.js';

const at = clientPrefix('claude-code');
const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
const bin =
  'prefix' in at ? join(at.prefix, 'node_modules', '@anthropic-ai', `claude-code-linux-${arch}`, 'claude') : '';
const skip = 'skip' in at ? at.skip : existsSync(bin) ? '' : `no Claude Code binary at ${bin}`;

let stub: StubServer;
let gw: Gateway;
let dir: string;
afterEach(async () => {
  await gw?.close();
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip).each(['anthropic', 'openai'] as const)(
  `Claude Code ${skip ? `(${skip})` : ''} (%s upstream)`,
  (protocol) => {
    test("a Read tool call on a case file, then the final answer; the model is the role's and the key never leaves", async () => {
      dir = mkdtempSync(join(tmpdir(), 'heldout-claude-code-'));
      const note = join(dir, 'note.txt');
      writeFileSync(note, 'the gnu is an antelope\n');
      const sawResult = (req: StubRequest) =>
        JSON.stringify(req.body?.messages ?? []).includes('the gnu is an antelope');
      const script = (req: StubRequest): StubReply =>
        sawResult(req)
          ? { content: 'FINAL: a gnu is an antelope' }
          : {
              toolCalls: [{ name: 'Read', arguments: { file_path: note }, id: 'toolu_1' }],
              finishReason: protocol === 'openai' ? 'tool_calls' : 'tool_use',
            };
      stub = protocol === 'anthropic' ? await startAnthropicStub({ script }) : await startStubServer({ script });
      gw = await startGateway({
        env: {},
        tcp: true,
        ledgerDir: join(dir, 'ledger'),
        roles: {
          runtime: { baseURL: stub.baseURL, apiKey: 'sk-real-key-never-shown', model: 'fixed-model', protocol },
        },
      });
      const reg = gw.registerCase({ caseId: 'cc', trial: 1, budgets: { calls: 10 } });
      const home = join(dir, 'home');
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', ...reg.env };
      const r = await promisify(execFile)(
        bin,
        ['-p', `Read ${note} and say what a gnu is`, '--output-format', 'json'],
        {
          env: { ...env, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
          cwd: dir,
        },
      );
      const out = JSON.parse(r.stdout);
      expect(out, r.stderr).toMatchObject({ is_error: false, result: 'FINAL: a gnu is an antelope' });
      await gw.flush();
      const lines = gw.ledgerFor('cc', 1).filter((l) => l.endpoint === 'messages');
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.every((l) => l.classification === 'success' && l.model === 'fixed-model')).toBe(true);
      const heard = stub.calls.filter((c) => c.method === 'POST');
      expect(heard.some(sawResult)).toBe(true);
      expect(JSON.stringify(r.stdout + r.stderr)).not.toContain('sk-real-key-never-shown');
      if (protocol === 'anthropic')
        expect(heard.every((c) => c.headers['x-api-key'] === 'sk-real-key-never-shown')).toBe(true);
      else expect(heard.every((c) => c.path === '/v1/chat/completions')).toBe(true);
    });
  },
);
