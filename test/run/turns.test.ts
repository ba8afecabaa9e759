import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { guardedTurn, turnOf } from '../../src/run/index.js';
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

// A case's guarded turn (run/turns.ts) keeps its slot past the command until the session's tamper check settles it:
// once one case's check finds the delivery changed, no case granted a turn afterwards runs, and no slot is lost.
describe('guarded turns', () => {
  test.prop([fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 12 }), fc.nat()], { numRuns: 40 })(
    'after the check that refuses, every later grant is refused; every slot comes back',
    async (n, cases, at) => {
      const turn = turnOf(createLimiter(n));
      const tamperedBy = at % cases;
      let refusal: Error | null = null;
      const outcomes = await Promise.all(
        Array.from({ length: cases }, async (_, i) => {
          const g = guardedTurn(turn, () => refusal);
          try {
            const release = await g.turn();
            const ranAfterRefusal = refusal !== null;
            release(); // the command exited: the slot is kept for the check
            release();
            await new Promise((r) => setTimeout(r, 0));
            if (i === tamperedBy) refusal = new Error('delivery changed');
            g.settle();
            return ranAfterRefusal ? 'ran-after-refusal' : 'ran';
          } catch {
            g.settle();
            return g.refused ? 'refused' : 'error';
          }
        }),
      );
      expect(outcomes).not.toContain('ran-after-refusal');
      expect(outcomes).not.toContain('error');
      expect(outcomes[tamperedBy]).toBe('ran');
      // One at a time, in order: exactly the cases after the tampered one are refused.
      if (n === 1) expect(outcomes.map((o) => o === 'refused')).toEqual(outcomes.map((_, i) => i > tamperedBy));
      // Every slot is back: n turns at once are granted.
      const all = await Promise.all(Array.from({ length: n }, () => turn()));
      for (const r of all) r();
    },
  );
});
