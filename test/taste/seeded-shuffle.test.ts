import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Rng } from '../../src/taste/index.js';

describe('Rng.shuffle', () => {
  test.prop([fc.array(fc.integer()), fc.integer()])(
    'is a permutation of its input, leaves the input alone, and the same seed gives the same order',
    (xs, seed) => {
      const before = [...xs];
      const a = new Rng(seed).shuffle(xs);
      expect(xs).toEqual(before);
      expect([...a].sort((p, q) => p - q)).toEqual([...xs].sort((p, q) => p - q));
      expect(new Rng(seed).shuffle(xs)).toEqual(a);
    },
  );

  test('every position is reachable: 3 elements over 600 seeds give all 6 orders', () => {
    const orders = new Set<string>();
    for (let s = 0; s < 600; s++) orders.add(new Rng(s).shuffle(['a', 'b', 'c']).join(''));
    expect(orders.size).toBe(6);
  });
});
