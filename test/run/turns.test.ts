import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { turnOf } from '../../src/run/index.js';
import { createLimiter } from '../../src/sandbox/index.js';

// A turn is one of the session's limiter slots held by hand (run/turns.ts): turns and whole calls through the same
// limiter share its n slots, and a release given twice frees one slot, not two.
describe('turns of a limiter', () => {
  test.prop(
    [
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.record({ turn: fc.boolean(), delay: fc.integer({ min: 0, max: 4 }), twice: fc.boolean() }), {
        minLength: 1,
        maxLength: 20,
      }),
    ],
    { numRuns: 40 },
  )('never more than n held at once, by turns and calls alike, and every one is granted', async (n, jobs) => {
    const limit = createLimiter(n);
    const turn = turnOf(limit);
    let active = 0;
    let peak = 0;
    const hold = async (delay: number) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, delay));
      active--;
    };
    const done = await Promise.all(
      jobs.map(async (j, i) => {
        if (!j.turn) {
          await limit(() => hold(j.delay));
          return i;
        }
        const release = await turn();
        await hold(j.delay);
        release();
        if (j.twice) release();
        return i;
      }),
    );
    expect(done).toEqual(jobs.map((_, i) => i));
    expect(peak).toBeLessThanOrEqual(n);
    expect(peak).toBe(Math.min(n, jobs.length));
  });
});
