import { spawn } from 'node:child_process';
import { plainJson } from '../py/plain.js';
import { AgentProtocolError, type AgentSession } from './agent-protocol.js';
import { readAgentLines, replyQueue } from './reply-queue.js';

export interface SpawnAgentOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** How long one reply may take; default 120 s. */
  replyTimeoutMs?: number;
}

/**
 * Starts an agent process that speaks the JSON-lines protocol on stdin/stdout. stderr is kept (last 8 KiB) for
 * diagnostics. `close()` sends `end`, closes stdin and kills the process if it has not exited after a grace period.
 */
export function spawnAgent(command: string[], options: SpawnAgentOptions = {}): AgentSession & { stderr(): string } {
  const [file, ...args] = command;
  if (!file) throw new Error('spawnAgent: empty command');
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const timeoutMs = options.replyTimeoutMs ?? 120_000;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-8192);
  });
  let exited = false;
  let exitError: Error | undefined;
  const { push, next } = replyQueue(timeoutMs, () => exitError);
  const exit = new Promise<void>((resolve) => {
    child.on('close', (code, signal) => {
      exited = true;
      exitError = new AgentProtocolError(`agent exited (code ${code}, signal ${signal})`);
      push(
        new AgentProtocolError(
          `agent exited (code ${code}, signal ${signal})${stderr ? `: ${stderr.slice(-500)}` : ''}`,
        ),
      );
      resolve();
    });
    child.on('error', (err) => {
      exited = true;
      push(new AgentProtocolError(`agent could not start: ${err.message}`));
      resolve();
    });
  });
  readAgentLines(child.stdout, push);
  child.stdin.on('error', () => {});

  return {
    send(message) {
      if (!exited && child.stdin.writable) child.stdin.write(`${plainJson(message)}\n`);
    },
    next,
    async close() {
      if (!exited) {
        this.send({ type: 'end', reason: 'episode over' });
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
        await exit;
        clearTimeout(timer);
      }
    },
    stderr: () => stderr,
  };
}
