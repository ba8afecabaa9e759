import type { Duplex } from 'node:stream';
import { plainJson } from '../py/plain.js';
import { AgentProtocolError, type AgentSession } from './agent-protocol.js';
import { readAgentLines, replyQueue } from './reply-queue.js';

export interface StreamAgentOptions {
  /** How long one reply may take; default 120 s. */
  replyTimeoutMs?: number;
  /** After `end`, how long the other side may take to hang up before the stream is destroyed; default 2 s. */
  closeGraceMs?: number;
}

/**
 * An agent reached over an already-connected duplex stream (e.g. a Unix-socket connection from a sandboxed agent's
 * stdio bridge) speaking the JSON-lines protocol. `next()` rejects once the stream ends or breaks; `close()` sends
 * `end`, half-closes the stream and destroys it if the far side has not hung up within the grace period.
 */
export function streamAgent(stream: Duplex, options: StreamAgentOptions = {}): AgentSession {
  const timeoutMs = options.replyTimeoutMs ?? 120_000;
  const graceMs = options.closeGraceMs ?? 2000;
  let closedError: Error | undefined;
  const { push, next } = replyQueue(timeoutMs, () => closedError);
  const closed = new Promise<void>((resolve) => {
    const hangUp = (why: string) => {
      if (closedError) return;
      closedError = new AgentProtocolError(why);
      push(closedError);
      resolve();
    };
    stream.on('close', () => hangUp('agent connection closed (the agent exited or was stopped)'));
    stream.on('error', (err) => hangUp(`agent connection failed: ${err.message}`));
  });
  stream.setEncoding?.('utf8');
  readAgentLines(stream, push);

  return {
    send(message) {
      if (!closedError && stream.writable) stream.write(`${plainJson(message)}\n`);
    },
    next,
    async close() {
      if (closedError) return;
      this.send({ type: 'end', reason: 'episode over' });
      stream.end();
      const timer = setTimeout(() => stream.destroy(), graceMs);
      await closed;
      clearTimeout(timer);
    },
  };
}
