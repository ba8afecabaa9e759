import { z } from 'zod';

/** A JSON Schema violation: where (`a.b.0`, `(root)` for the document) and what. */
export interface SchemaError {
  path: string;
  message: string;
}

/**
 * Validates a JSON value against a JSON Schema (the draft 2020-12 subset commissions use: type, properties,
 * required, items, enum, minimum/maximum, minLength, minItems, additionalProperties false, anyOf), through zod 4's
 * `z.fromJSONSchema`. A schema zod cannot translate is reported as one error at `(schema)`, never silently passed.
 */
export function validateJsonSchema(schema: Record<string, unknown>, value: unknown): SchemaError[] {
  let zschema: z.ZodType;
  try {
    zschema = z.fromJSONSchema(normalize(schema) as z.core.JSONSchema.JSONSchema);
  } catch (err) {
    return [{ path: '(schema)', message: `unsupported JSON Schema: ${(err as Error).message}` }];
  }
  const r = zschema.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => ({
    path: i.path.length ? i.path.map(String).join('.') : '(root)',
    message: /received undefined$/.test(i.message) ? 'required property is missing' : i.message,
  }));
}

/**
 * zod's translation ignores `required` names that `properties` does not list; JSON Schema still demands them, so
 * they are listed (as any value) before translating.
 */
function normalize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normalize);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] =
      k === 'properties' && v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, normalize(pv)]))
        : k === 'const' || k === 'enum' || k === 'default' || k === 'examples'
          ? v
          : normalize(v);
  }
  if (Array.isArray(out.required)) {
    const props = { ...((out.properties as Record<string, unknown>) ?? {}) };
    for (const name of out.required) if (typeof name === 'string' && !(name in props)) props[name] = {};
    out.properties = props;
  }
  return out;
}

export function formatSchemaErrors(errors: SchemaError[], max = 3): string {
  const head = errors.slice(0, max).map((e) => `${e.path}: ${e.message}`);
  return errors.length > max ? `${head.join('; ')}; … ${errors.length - max} more` : head.join('; ');
}
