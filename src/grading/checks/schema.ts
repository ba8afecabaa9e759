import { formatSchemaErrors, validateJsonSchema } from '../json-schema.js';
import { CheckSetupError, defineCheck } from './context.js';
import { readOutputJson } from './read.js';

/** `schema`: full points when the JSON file satisfies the JSON Schema; a schema that does not compile is setup's. */
export const schemaCheck = defineCheck('schema', (item, ctx) => {
  const errors = validateJsonSchema(item.schema, readOutputJson(ctx.outputDir, item.file));
  if (errors.some((e) => e.path === '(schema)')) throw new CheckSetupError(formatSchemaErrors(errors));
  return {
    score: errors.length === 0 ? 1 : 0,
    evidence: errors.length === 0 ? `${item.file} satisfies the schema` : `${item.file}: ${formatSchemaErrors(errors)}`,
  };
});
