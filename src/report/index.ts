export { COLUMNS, type Column, type ColumnId, columnsOf, VIEWS, type ViewColumn, type ViewName } from './columns.js';
export {
  type CaseDiff,
  type CasePass,
  type CompareSelection,
  type Comparison,
  compareEntries,
  compareSummaries,
  type EntryComparison,
  type EntryRef,
  partnerOf,
} from './compare.js';
export { caseFailureMessage } from './format.js';
export { evaluateGate, type GateContext, gateMessages, gateViolations } from './gate.js';
export { escapeHtml } from './html-sections.js';
export { migrateSummary, readSummary, SummaryReadError, summaryPathOf } from './migrate.js';
export { type CoverageInput, partialReport } from './partial.js';
export { pairFigures, pairVerdict, renderCompareText } from './render-compare.js';
export { renderHtml } from './render-html.js';
export { type JunitOptions, renderJunit } from './render-junit.js';
export { renderMarkdown } from './render-markdown.js';
export { renderTable } from './render-table.js';
export { type RunListing, renderComparePage, renderRunsPage } from './render-view.js';
export {
  type CaseDimensionSummary,
  type CaseSummary,
  type CommissionSummary,
  caseSummarySchema,
  commissionSummarySchema,
  type DeliveryInfo,
  type FailureModes,
  type FamilyScore,
  FLAGS,
  type Flag,
  type GateCondition,
  type GateReport,
  type NotRunCase,
  type OptimizationSummary,
  type PartialReport,
  type ResultSummary,
  type RunInfo,
  type Summary,
  summaryJsonSchema,
  summarySchema,
  type UnloadedSuite,
} from './schema.js';
export { type SummaryV1, summarySchemaV1 } from './schema-v1.js';
export { type BuildOptions, buildSummary, computeGaps, type SummarizeInput, summarizeCommission } from './summarize.js';
export { summarizeMetas } from './summarize-metas.js';
export type { GateThresholds } from './types.js';
export { LOOPBACK_HOSTS, startViewServer, type ViewServer, type ViewServerOptions } from './view-server.js';
export { serializeSummary, summaryChunks, writeReport } from './write-report.js';
