import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { buildSummary, serializeSummary, summarizeCommission, summaryChunks } from '../../src/report/index.js';
import { jsonChunks } from '../../src/report/json-stream.js';
import { sampleSummary } from './sample-summary.js';
import { seededInputs } from './seeded-grades.js';
import { delivery, grade } from './synthetic-grades.js';

// summary.json is written in pieces (a 100,000-case summary is never one string): the pieces must be, joined, the
// very bytes JSON.stringify gives, indented or not.
const leaf = fc.jsonValue({ maxDepth: 2 });
const withUndefined = fc.oneof(fc.constant(undefined), fc.integer(), leaf);
const level1 = fc.oneof(
  leaf,
  fc.array(withUndefined, { minLength: 60, maxLength: 140 }),
  fc.dictionary(fc.string({ maxLength: 6 }), withUndefined, { maxKeys: 4 }),
);
const value = fc.oneof(
  level1,
  fc.array(level1, { maxLength: 80 }),
  fc.dictionary(fc.string({ maxLength: 6 }), level1, { maxKeys: 4 }),
);

describe('jsonChunks', () => {
  test.prop([value, fc.constantFrom(undefined, 0, 2, 4)], { numRuns: 60 })(
    'joins to JSON.stringify(value, null, indent)',
    (v, indent) => {
      expect([...jsonChunks(v, indent)].join('')).toBe(JSON.stringify(v, null, indent));
    },
  );

  test.prop([fc.dictionary(fc.string(), fc.oneof(fc.constant(undefined), fc.integer()))])(
    'skips undefined members of objects as JSON.stringify does',
    (o) => {
      const big = { o, xs: Array.from({ length: 70 }, (_, i) => ({ i, o })) };
      expect([...jsonChunks(big, 2)].join('')).toBe(JSON.stringify(big, null, 2));
    },
  );
});

describe('summaryChunks', () => {
  test('the streamed summary.json equals serializeSummary: indented (sample, seeded) and compact (> 5,000 cases)', () => {
    const run = { id: 'r', startedAt: '2025-01-02T03:04:05.000Z', sandbox: 'docker' as const, version: '0.1.0' };
    const seeded = buildSummary({ run, commissions: seededInputs().map(summarizeCommission) });
    const large = buildSummary({
      run,
      commissions: [
        summarizeCommission({
          id: 'big',
          family: 'creation',
          split: 'heldout',
          delivery,
          passRule: { minResult: 60 },
          cases: Array.from({ length: 6000 }, (_, i) => grade({ id: `c-${i}`, result: i % 101 })),
        }),
      ],
    });
    for (const s of [sampleSummary(), seeded, large]) {
      const pieces = [...summaryChunks(s)];
      expect(pieces.join('')).toBe(serializeSummary(s));
    }
    expect(serializeSummary(large)).not.toContain('\n  ');
  });
});
