import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

/** The JSON Schema of summary@2 as the package ships it (generated from the zod schema; see summary-schema.test). */
export const SHIPPED_SCHEMA_PATH = path.resolve(import.meta.dirname, '../../schema/summary-2.schema.json');

let validate: (((doc: unknown) => boolean) & { errors?: unknown }) | null = null;

/**
 * Asserts that a summary document validates against the shipped JSON Schema, with an independent validator (Ajv,
 * draft 2020-12, formats checked): what a consumer that never saw heldout's zod schema would check.
 */
export function expectValidSummary(doc: unknown): void {
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(SHIPPED_SCHEMA_PATH, 'utf8')));
  }
  const ok = validate(JSON.parse(JSON.stringify(doc)));
  expect(ok, JSON.stringify(validate.errors, null, 1)?.slice(0, 4000)).toBe(true);
}
