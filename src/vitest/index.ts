export { propertyTests } from '../propgen/index.js';
export type { CaseMeta, GateThresholds, HeldoutOptions } from '../run/index.js';
export { QuietReporter, type RunResult, runHeldout } from './node-api.js';
export { heldout, resolveCommissionDirs } from './plugin.js';
export { gateViolations, HeldoutReporter, type HeldoutReporterOptions, summarizeMetas } from './reporter.js';
