/** τ²-bench in heldout: its worlds, environment, evaluator, orchestrator, user simulation and agent protocol. */
export * from './agent/index.js';
export * from './data_model/index.js';
export * from './domains/index.js';
export * from './environment/index.js';
export * from './evaluator/index.js';
export { type ImportTau2Options, type ImportTau2Result, importTau2 } from './import-tau2.js';
export * from './orchestrator/index.js';
export * from './py/index.js';
export * from './user/index.js';
