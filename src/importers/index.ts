/**
 * Importers (DESIGN §3): foreign task packages — AgentSWE task directories and Harbor tasks — converted into heldout
 * commission packages, deterministically, with everything unmappable listed in `IMPORT-NOTES.md`. A new kind is one
 * `defineImporter({ kind, build })` and one entry in `IMPORTERS` (`registry.ts`); τ²-bench domains are read with the
 * tau2 part's own loader.
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
export {
  type CliImportOptions,
  IMPORTERS,
  type ImporterEntry,
  type ImporterKind,
  type ImportFlag,
  importerFor,
  importerKinds,
  type RegisteredImport,
} from './registry.js';
export { type ImportTau2Options, type ImportTau2Result, importTau2 } from './tau2.js';
export { parseToml, TomlError, type TomlTable, type TomlValue } from './toml.js';
export { ImportError, type ImportOptions, type ImportResult } from './types.js';
