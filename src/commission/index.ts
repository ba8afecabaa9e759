export { addCanaries, canaryLine, canaryOf } from './canary.js';
export { caseServices, serviceFileSource } from './case-environment.js';
export { zodProblems } from './documents.js';
export * from './environment-schema.js';
export * from './external-services.js';
export * from './harbor-schema.js';
export { importTypeScript } from './import-ts.js';
export {
  type CaseRef,
  type Commission,
  CommissionError,
  defineCommission,
  formatProblem,
  type LoadOptions,
  loadCommission,
  type Problem,
  problemFile,
  type Requirement,
  type Split,
} from './load.js';
export { COMMAND_PLACEHOLDERS, ENTRY_PLACEHOLDERS, type PlaceholderName, placeholdersIn } from './placeholders.js';
export * from './schema.js';
export { fieldNames, type SchemaField, schemaFields, typeName, variantsOf } from './schema-fields.js';
