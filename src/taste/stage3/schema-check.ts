/**
 * Conformity of tool arguments to a tool's JSON-schema parameters (pure): the subset τ² tools.json uses — type,
 * enum, required, properties, additionalProperties: false, items, anyOf, $ref into $defs. Returns the problems found.
 */
export function schemaProblems(schema: Record<string, any>, value: unknown, root = schema, at = 'arguments'): string[] {
  if (schema.$ref) {
    const name = String(schema.$ref).replace(/^#\/\$defs\//, '');
    const target = root.$defs?.[name];
    return target ? schemaProblems(target, value, root, at) : [`${at}: unresolvable ${schema.$ref}`];
  }
  if (Array.isArray(schema.anyOf)) {
    const ok = schema.anyOf.some((s: Record<string, any>) => schemaProblems(s, value, root, at).length === 0);
    return ok ? [] : [`${at}: matches none of the allowed shapes`];
  }
  const problems: string[] = [];
  if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value)))
    problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  const type = schema.type;
  if (type && !typeMatches(type, value)) return [...problems, `${at}: expected ${type}, got ${kindOf(value)}`];
  if (kindOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in obj)) problems.push(`${at}.${r}: required`);
    const props = schema.properties ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) problems.push(...schemaProblems(props[k], v, root, `${at}.${k}`));
      else if (schema.additionalProperties === false) problems.push(`${at}.${k}: not allowed`);
    }
  }
  if (Array.isArray(value) && schema.items)
    for (const [k, v] of value.entries()) problems.push(...schemaProblems(schema.items, v, root, `${at}[${k}]`));
  return problems;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(type: string | string[], v: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  const k = kindOf(v);
  return types.some((t) => t === k || (t === 'number' && k === 'integer'));
}
