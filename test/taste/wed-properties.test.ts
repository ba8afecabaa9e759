import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { condensedIndex, wedMatrix, wedMatrixSync, weightedEditDistance } from '../../src/taste/index.js';

const tools = [
  { name: 'get_user', type: 'READ' },
  { name: 'get_order', type: 'READ' },
  { name: 'find_user', type: 'READ' },
  { name: 'calculate', type: 'GENERIC' },
  { name: 'cancel_order', type: 'WRITE' },
  { name: 'modify_order', type: 'WRITE' },
  { name: 'modify_address', type: 'WRITE' },
];
const seq = fc.array(fc.constantFrom(...tools.map((t) => t.name)), { maxLength: 12 });
const wed = (a: string[], b: string[]) => weightedEditDistance(a, b, tools);

describe('weighted edit distance', () => {
  test('DESIGN §11 costs', () => {
    expect(wed(['get_user'], ['get_order'])).toBe(0.33);
    expect(wed(['get_user'], ['find_user'])).toBe(0.66);
    expect(wed(['calculate'], ['get_user'])).toBe(0.66); // GENERIC counts as READ
    expect(wed(['get_user'], ['cancel_order'])).toBe(1);
    expect(wed(['modify_order'], ['modify_address'])).toBe(0.33);
    expect(wed([], ['get_user', 'cancel_order'])).toBe(2);
  });
  test.prop([seq, seq])('symmetric', (a, b) => {
    expect(wed(a, b)).toBe(wed(b, a));
  });
  test.prop([seq, seq])('zero iff equal', (a, b) => {
    expect(wed(a, b) === 0).toBe(JSON.stringify(a) === JSON.stringify(b));
    expect(wed(a, a)).toBe(0);
  });
  test.prop([seq, seq])('bounded by the longer length', (a, b) => {
    expect(wed(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
  });
  test.prop([seq, seq, seq])('triangle inequality', (a, b, c) => {
    expect(wed(a, c)).toBeLessThanOrEqual(wed(a, b) + wed(b, c) + 1e-9);
  });
});

describe('WED matrix', () => {
  test.prop([fc.array(seq, { minLength: 2, maxLength: 25 })], { numRuns: 30 })('matches pairwise WED', (seqs) => {
    const m = wedMatrixSync(seqs, tools);
    for (let i = 0; i < seqs.length; i++)
      for (let j = i + 1; j < seqs.length; j++) expect(m.data[condensedIndex(m.n, i, j)]).toBe(wed(seqs[i], seqs[j]));
  });

  test('worker threads give exactly the single-thread matrix', async () => {
    const seqs = fc.sample(seq, { numRuns: 700, seed: 42 });
    const single = wedMatrixSync(seqs, tools);
    const parallel = await wedMatrix(seqs, tools, { threads: 2, minPairsForWorkers: 0 });
    expect(parallel.n).toBe(single.n);
    expect(Buffer.from(parallel.data.buffer).equals(Buffer.from(single.data.buffer))).toBe(true);
  });
});
