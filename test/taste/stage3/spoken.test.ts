import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { communicated, spoken } from '../../../src/tau2/index.js';

const said = (content: string) => [{ role: 'assistant' as const, content }];

describe('COMMUNICATE values as an agent says them', () => {
  test('calculate’s "600.0" is expected as "600": an agent saying $600 or $600.00 (or 1,200) holds it', () => {
    expect(spoken('600.0')).toBe('600');
    expect(communicated(spoken('600.0'), said('The total you paid was $600.'))).toBe(true);
    expect(communicated(spoken('600.0'), said('You paid $600.00 in total.'))).toBe(true);
    expect(communicated(spoken('1200.0'), said('That comes to $1,200.'))).toBe(true);
    // The literal τ² would otherwise look for is not what an agent says.
    expect(communicated('600.0', said('The total you paid was $600.'))).toBe(false);
  });

  test.prop([fc.integer({ min: -1e9, max: 1e9 })])(
    'an integral float loses its ".0", and its text is a prefix',
    (n) => {
      expect(spoken(`${n}.0`)).toBe(String(n));
      expect(`$${n}.00`.replace(/,/g, '')).toContain(spoken(`${n}.0`));
    },
  );

  test.prop([fc.string().filter((s) => !/^-?\d+\.0$/.test(s))])('any other answer is kept as it is', (s) => {
    expect(spoken(s)).toBe(s);
  });
});
