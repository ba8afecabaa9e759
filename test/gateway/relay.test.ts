import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import {
  attachmentFor,
  type Gateway,
  RELAY_SCRIPT,
  RELAY_SOURCE,
  startGateway,
  writeRelayScript,
} from '../../src/gateway/index.js';
import { UNTIL } from '../helpers/deadlines.js';
import { chat, request } from './helpers.js';

let stub: StubServer | undefined;
let gw: Gateway | undefined;
const children: ChildProcess[] = [];
let dir: string | undefined;

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await gw?.close();
  await stub?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  gw = stub = dir = undefined;
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function waitListening(port: number) {
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
  // A node process starting on a busy machine may take seconds to listen; only a relay that never does fails.
  await vi.waitUntil(listening, { ...UNTIL, interval: 20 });
}

describe('relay', () => {
  test('relay-source.ts holds exactly relay.mjs (UPDATE_RELAY_SOURCE=1 regenerates it)', () => {
    const script = readFileSync(RELAY_SCRIPT, 'utf8');
    if (process.env.UPDATE_RELAY_SOURCE === '1' && RELAY_SOURCE !== script) {
      const file = fileURLToPath(new URL('../../src/gateway/relay-source.ts', import.meta.url));
      // a JSON string is a JS string literal; `${` is escaped so linters do not take it for a template placeholder
      const literal = JSON.stringify(script).replaceAll('${', '$\\u007b');
      const text = readFileSync(file, 'utf8');
      const next = text.replace(
        /export const RELAY_SOURCE =\n {2}".*";\n/,
        () => `export const RELAY_SOURCE =\n  ${literal};\n`,
      );
      expect(next).not.toBe(text);
      writeFileSync(file, next);
      return;
    }
    expect(RELAY_SOURCE).toBe(script);
  });

  test('writeRelayScript writes a readable copy; attachmentFor names it and the relay address', async () => {
    dir = mkdtempSync(join(tmpdir(), 'relay-'));
    const p = writeRelayScript(dir);
    expect(readFileSync(p, 'utf8')).toBe(RELAY_SOURCE);
    expect(statSync(p).mode & 0o444).toBe(0o444);
    stub = await startStubServer({});
    gw = await startGateway({
      env: {},
      ledgerDir: join(dir, 'l'),
      roles: { runtime: { baseURL: stub.baseURL, model: 'm' } },
    });
    const reg = gw.registerCase({ caseId: 'c', trial: 1, budgets: {} });
    const a = attachmentFor(gw, reg, { port: 5555 });
    expect(a).toMatchObject({
      socketPath: gw.socketPath,
      port: 5555,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:5555/v1', OPENAI_API_KEY: reg.token, OPENAI_MODEL: 'm' },
    });
    expect(readFileSync(a.relayScript, 'utf8')).toBe(RELAY_SOURCE);
    expect(statSync(gw.socketPath).mode & 0o777).toBe(0o666);
  });

  test('node relay.mjs <port> <socket> pipes TCP to the gateway socket (streams included)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'relay-'));
    stub = await startStubServer({ script: [{ content: 'via relay' }, { content: 'a b c', stream: { delayMs: 30 } }] });
    gw = await startGateway({
      env: {},
      ledgerDir: join(dir, 'l'),
      roles: { runtime: { baseURL: stub.baseURL, model: 'm' } },
    });
    const reg = gw.registerCase({ caseId: 'c', trial: 1, budgets: {} });
    const port = await freePort();
    const child = spawn(process.execPath, [writeRelayScript(dir), String(port), gw.socketPath], { stdio: 'inherit' });
    children.push(child);
    await waitListening(port);
    const auth = { authorization: `Bearer ${reg.token}` };
    const r = await request({ url: `http://127.0.0.1:${port}` }, 'POST', '/v1/chat/completions', chat(), auth);
    expect(r.json.choices[0].message.content).toBe('via relay');
    const s = await request(
      { url: `http://127.0.0.1:${port}` },
      'POST',
      '/v1/chat/completions',
      chat('x', { stream: true }),
      auth,
    );
    expect(s.body).toContain('data: [DONE]');
    expect(s.pieces.length).toBeGreaterThan(3);
  });

  test('node relay.mjs <port> <socket> -- <cmd> runs cmd once listening and exits with its code', async () => {
    dir = mkdtempSync(join(tmpdir(), 'relay-'));
    stub = await startStubServer({ script: [{ content: 'from child' }] });
    gw = await startGateway({
      env: {},
      ledgerDir: join(dir, 'l'),
      roles: { runtime: { baseURL: stub.baseURL, model: 'm' } },
    });
    const reg = gw.registerCase({ caseId: 'c', trial: 1, budgets: {} });
    const port = await freePort();
    const code = `const r = await fetch('http://127.0.0.1:${port}/v1/chat/completions', {method:'POST', headers:{authorization:'Bearer ${reg.token}'}, body: JSON.stringify({messages:[]})}); const j = await r.json(); console.log(j.choices[0].message.content); process.exit(7);`;
    const child = spawn(
      process.execPath,
      [writeRelayScript(dir), String(port), gw.socketPath, '--', process.execPath, '--input-type=module', '-e', code],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    const exit = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(out.trim()).toBe('from child');
    expect(exit).toBe(7);
  });
});
