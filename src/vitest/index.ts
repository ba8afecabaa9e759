export { propertyTests } from '../propgen/index.js';
export { type GateThresholds, gateViolations, summarizeMetas } from '../report/index.js';
export type { CaseMeta } from '../run/index.js';
export { type CaseFilter, selectCases } from './case-filter.js';
export { QuietReporter, type RunResult, runHeldout } from './node-api.js';
export type { HeldoutOptions } from './options.js';
export { heldout, resolveCommissionDirs } from './plugin.js';
export { HeldoutReporter, type HeldoutReporterOptions } from './reporter.js';
