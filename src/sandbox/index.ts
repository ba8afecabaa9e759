/** The sandbox part's public face (DESIGN §7). */

export { createDockerBackend, type DockerBackendOptions, dockerBackend } from './docker.js';
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
  cleanupNow,
  createLimiter,
  type GcResult,
  gc,
  installSignalCleanup,
  LABEL,
  liveContainers,
  RUN_LABEL,
} from './run-registry.js';
export { resolveSandbox } from './select.js';
export { CONTAINER_PATHS } from './staging.js';
export type {
  Execution,
  GatewayAttachment,
  SandboxBackend,
  SandboxKind,
  SandboxLimits,
  SandboxSpec,
} from './types.js';
