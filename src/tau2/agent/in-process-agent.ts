import {
  type AgentFunction,
  type AgentMessage,
  AgentProtocolError,
  type AgentSession,
  parseAgentMessage,
} from './agent-protocol.js';

/** Wraps an in-process agent function as a session (replies queue in order). */
export function inProcessAgent(fn: AgentFunction): AgentSession {
  const pending: Promise<AgentMessage | undefined>[] = [];
  return {
    send(message) {
      pending.push(Promise.resolve().then(() => fn(message)));
    },
    async next() {
      while (pending.length > 0) {
        const reply = await pending.shift();
        if (reply !== undefined) return parseAgentMessage(reply);
      }
      throw new AgentProtocolError('the agent gave no reply');
    },
    async close() {
      await Promise.allSettled(pending);
    },
  };
}
