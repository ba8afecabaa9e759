import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { writeBridge } from '../../src/grading/families/tool-agent/bridge.js';
import { loadDomain, runEpisode, scriptedUser, streamAgent, type Tau2Task } from '../../src/tau2/index.js';

const repo = path.resolve(import.meta.dirname, '../..');
const airline = loadDomain(path.resolve(repo, '../shared/data/tau2/airline'));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-bridge-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Starts the bridge around `entry` against a fresh socket; resolves the accepted connection and the bridge's exit. */
async function bridged(name: string, entry: string) {
  const dir = path.join(tmp, name);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir);
  const bridge = writeBridge(dir);
  const sock = path.join(dir, 'agent.sock');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  const connection = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const child = spawn(process.execPath, [bridge, sock, '--', entry], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const socket = await connection;
  server.close();
  return { socket, exit, stderr: () => stderr };
}

const oracleHints = (task: Tau2Task) => ({
  oracle_actions: (task.evaluation_criteria?.actions ?? []).map((a) => ({ name: a.name, arguments: a.arguments })),
  oracle_communicate: task.evaluation_criteria?.communicate_info ?? [],
});

describe('the tool-agent stdio bridge with a stream session', () => {
  test('carries a whole episode: the oracle over the socket reaches reward 1 and exits 0 after end', async () => {
    const d = await airline;
    const task = d.tasks.find((t) => t.id === '7')!;
    const b = await bridged('oracle', 'node fixtures/agents/oracle.mjs');
    const r = await runEpisode({
      task,
      domain: d,
      agent: streamAgent(b.socket),
      user: scriptedUser(),
      startExtras: oracleHints(task),
    });
    expect(r.info.termination).toBe('user_stop');
    expect(r.reward).toBe(1);
    expect(r.toolCalls.map((c) => c.name)).toEqual(task.evaluation_criteria?.actions?.map((a) => a.name));
    expect(await b.exit).toBe(0);
  });

  test('an agent that ignores end is killed after the grace and the bridge still exits 0', async () => {
    const d = await airline;
    const task = d.tasks.find((t) => t.id === '1')!;
    // Answers once, then keeps running whatever stdin does.
    const stubborn = `node -e "process.stdin.once('data',()=>console.log(JSON.stringify({type:'message',content:'hi'})));process.stdin.resume();process.stdin.on('end',()=>{});setInterval(()=>{},1000)"`;
    const b = await bridged('stubborn', stubborn);
    const r = await runEpisode({ task, domain: d, agent: streamAgent(b.socket), user: scriptedUser() });
    expect(r.info.termination).toBe('user_stop');
    expect(await b.exit).toBe(0);
    expect(b.stderr()).toContain('did not exit within 2 s of end');
  });

  test('an agent that crashes ends the episode as agent_error with reward 0, and the bridge passes its exit code', async () => {
    const d = await airline;
    const task = d.tasks.find((t) => t.id === '7')!;
    const b = await bridged('crash', 'node -e "process.exit(3)"');
    const r = await runEpisode({ task, domain: d, agent: streamAgent(b.socket), user: scriptedUser() });
    expect(r.info.termination).toBe('agent_error');
    expect(r.info.detail).toMatch(/connection closed/);
    expect(r.reward).toBe(0);
    expect(await b.exit).toBe(3);
  });

  test('a line that is not JSON is a protocol error', async () => {
    const d = await airline;
    const task = d.tasks.find((t) => t.id === '1')!;
    const b = await bridged(
      'garbage',
      `node -e "process.stdin.once('data',()=>console.log('hello there'));process.stdin.resume()"`,
    );
    const r = await runEpisode({ task, domain: d, agent: streamAgent(b.socket), user: scriptedUser() });
    expect(r.info.termination).toBe('agent_error');
    expect(r.info.detail).toMatch(/not JSON/);
    expect(await b.exit).toBe(0);
  });
});
