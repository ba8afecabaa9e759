/**
 * Grading (DESIGN §4): gates → deterministic checks and the LLM judge per dimension → ceilings → a case's Result,
 * and what is particular to each family (how its delivery is prepared, run and graded), registered by name.
 */
export { artifactProblem, parseCsv } from './artifact-format.js';
export {
  type CheckContext,
  type CheckFunctionContext,
  type CheckResult,
  CheckSetupError,
  type CommandResult,
  type CommandRunner,
  readReward,
  resolvePlaceholders,
  runCheck,
} from './checks.js';
export { claimsContradicted, type Observed } from './claims.js';
export {
  applyPatchOnce,
  type CaseRun,
  type CaseRunContext,
  type DeliveryDir,
  type DeliveryStart,
  FAMILY_STRATEGIES,
  type FamilyGrading,
  type FamilyStrategy,
  familyStrategy,
} from './families/index.js';
export { type GateExecution, type GateOutcome, type RunGatesInput, runGates } from './gates.js';
export { globToRegExp, matchesAny } from './glob.js';
export { gradeCase } from './grade-case.js';
export { type GradeCaseInput, type GradingContext, type Phase, stoppedGrade } from './grading-context.js';
export { getPath, jsonEqual } from './json-path.js';
export { formatSchemaErrors, type SchemaError, validateJsonSchema } from './json-schema.js';
export {
  type JudgeConfig,
  type JudgeOutcome,
  type JudgeVerdict,
  judgeAnswerSchema,
  judgeCase,
  judgeConfigFromEnv,
  judgeResponseFormat,
  NO_JUDGE_REASON,
  repairEnvelope,
  validateAnswer,
} from './judge.js';
export { artifactsDigest, DEFAULT_JUDGE_CACHE_DIR, JudgeCache, type JudgeCacheKey } from './judge-cache.js';
export {
  buildJudgeMessages,
  DEFAULT_PROMPT_LIMITS,
  type JudgedDimension,
  type JudgedOutcome,
  type JudgeRequest,
  type LedgerSummary,
  type PromptLimits,
  renderArtifacts,
} from './judge-prompt.js';
export {
  copyOutputs,
  insideDir,
  isOutputFile,
  listFiles,
  type OutputEntry,
  type OutputRead,
  readOutputFile,
  walkOutputs,
} from './outputs.js';
export {
  type FaultLine,
  faultEvidence,
  PROVIDER_EXPLAINED_GATES,
  PROVIDER_FAULT_CLASSES,
  providerFaultReason,
  providerFaults,
} from './provider-faults.js';
export { ceilingRecords, type ScoreCaseInput, type ScoreCaseOutput, scoreCase } from './score-case.js';
export { failedTestsSentence, parseTestOutput, type TestRunReport } from './test-report.js';
export * from './types.js';
