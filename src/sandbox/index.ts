/** The sandbox part's public face (DESIGN §7). */

export { createDockerBackend, type DockerBackendOptions, dockerBackend, gateSettings } from './docker.js';
export { engineAnswers, getDocker } from './engine.js';
export { type ExecutionGate, gateFromExecution } from './gate.js';
export {
  type BuiltImage,
  buildRuntimeImage,
  ensureRuntimeImage,
  imageId,
  RUNTIME_IMAGE,
  type RuntimeRecipe,
  runtimeRecipe,
  SANDBOX_UID,
} from './image.js';
export {
  createProcessBackend,
  type ProcessBackendOptions,
  type ProcessCapabilities,
  processBackend,
  processCapabilities,
} from './process.js';
export {
  asEngineError,
  EngineGoneError,
  engineWhere,
  extractTar,
  isEngineGone,
  isLocalEngine,
} from './remote.js';
export {
  cleanupNow,
  createEngineGate,
  createLimiter,
  type EngineGate,
  type EngineGateOptions,
  engineGateDir,
  type GcResult,
  gc,
  installSignalCleanup,
  LABEL,
  liveContainers,
  RUN_LABEL,
} from './run-registry.js';
export { resolveSandbox } from './select.js';
export { CONTAINER_PATHS } from './staging.js';
export { createSwarmBackend, type SwarmBackendOptions, swarmBackend } from './swarm.js';
export type {
  BackendName,
  Execution,
  GatewayAttachment,
  IsolationName,
  SandboxBackend,
  SandboxKind,
  SandboxLimits,
  SandboxSpec,
} from './types.js';
