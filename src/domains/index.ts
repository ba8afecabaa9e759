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
export type { AirlineDb } from './airline/db.js';
export { calculate } from './calculate.js';
export {
  createEnvironment,
  type EnvAssertion,
  initialDb,
  initialModelOf,
  runEnvAssertion,
  toJsonStr,
} from './environment.js';
export { type EpisodeOptions, type EpisodeResult, runEpisode, type Termination } from './episode.js';
export {
  assistantGold,
  auditGold,
  type GoldReplay,
  goldActions,
  goldEnvironment,
  replayGold,
  requestorOf,
} from './gold-replay.js';
export { goldFromTasks, parseGold, readGoldFile } from './gold-sequences.js';
export { type ImportTau2Options, type ImportTau2Result, importTau2 } from './import-tau2.js';
export { inProcessAgent } from './in-process-agent.js';
export {
  type CallNote,
  type DecoyMaker,
  type DomainKit,
  type EntityKind,
  type InstantiatedCall,
  type Random,
  type ScenarioNotes,
  type Synthesis,
  spoken,
  type TaskCriteria,
  Unfit,
  type Walk,
  type WalkContext,
  type WalkRules,
} from './kit.js';
export { loadDomain } from './load-domain.js';
export { pyJsonDumps, pyJsonParse } from './py/json.js';
export { plainJson } from './py/plain.js';
export { PyFloat } from './py/values.js';
export { type DomainName, domainKit, domainKits, executableDomains, findKit } from './registry.js';
export type { RetailDb } from './retail/db.js';
export {
  actionMatches,
  communicated,
  computeReward,
  DEFAULT_REWARD_BASIS,
  type RewardInput,
  type TrajectoryCall,
} from './reward.js';
export type { DomainRules, EntityEffect, ToolRule } from './rule-types.js';
export { type SpawnAgentOptions, spawnAgent } from './spawn-agent.js';
export { type StreamAgentOptions, streamAgent } from './stream-agent.js';
export { parseTau2Json, readTasksFile, tau2JsonText } from './tasks-json.js';
export type { TelecomDb, TelecomUserDb } from './telecom/db.js';
export { isWriteTool, openAiToolSchemas, readToolsFile, toolGroup } from './tool-spec.js';
export { DEFAULT_SEMANTICS, SEMANTICS, type Semantics } from './toolkit.js';
export * from './types.js';
export {
  instructionText,
  type LlmUserOptions,
  llmUser,
  OUT_OF_SCOPE,
  type ScriptedUserOptions,
  STOP,
  scriptedUser,
  TRANSFER,
  USER_GUIDELINES,
  type UserSimulator,
  userSystemPrompt,
} from './user-simulators.js';
