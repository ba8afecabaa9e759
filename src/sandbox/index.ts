/**
 * The sandbox part's public face (DESIGN §7). Backends register by name in `registry.ts`; each lives in its own
 * folder (`docker/`, `podman/`, `process/`, `swarm/`), and other parts reach them only through this file.
 */

export { createDockerBackend, type DockerBackendOptions, dockerBackend } from './docker/backend.js';
export { CONTAINER_PATHS, LABEL, RUN_LABEL } from './docker/container-setup.js';
export { engineAnswers, engineWhere, getDocker, isLocalEngine } from './docker/engine.js';
export {
  createEngineGate,
  type EngineGate,
  type EngineGateOptions,
  engineGateDir,
  gateSettings,
} from './docker/engine-gate.js';
export { asEngineError, EngineGoneError, isEngineGone } from './docker/engine-gone.js';
export { type EngineFlavour, engineFlavour } from './docker/flavour.js';
export { type GcResult, gc } from './docker/gc.js';
export { liveContainers } from './docker/live-containers.js';
export {
  type BuiltImage,
  buildRuntimeImage,
  ensureRuntimeImage,
  imageId,
  RUNTIME_IMAGE,
} from './docker/runtime-image.js';
export { type RuntimeRecipe, runtimeRecipe } from './docker/runtime-recipe.js';
export { type DockerfileBases, dockerfileBases } from './dockerfile.js';
export { isIgnored, parseDockerignore } from './dockerignore.js';
export { type ExecutionGate, gateFromExecution } from './gate.js';
export { RELAY_FAILED_EXIT, relayFailureMarker, relayNonce } from './gateway-wrapper.js';
export {
  type ImageMap,
  type ImageSubstitution,
  isImageRef,
  mappedImage,
  mergeImageMaps,
  normalizeImageRef,
  parseImageMap,
} from './image-map.js';
export { createLimiter } from './limiter.js';
export {
  DEFAULT_OUTPUT_DEPTH,
  DEFAULT_OUTPUT_ENTRIES,
  describeExcess,
  type OutputLimits,
  outputLimits,
  outputsUsage,
} from './output-limits.js';
export { childPids, OWNER_LABEL, ownerState, ownerToken, processAlive } from './owner.js';
export { createPodmanBackend, getPodman, podmanBackend, podmanSocket } from './podman/backend.js';
export { createProcessBackend, type ProcessBackendOptions, processBackend } from './process/backend.js';
export { type ProcessCapabilities, processCapabilities } from './process/capabilities.js';
export { BACKENDS, backendFor, expectedSandbox, isSandboxKind, registeredBackends, SANDBOX_KINDS } from './registry.js';
export { SANDBOX_UID } from './sandbox-user.js';
export { resolveSandbox } from './select.js';
export { ServiceError } from './service-error.js';
export { createSwarmBackend, type SwarmBackendOptions, swarmBackend } from './swarm/backend.js';
export { extractTar } from './tar.js';
export { cleanupNow, dieWithParent, installSignalCleanup, registerCleanup, stopReason } from './teardown.js';
export type { TrialContainer, TrialExecOptions, TrialExecResult, TrialImage, TrialSpec } from './trial.js';
export type {
  BackendName,
  BuildRequest,
  BuiltImageRef,
  CleanupOptions,
  Execution,
  GatewayAttachment,
  IsolationName,
  Removed,
  RunOptions,
  SandboxBackend,
  SandboxKind,
  SandboxLimits,
  SandboxSpec,
  ServiceReady,
  ServiceRecord,
  ServiceRelay,
  ServiceSpec,
  Turn,
} from './types.js';
