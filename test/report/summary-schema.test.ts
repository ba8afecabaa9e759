import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { summaryJsonSchema } from '../../src/report/index.js';
import { sampleSummary } from './sample-summary.js';
import { expectValidSummary, SHIPPED_SCHEMA_PATH } from './summary-json-schema.js';

// The package ships schema/summary-2.schema.json for consumers of summary.json; it must be what the zod schema
// generates. After a schema change: UPDATE_SUMMARY_SCHEMA=1 npx vitest run test/report/summary-schema.test.ts.
describe('the shipped JSON Schema of summary@2', () => {
  const generated = `${JSON.stringify(summaryJsonSchema(), null, 2)}\n`;
  if (process.env.UPDATE_SUMMARY_SCHEMA === '1') writeFileSync(SHIPPED_SCHEMA_PATH, generated);

  test('equals the one generated from src/report/schema.ts', () => {
    expect(readFileSync(SHIPPED_SCHEMA_PATH, 'utf8')).toBe(generated);
  });

  test('accepts what heldout writes and refuses a document that breaks it', () => {
    const doc = JSON.parse(JSON.stringify(sampleSummary()));
    expectValidSummary(doc);
    const bad = structuredClone(doc);
    bad.commissions[0].verdict = 'great';
    expect(() => expectValidSummary(bad)).toThrow();
  });

  test('is listed in the package: files and exports', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.files).toContain('schema');
    expect(pkg.exports['./summary.schema.json']).toBe('./schema/summary-2.schema.json');
  });
});
