/**
 * Importers (DESIGN §3): foreign task packages — AgentSWE task directories and Harbor tasks — converted into heldout
 * commission packages, deterministically, with everything unmappable listed in `IMPORT-NOTES.md`. A new kind is one
 * `defineImporter({ kind, build })`; τ²-bench domains are imported by the domains part through the same helper.
 */
export { type AgentSweImportExtra, type AgentSweImportOptions, importAgentSwe } from './agentswe.js';
export type { AccountRow, Became } from './agentswe-account.js';
export { proseBudgets, readBudgetSentence } from './agentswe-budgets.js';
export { chooseDimensions, dimensionCandidates } from './agentswe-dimensions.js';
export { entryFor, normalizeEntry } from './agentswe-entry.js';
export { type ExternalDecl, externalServicesFrom } from './agentswe-external.js';
export {
  classifyGate,
  type GateBullet,
  type PlannedDimension,
  planRubric,
  type RubricPlan,
} from './agentswe-rubric.js';
export { scanRules, tieredCap, zeroConditions } from './agentswe-rules.js';
export {
  type BuiltPackage,
  defineImporter,
  type ImportContext,
  type Importer,
  type ImporterDefinition,
} from './define-importer.js';
export { gitTreeHash, treeId } from './git-tree.js';
export { HARBOR_DEFAULT_ENTRY, type HarborImportOptions, importHarbor } from './harbor.js';
export { cleanTitle, rubricDimensions, sections, slug, weightedHeading } from './markdown.js';
export { notesMarkdown, PackageDraft, toYaml, writePackage } from './package-writer.js';
export { parseToml, TomlError, type TomlTable, type TomlValue } from './toml.js';
export { ImportError, type ImportOptions, type ImportResult } from './types.js';
