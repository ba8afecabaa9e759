/** τ²-bench in heldout: its worlds, environment, evaluator, orchestrator, user simulation and agent protocol. */
export * from './agent/index.js';
export * from './data_model/index.js';
export * from './domains/index.js';
export * from './environment/index.js';
export * from './evaluator/index.js';
export * from './orchestrator/index.js';
export * from './py/index.js';
export * from './user/index.js';
