/** Property-based case generation (DESIGN §12): declarations, schema-derived arbitraries, the runner, Vitest glue. */
export { renderedHash, stableJson, writeRendered } from './case-files.js';
export { defineProperties, seededRng } from './define.js';
export { type Broken, BUILTINS, PropertyHarness } from './harness.js';
export { loadProperties, PropertiesError } from './load-properties.js';
export { outputsOf } from './outputs.js';
export { freshSeed, generatedArbitrary, runProperties, splitDirFor } from './run-properties.js';
export type {
  MetamorphicDecl,
  Outputs,
  PropertiesDecl,
  PropertyContext,
  PropertyDecl,
  PropertyFailure,
  PropertyReport,
  PropertyRunOptions,
  RenderedCase,
  Rng,
  Split,
  Verdict,
} from './types.js';
export { type PropertyTestOptions, propertyTests } from './vitest-suite.js';
export { type ArbitraryOptions, arbitraryFromZod, UnsupportedSchemaError } from './zod-arbitrary.js';
