/**
 * TASTE stages 1–2 (DESIGN §11): domains, validators, the contrastive sampler, WED, coverage, k-medoids, clustering.
 * Stage 3 (instantiate, validate, evolve) has its own face, `stage3/index.ts`.
 */

// The domain loader and the gold-sequence readers live with the domains; TASTE's commands and benches use them.
export {
  type GoldSequence,
  goldFromTasks,
  loadDomain,
  parseGold,
  readGoldFile,
  readToolsFile,
  toolGroup,
} from '../tau2/index.js';
export { parseMethod, parseSeed, ValidatorConfigError, validatorFor, writeJson } from './cli-support.js';
export { type ClusterMedoid, type ClusterOptions, type ClusterResult, clusterStage, drawPool } from './cluster.js';
export { coverageMetrics } from './coverage.js';
export { type KMedoidsMethod, type KMedoidsOptions, type KMedoidsResult, kMedoids } from './kmedoids.js';
export { Rng } from './prng.js';
export {
  BOS,
  ContrastiveSampler,
  EOS,
  SAMPLER_DEFAULTS,
  type SamplerTables,
  sampleLength,
  seqKey,
  type TrainOptions,
  type TrainResult,
  temperatureAt,
  trainSampler,
} from './sampler.js';
export * from './stage3/index.js';
export type * from './types.js';
export {
  LLM_VALIDATOR_SYSTEM,
  type LlmValidatorOptions,
  llmValidator,
  parseVerdict,
} from './validators/llm-validator.js';
export { RuleValidator, ruleValidator } from './validators/rule-validator.js';
export { type ValidityReport, validityReport } from './validity.js';
export { substitutionCost, WED_COST, weightedEditDistance } from './wed.js';
export {
  condensedIndex,
  type DistanceMatrix,
  distance,
  type EncodedSequences,
  encodeSequences,
  type WedMatrixOptions,
  wedMatrix,
  wedMatrixSync,
} from './wed-matrix.js';
