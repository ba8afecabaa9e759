/** The deterministic check kinds: one file per kind, dispatched through `CHECK_KINDS` (registry.ts). */
export { commandCheck, readReward } from './command.js';
export {
  type CheckContext,
  type CheckFunctionContext,
  type CheckItemOf,
  type CheckKind,
  type CheckResult,
  CheckSetupError,
  type CommandResult,
  type CommandRunner,
  defineCheck,
  lastLines,
  OutputError,
  resolvePlaceholders,
  type SchemaCheckKind,
} from './context.js';
export { readOutput, readOutputJson } from './read.js';
export {
  CHECK_KINDS,
  type CheckKindName,
  type CheckKindTable,
  type CheckRegistry,
  checkKindFor,
  checkKindNames,
  runCheck,
} from './registry.js';
export { rewardScore } from './reward.js';
