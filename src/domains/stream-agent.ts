import { createInterface } from 'node:readline';
import type { Duplex } from 'node:stream';
import { type AgentMessage, AgentProtocolError, type AgentSession, parseAgentMessage } from './agent-protocol.js';

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
  const queue: (AgentMessage | Error)[] = [];
  const waiters: ((m: AgentMessage | Error) => void)[] = [];
  const push = (m: AgentMessage | Error) => {
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  };
  let closedError: Error | undefined;
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
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    if (!line.trim()) return;
    try {
      push(parseAgentMessage(JSON.parse(line)));
    } catch (err) {
      push(
        err instanceof AgentProtocolError
          ? err
          : new AgentProtocolError(`agent wrote a line that is not JSON: ${line.slice(0, 200)}`),
      );
    }
  });

  return {
    send(message) {
      if (!closedError && stream.writable) stream.write(`${JSON.stringify(message)}\n`);
    },
    next() {
      const queued = queue.shift();
      if (queued === undefined && closedError) return Promise.reject(closedError);
      const got =
        queued !== undefined
          ? Promise.resolve(queued)
          : new Promise<AgentMessage | Error>((resolve) => {
              const timer = setTimeout(() => {
                const k = waiters.indexOf(w);
                if (k >= 0) waiters.splice(k, 1);
                resolve(new AgentProtocolError(`agent gave no reply within ${timeoutMs} ms`));
              }, timeoutMs);
              const w = (m: AgentMessage | Error) => {
                clearTimeout(timer);
                resolve(m);
              };
              waiters.push(w);
            });
      return got.then((m) => {
        if (m instanceof Error) throw m;
        return m;
      });
    },
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
