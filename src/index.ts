/**
 * heldout's library API (DESIGN §15). Stable names; the Vitest plugin is also at `heldout/vitest`.
 * Everything here is documented in the README ("Library API"); the report schema is `heldout/summary@2`.
 */
export {
  type CaseRef,
  type Commission,
  CommissionError,
  defineCommission,
  loadCommission,
  type Problem,
} from './commission/index.js';
export { treeDigest } from './freeze/index.js';
export { type CaseGrade, gradeCase, scoreCase } from './grading/index.js';
export { bootstrapCI, gapClosure, pairedDifference, passAtK, passHatK, signTest } from './metrics/index.js';
export {
  arbitraryFromZod,
  defineProperties,
  type Outputs,
  type PropertiesDecl,
  type PropertyContext,
  runProperties,
} from './propgen/index.js';
export {
  type Comparison,
  compareSummaries,
  migrateSummary,
  readSummary,
  type Summary,
  summaryJsonSchema,
  summarySchema,
} from './report/index.js';
export { coverageMetrics, weightedEditDistance } from './taste/index.js';
export { heldout, runHeldout } from './vitest/index.js';
