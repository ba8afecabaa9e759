/** TASTE stage 3 (DESIGN §11): instantiate medoid sequences, validate, evolve with decoys and rewrites, export. */
export { addDecoys, type Decoy, type DecoyResult, decoysPreserveGold } from './decoys.js';
export {
  type CoverageComparison,
  compareCoverage,
  executableValidator,
  type GeneratedEntry,
  type GenerateOptions,
  type GenerateResult,
  generateTasks,
  synthesizeTask,
} from './generate.js';
export {
  buildHint,
  generatorModel,
  type HintCall,
  hintedVerifier,
  hintText,
  type ModelConfig,
  modelAgent,
} from './hinted-verifier.js';
export { instantiateSequence } from './instantiate.js';
export { llmAdversarialRewrite, llmScenario, parseJsonObject, STRATEGIES } from './llm.js';
export { schemaProblems } from './schema-check.js';
export { scenarioFromNotes } from './templates.js';
export type { InstantiateOptions, InstantiateOutcome } from './types.js';
export {
  closedEntityWrites,
  doNothingAgent,
  goldAgent,
  measuresNothing,
  missingArguments,
  scriptedVerifier,
  type TaskValidation,
  type ValidationStep,
  type Verifier,
  validateTask,
} from './validate.js';
export { EntityWalk, startWalk } from './walk.js';
