import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  COMMAND_PLACEHOLDERS,
  checkSchema,
  commissionSchema,
  ENTRY_PLACEHOLDERS,
  judgeItemSchema,
  rubricSchema,
  type SchemaField,
  schemaFields,
  variantsOf,
} from '../../src/commission/index.js';
import { GATE_CATEGORIES } from '../../src/grading/index.js';
import { fillPlaceholders } from '../../src/sandbox/staging.js';
import { repoRoot } from '../helpers/cli.js';

// docs/commission.md cannot drift from the schema: its field tables are the schema's fields (path, type, whether
// required, default) in order, each with a description written by hand; its placeholder table is the list the
// sandbox fills; its gate table names every gate. `UPDATE_COMMISSION_DOC=1` rewrites the generated columns (and
// adds rows for new fields, whose empty descriptions then fail until written).
const DOC = path.join(repoRoot, 'docs/commission.md');
const update = process.env.UPDATE_COMMISSION_DOC === '1';

const kinds = variantsOf(checkSchema as never)!.variants;
const SECTIONS: Record<string, SchemaField[]> = {
  commission: schemaFields(commissionSchema as never),
  rubric: schemaFields(rubricSchema as never),
  judge: schemaFields(judgeItemSchema as never),
  ...Object.fromEntries(
    kinds.map((k) => [`check ${k.value}`, schemaFields(k.schema).filter((f) => f.path !== 'check')]),
  ),
};

const cell = (s: string) => s.replace(/\|/g, '\\|');
const HEADER = '| field | type | required | default | description |\n|---|---|---|---|---|';

/** The rows of a generated table, keyed by field, with the hand-written description of each. */
function descriptions(block: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of block.split('\n').slice(2)) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const field = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (field) out.set(field, cells.slice(5, -1).join('|').trim());
  }
  return out;
}

/** A default as the table shows it: an object whose fields are listed below it defaults field by field. */
function shownDefault(f: SchemaField, fields: SchemaField[]): string {
  if (f.default === null) return '';
  if (f.default.startsWith('{') && fields.some((g) => g.path.startsWith(`${f.path}.`))) return 'each field’s';
  return `\`${cell(f.default)}\``;
}

function table(fields: SchemaField[], described: Map<string, string>): string {
  const rows = fields.map(
    (f) =>
      `| \`${f.path}\` | ${f.type} | ${f.required ? 'yes' : ''} | ${shownDefault(f, fields)} | ${described.get(f.path) ?? ''} |`,
  );
  return `${HEADER}\n${rows.join('\n')}`;
}

function placeholders(): string {
  const rows = Object.entries(COMMAND_PLACEHOLDERS).map(
    ([name, what]) =>
      `| \`{${name}}\` | ${name in ENTRY_PLACEHOLDERS ? 'yes' : ''} | yes | ${cell(what.replace(/’/g, "'"))} |`,
  );
  return `| placeholder | in \`entry\` | in evaluator commands | expands to |\n|---|---|---|---|\n${rows.join('\n')}`;
}

/** Replaces (or, checking, reads) the text between `<!-- name -->` and `<!-- /name-end -->` markers. */
function between(doc: string, open: string, close: string): { start: number; end: number; text: string } | null {
  const a = doc.indexOf(open);
  if (a < 0) return null;
  const start = a + open.length + 1;
  const end = doc.indexOf(close, start);
  return { start, end, text: doc.slice(start, end).trim() };
}

describe('docs/commission.md', () => {
  let doc = readFileSync(DOC, 'utf8');

  test('every field table is the schema’s fields, each described', () => {
    const problems: string[] = [];
    for (const [name, fields] of Object.entries(SECTIONS)) {
      const at = between(doc, `<!-- fields: ${name} -->`, '<!-- /fields -->');
      if (!at) {
        problems.push(`no table for ${name}: add <!-- fields: ${name} --> … <!-- /fields -->`);
        continue;
      }
      const described = descriptions(at.text);
      const expected = table(fields, described);
      if (update) doc = `${doc.slice(0, at.start)}${expected}\n${doc.slice(at.end)}`;
      else if (at.text !== expected)
        problems.push(
          `${name}: the table differs from the schema (UPDATE_COMMISSION_DOC=1 regenerates it)\n${expected}`,
        );
      for (const f of fields) if (!described.get(f.path)) problems.push(`${name}: ${f.path} has no description`);
    }
    const placeholderAt = between(doc, '<!-- placeholders -->', '<!-- /placeholders -->');
    if (!placeholderAt) problems.push('no placeholder table');
    else if (update) doc = `${doc.slice(0, placeholderAt.start)}${placeholders()}\n${doc.slice(placeholderAt.end)}`;
    else if (placeholderAt.text !== placeholders()) problems.push(`the placeholder table differs:\n${placeholders()}`);
    if (update) writeFileSync(DOC, doc);
    expect(problems).toEqual([]);
  });

  test('the placeholders it lists are the ones the sandbox fills, and {tree} is the evaluator commands’ own', () => {
    const names = Object.keys(ENTRY_PLACEHOLDERS);
    const map = Object.fromEntries(names.map((n) => [n, `<${n}>`])) as Parameters<typeof fillPlaceholders>[1];
    expect(fillPlaceholders(names.map((n) => `{${n}}`).join(' '), map)).toBe(names.map((n) => `<${n}>`).join(' '));
    expect(fillPlaceholders('{tree} {nope}', map)).toBe('{tree} {nope}');
    expect(Object.keys(COMMAND_PLACEHOLDERS)).toEqual([...names, 'tree']);
  });

  test('the gate table names every gate once, with fields that exist', () => {
    const at = between(doc, '<!-- gates -->', '<!-- /gates -->');
    expect(at).not.toBeNull();
    const rows = at!.text.split('\n').slice(2);
    expect(rows.map((r) => /^\| `([a-z-]+)`/.exec(r)?.[1])).toEqual([...GATE_CATEGORIES]);
    const known = new Set([...SECTIONS.commission!, ...SECTIONS.rubric!].map((f) => f.path));
    for (const r of rows)
      for (const [, field] of r.matchAll(/`((?:[a-zA-Z]+(?:\[\])?\.)*[a-zA-Z]+(?:\[\])?)`/g))
        if (!GATE_CATEGORIES.includes(field as never) && /^[a-z]/.test(field!))
          expect(known.has(field!) || known.has(field!.replace(/\[\]$/, '')), `${field} in: ${r}`).toBe(true);
  });

  test('every example in it is valid: the commission.yaml and rubric.yaml blocks parse with the schema', async () => {
    const { parse } = await import('yaml');
    const blocks = [...doc.matchAll(/```yaml\n# (commission|rubric)\.yaml\n([\s\S]*?)```/g)];
    expect(blocks.map((b) => b[1]).sort()).toEqual(['commission', 'rubric']);
    for (const [, which, text] of blocks) {
      const schema = which === 'commission' ? commissionSchema : rubricSchema;
      const r = schema.safeParse(parse(text!));
      expect(r.success, `${which}: ${JSON.stringify(r.error?.issues)}`).toBe(true);
    }
  });
});
