// The variables a delivery's client reads, as registerCase (TCP, a process sandbox) and attachmentFor (the relay
// inside a container) give them: OpenAI's, the Agents SDK's and Anthropic's, all the gateway with the placeholder key.
import { dirname } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { attachmentFor, type Gateway, startGateway } from '../../src/gateway/index.js';

let gw: Gateway;
afterEach(async () => {
  await gw?.close();
});

test('a case gets the OpenAI, Agents SDK and Anthropic variables, never the real key', async () => {
  gw = await startGateway({
    env: {},
    tcp: true,
    roles: { runtime: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-real-secret', model: 'fixed-model' } },
  });
  const reg = gw.registerCase({ caseId: 'c', trial: 1, budgets: {} });
  expect(reg.env).toEqual({
    OPENAI_API_KEY: reg.token,
    ANTHROPIC_API_KEY: reg.token,
    OPENAI_BASE_URL: `${gw.tcpUrl}/v1`,
    ANTHROPIC_BASE_URL: gw.tcpUrl,
    OPENAI_MODEL: 'fixed-model',
    OPENAI_DEFAULT_MODEL: 'fixed-model',
    ANTHROPIC_MODEL: 'fixed-model',
    OPENAI_AGENTS_DISABLE_TRACING: '1',
  });
  const att = attachmentFor(gw, reg, { port: 4141 });
  expect(att.env).toMatchObject({
    OPENAI_BASE_URL: 'http://127.0.0.1:4141/v1',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:4141',
    ANTHROPIC_API_KEY: reg.token,
    OPENAI_DEFAULT_MODEL: 'fixed-model',
  });
  expect(JSON.stringify(att.env)).not.toContain('sk-real-secret');
  expect(dirname(att.relayScript)).toBe(dirname(gw.socketPath));
});
