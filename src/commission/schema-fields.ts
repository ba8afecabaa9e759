/**
 * The fields of a zod object schema, read from its definition: every dotted path with its type, whether it is
 * required, and its default. The commission reference (docs/commission.md) is checked against this list, and
 * validation draws its "did you mean" field names from it. Pure.
 */

// zod 4 keeps a schema's structure in `_zod.def`; reading it structurally needs no zod internals beyond that.
interface Def {
  type: string;
  [k: string]: unknown;
}
interface Node {
  _zod: { def: Def };
}

/** One field of a schema. `path` is dotted, `[]` marking array elements (`artifacts[].path`). */
export interface SchemaField {
  path: string;
  /** A short type: `string`, `integer`, `number ≥ 0`, `json | text | …`, `list of object`, `map of string`. */
  type: string;
  required: boolean;
  /** The default, as JSON, or null when the field has none. */
  default: string | null;
}

/** A union member of a discriminated union: the discriminator value and that member's schema. */
export interface Variant {
  value: string;
  schema: Node;
}

const def = (n: Node) => n._zod.def;

/** Strips optional/default/nullable/pipe wrappers; says whether the field may be left out and its default. */
function unwrap(n: Node): { inner: Node; optional: boolean; default: unknown } {
  let node = n;
  let optional = false;
  let dflt: unknown;
  for (;;) {
    const d = def(node);
    if (d.type === 'optional') optional = true;
    else if (d.type === 'default' || d.type === 'prefault') {
      optional = true;
      const v = d.defaultValue;
      dflt = typeof v === 'function' ? (v as () => unknown)() : v;
    } else if (d.type !== 'nullable' && d.type !== 'readonly' && d.type !== 'pipe') break;
    node = (d.type === 'pipe' ? d.in : d.innerType) as Node;
  }
  return { inner: node, optional, default: dflt };
}

function checksOf(d: Def): Record<string, unknown>[] {
  return ((d.checks as { _zod: { def: Record<string, unknown> } }[] | undefined) ?? []).map((c) => c._zod.def);
}

/** A short human type of a schema node (after unwrapping). */
export function typeName(n: Node): string {
  const d = def(unwrap(n).inner);
  switch (d.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'unknown':
    case 'any':
      return 'any';
    case 'number': {
      const checks = checksOf(d);
      const int = /int/.test(String(d.format ?? '')) || checks.some((c) => /int/.test(String(c.format ?? '')));
      const bounds = checks
        .filter((c) => c.check === 'greater_than' || c.check === 'less_than')
        .map((c) => `${c.check === 'greater_than' ? (c.inclusive ? '≥' : '>') : c.inclusive ? '≤' : '<'} ${c.value}`);
      return [int ? 'integer' : 'number', ...bounds].join(' ');
    }
    case 'enum':
      return Object.values(d.entries as Record<string, string>).join(' \\| ');
    case 'literal':
      return (d.values as unknown[]).map((v) => JSON.stringify(v)).join(' \\| ');
    case 'array':
      return `list of ${typeName(d.element as Node)}`;
    case 'record':
      return `map of ${typeName(d.valueType as Node)}`;
    case 'object': {
      // A small object (an expectation, a judged condition) reads best as its keys.
      const keys = Object.keys(d.shape as object);
      return keys.length > 0 && keys.length <= 3 ? `{ ${keys.join(', ')} }` : 'object';
    }
    case 'union':
      // A discriminated union (the check items) is named by its key; docs/commission.md lists its members.
      if (typeof d.discriminator === 'string') return `\`${d.discriminator}\` item`;
      return (d.options as Node[]).map(typeName).join(' \\| ');
    default:
      return d.type;
  }
}

/** The members of a discriminated union (`check` items), keyed by their discriminator value; null otherwise. */
export function variantsOf(n: Node): { discriminator: string; variants: Variant[] } | null {
  const d = def(unwrap(n).inner);
  if (d.type !== 'union' || typeof d.discriminator !== 'string') return null;
  const key = d.discriminator;
  const variants = (d.options as Node[]).map((o) => {
    const shape = def(o).shape as Record<string, Node>;
    const values = def(unwrap(shape[key]!).inner).values as unknown[];
    return { value: String(values[0]), schema: o };
  });
  return { discriminator: key, variants };
}

/**
 * Every field below an object schema, depth first in declaration order. Objects inside lists are entered
 * (`artifacts[].path`); unions and maps are leaves (their members are documented on their own).
 */
export function schemaFields(schema: Node, prefix = ''): SchemaField[] {
  const out: SchemaField[] = [];
  const shape = def(unwrap(schema).inner).shape as Record<string, Node> | undefined;
  for (const [key, child] of Object.entries(shape ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    const u = unwrap(child);
    out.push({
      path,
      type: typeName(child),
      required: !u.optional,
      default: u.default === undefined ? null : JSON.stringify(u.default),
    });
    const inner = def(u.inner);
    if (inner.type === 'object') out.push(...schemaFields(u.inner, path));
    else if (inner.type === 'array') {
      const el = unwrap(inner.element as Node).inner;
      if (def(el).type === 'object') out.push(...schemaFields(el, `${path}[]`));
    }
  }
  return out;
}

/** Every field name used anywhere in the schemas (objects, list elements, union members): the "did you mean" pool. */
export function fieldNames(...schemas: Node[]): string[] {
  const names = new Set<string>();
  const seen = new Set<Node>();
  const visit = (n: Node) => {
    if (seen.has(n)) return;
    seen.add(n);
    const d = def(n);
    if (d.type === 'object') {
      for (const [k, c] of Object.entries(d.shape as Record<string, Node>)) {
        names.add(k);
        visit(c);
      }
    }
    for (const k of ['innerType', 'in', 'element', 'valueType'] as const) if (d[k]) visit(d[k] as Node);
    if (d.type === 'union') for (const o of d.options as Node[]) visit(o);
  };
  for (const s of schemas) visit(s);
  return [...names];
}
