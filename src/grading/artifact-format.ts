import type { Artifact } from '../commission/index.js';
import { formatSchemaErrors, validateJsonSchema } from './json-schema.js';

/**
 * Whether an artifact's bytes are what its declared format promises (the `invalid-artifact` gate). Returns null
 * when valid, else a short problem. Pure.
 */
export function artifactProblem(
  artifact: Pick<Artifact, 'format' | 'schema' | 'allowEmpty'>,
  bytes: Buffer,
): string | null {
  const text = () => bytes.toString('utf8');
  if (bytes.length === 0 || (artifact.format !== 'pdf' && text().trim() === '')) {
    return artifact.allowEmpty ? null : 'is empty';
  }
  switch (artifact.format) {
    case 'json': {
      let doc: unknown;
      try {
        doc = JSON.parse(text());
      } catch (err) {
        return `is not valid JSON (${(err as Error).message})`;
      }
      if (artifact.schema) {
        const errors = validateJsonSchema(artifact.schema, doc);
        if (errors.length > 0) return `does not satisfy its schema: ${formatSchemaErrors(errors)}`;
      }
      return null;
    }
    case 'jsonl':
      return jsonlProblem(text(), artifact.schema);
    case 'csv':
      return csvProblem(text());
    case 'pdf':
      return bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? null : 'does not start with %PDF-';
    case 'patch':
      return /^(diff --git |--- \S|Index: )/m.test(text()) ? null : 'is not a unified diff';
    default:
      return null;
  }
}

/** One JSON value per non-blank line, each satisfying `schema` when given. */
function jsonlProblem(text: string, schema: Record<string, unknown> | undefined): string | null {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(lines[i]!);
    } catch (err) {
      return `line ${i + 1} is not valid JSON (${(err as Error).message})`;
    }
    if (schema) {
      const errors = validateJsonSchema(schema, row);
      if (errors.length > 0) return `line ${i + 1} does not satisfy its schema: ${formatSchemaErrors(errors)}`;
    }
  }
  return null;
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and newlines). */
export function parseCsv(text: string): string[][] | { error: string } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (quoted) return { error: 'an unterminated quoted field' };
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}

function csvProblem(text: string): string | null {
  const rows = parseCsv(text);
  if (!Array.isArray(rows)) return `is not valid CSV: ${rows.error}`;
  const header = rows[0];
  if (!header || header.every((h) => h.trim() === '')) return 'has no CSV header';
  const bad = rows.findIndex((r) => r.length !== header.length);
  if (bad >= 0) return `row ${bad + 1} has ${rows[bad]!.length} columns, the header has ${header.length}`;
  return null;
}
