import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { type AgentMessage, AgentProtocolError, parseAgentLine } from './agent-protocol.js';

type Reply = AgentMessage | Error;

/**
 * The agent's replies in the order it wrote them, handed to `next()` callers; protocol errors and hang-ups travel
 * the same queue, so a caller sees them exactly where they happened. `next()` rejects when no reply comes in time,
 * or at once when the queue is drained and `ended()` names why no more can come.
 */
export function replyQueue(timeoutMs: number, ended: () => Error | undefined) {
  const queue: Reply[] = [];
  const waiters: ((m: Reply) => void)[] = [];
  const push = (m: Reply) => {
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  };
  const next = (): Promise<AgentMessage> => {
    const queued = queue.shift();
    const gone = ended();
    if (queued === undefined && gone) return Promise.reject(gone);
    const got =
      queued !== undefined
        ? Promise.resolve(queued)
        : new Promise<Reply>((resolve) => {
            const timer = setTimeout(() => {
              const k = waiters.indexOf(w);
              if (k >= 0) waiters.splice(k, 1);
              resolve(new AgentProtocolError(`agent gave no reply within ${timeoutMs} ms`));
            }, timeoutMs);
            const w = (m: Reply) => {
              clearTimeout(timer);
              resolve(m);
            };
            waiters.push(w);
          });
    return got.then((m) => {
      if (m instanceof Error) throw m;
      return m;
    });
  };
  return { push, next };
}

/** Parses each JSON line the agent writes into the queue; a line that is not a protocol message is an error there. */
export function readAgentLines(input: Readable, push: (m: Reply) => void): void {
  createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    if (!line.trim()) return;
    try {
      push(parseAgentLine(line));
    } catch (err) {
      push(
        err instanceof AgentProtocolError
          ? err
          : new AgentProtocolError(`agent wrote a line that is not JSON: ${line.slice(0, 200)}`),
      );
    }
  });
}
