import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { createEnvironment, goldActions, requestorOf, type Tau2Domain } from '../../src/tau2/index.js';
import { domain } from './data.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A fresh environment of `task`'s initial state after the first `n` of its gold calls. */
function replayed(d: Tau2Domain, taskIndex: number, n: number) {
  const task = d.tasks[taskIndex % d.tasks.length];
  const env = createEnvironment(d, { initialState: task.initial_state });
  for (const a of goldActions(task).slice(0, n)) env.goldCall(a.name, a.arguments, requestorOf(a));
  return env;
}

// DbState.hash is memoised by a state's difference from the shared initial database; the memo must give exactly
// sha256 of the whole τ² text (recordText('db') builds it without the memo), for every state, first time or again.
describe('the memoised τ² database hash', () => {
  for (const name of ['airline', 'retail', 'telecom'] as const) {
    test.prop([fc.nat(), fc.nat({ max: 12 })], { numRuns: 8 })(
      `${name}: equals sha256 of the whole text, and another environment in the same state hashes the same`,
      async (taskIndex, n) => {
        const d = await domain(name);
        const env = replayed(d, taskIndex, n);
        const direct = sha256(env.recordText('db') as string);
        expect(env.hash()).toBe(direct);
        expect(env.hash()).toBe(direct);
        expect(replayed(d, taskIndex, n).hash()).toBe(direct);
        if (env.userHash() !== null) expect(env.userHash()).toBe(sha256(env.recordText('user_db') as string));
      },
    );
  }
});
