/** τ²'s agent side: the protocol an agent under test speaks (PROTOCOL.md) and the three ways to run one. */
export {
  type AgentFunction,
  type AgentMessage,
  AgentProtocolError,
  type AgentSession,
  type AgentToolCall,
  type EvaluatorMessage,
  type OpenAiTool,
  parseAgentMessage,
} from './agent-protocol.js';
export { inProcessAgent } from './in-process-agent.js';
export { type SpawnAgentOptions, spawnAgent } from './spawn-agent.js';
export { type StreamAgentOptions, streamAgent } from './stream-agent.js';
