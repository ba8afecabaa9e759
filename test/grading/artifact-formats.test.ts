import { describe, expect, test } from 'vitest';
import { artifactProblem, parseCsv } from '../../src/grading/index.js';

const a = (
  format: 'json' | 'csv' | 'pdf' | 'markdown' | 'text' | 'patch' | 'any',
  extra: { schema?: Record<string, unknown>; allowEmpty?: boolean } = {},
) => ({
  format,
  allowEmpty: false,
  ...extra,
});
const b = (s: string) => Buffer.from(s);

describe('artifacts are parsed by their declared format', () => {
  test('json must parse and satisfy its optional JSON schema, with the failing path named', () => {
    const schema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
        },
      },
      required: ['items'],
      additionalProperties: false,
    };
    expect(artifactProblem(a('json'), b('{"a": 1}'))).toBeNull();
    expect(artifactProblem(a('json'), b('{"a": 1,}'))).toMatch(/not valid JSON/);
    expect(artifactProblem(a('json', { schema }), b('{"items": [{"n": 2}]}'))).toBeNull();
    expect(artifactProblem(a('json', { schema }), b('{"items": [{"n": -1}]}'))).toMatch(/items\.0\.n/);
    expect(artifactProblem(a('json', { schema }), b('{"items": [], "extra": 1}'))).toMatch(
      /items.*; \(root\): Unrecognized key/,
    );
  });

  test('csv needs a header and the same number of columns on every row (quoted commas allowed)', () => {
    expect(artifactProblem(a('csv'), b('name,score\n"Smith, J",3\nLee,4\n'))).toBeNull();
    expect(artifactProblem(a('csv'), b('name,score\nLee,4,extra\n'))).toBe('row 2 has 3 columns, the header has 2');
    expect(artifactProblem(a('csv'), b('name,score\n"open,4\n'))).toMatch(/unterminated/);
    expect(parseCsv('a,b\r\n1,"x ""y"""\r\n')).toEqual([
      ['a', 'b'],
      ['1', 'x "y"'],
    ]);
  });

  test('pdf must start with the %PDF- magic', () => {
    expect(artifactProblem(a('pdf'), b('%PDF-1.7\n...'))).toBeNull();
    expect(artifactProblem(a('pdf'), b('<html>not a pdf'))).toBe('does not start with %PDF-');
  });

  test('markdown and text must not be empty unless allowEmpty', () => {
    expect(artifactProblem(a('markdown'), b('  \n'))).toBe('is empty');
    expect(artifactProblem(a('text'), b(''))).toBe('is empty');
    expect(artifactProblem(a('text', { allowEmpty: true }), b(''))).toBeNull();
    expect(artifactProblem(a('markdown'), b('# Title'))).toBeNull();
  });

  test('a patch must be a unified diff', () => {
    expect(artifactProblem(a('patch'), b('diff --git a/x b/x\n--- a/x\n+++ b/x\n'))).toBeNull();
    expect(artifactProblem(a('patch'), b('I changed lib.js'))).toBe('is not a unified diff');
  });
});
