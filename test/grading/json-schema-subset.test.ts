import { describe, expect, test } from 'vitest';
import { validateJsonSchema } from '../../src/grading/index.js';

describe('the JSON Schema subset commissions use', () => {
  const schema = {
    type: 'object',
    required: ['id', 'status'],
    properties: {
      status: { enum: ['ok', 'failed'] },
      score: { type: 'number', minimum: 0, maximum: 1 },
      name: { type: 'string', minLength: 2 },
      items: { type: 'array', minItems: 1, items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    },
    additionalProperties: false,
  };

  test('a valid document has no errors', () => {
    expect(validateJsonSchema(schema, { id: 1, status: 'ok', score: 0.5, name: 'ab', items: ['x', 2] })).toEqual([]);
  });

  test('each violation is reported at its path', () => {
    const errors = validateJsonSchema(schema, { status: 'maybe', score: 2, name: 'a', items: [true], extra: 1 });
    const paths = errors.map((e) => e.path).sort();
    expect(paths).toEqual(['(root)', 'id', 'items.0', 'name', 'score', 'status']);
    expect(errors.find((e) => e.path === 'id')!.message).toBe('required property is missing');
  });

  test('required names that properties does not list are still required', () => {
    expect(validateJsonSchema({ type: 'object', required: ['answer'] }, {})).toEqual([
      { path: 'answer', message: 'required property is missing' },
    ]);
  });
});
