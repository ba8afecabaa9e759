/**
 * Harbor's reward contract (harbor `verifier/verifier.py`): reward.json's numbers are the rewards, its other values
 * are dropped, and where it has no `reward` the scalar in reward.txt is merged in as `reward`. The score is the
 * commission's score keys; any other number is recorded only; a score outside [0, 1] is never graded.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  fullScore,
  judgeVerifier,
  parseRewards,
  scoreKeys,
  type VerifierRun,
} from '../../src/grading/families/harbor/verdict.js';

const run = (rewardJson: string | null, rewardTxt: string | null): VerifierRun => ({
  exitCode: 0,
  timedOut: false,
  timeoutSeconds: 60,
  output: '',
  rewardJson,
  rewardTxt,
  missingInterpreter: null,
});

describe('reward.json as a detail report beside reward.txt', () => {
  test('reward.txt is merged in as `reward`; the counts are recorded, never the score', () => {
    const nop = judgeVerifier(run('{"checks_passed": 0, "checks_total": 4}', '0\n'), ['reward']);
    expect(nop).toMatchObject({
      kind: 'reward',
      rewards: { checks_passed: 0, checks_total: 4, reward: 0 },
      source: 'reward.json + reward.txt',
    });
    expect(nop.kind === 'reward' && fullScore(nop.rewards, ['reward'])).toBe(false);
    // Undeclared, the merged `reward` is still the score, as Harbor aggregates it.
    expect(scoreKeys({ checks_passed: 3, checks_total: 4, reward: 0 }, [])).toEqual(['reward']);
  });

  test('a reward.json `reward` wins over reward.txt; an unreadable reward.txt is ignored, as Harbor ignores it', () => {
    expect(parseRewards('{"reward": 0.25}', '1')).toMatchObject({ rewards: { reward: 0.25 }, source: 'reward.json' });
    expect(parseRewards('{"checks": 1}', 'n/a')).toMatchObject({ rewards: { checks: 1 }, source: 'reward.json' });
  });

  test('without reward.txt, counts as the score are an infra-error naming them, never clamped into marks', () => {
    const v = judgeVerifier(run('{"checks_passed": 3, "checks_total": 4}', null));
    expect(v.kind).toBe('infra');
    expect(v.kind === 'infra' && v.reason).toMatch(/checks_passed = 3, checks_total = 4 is outside \[0, 1\]/);
    const declared = judgeVerifier(run('{"checks_passed": 3, "checks_total": 4}', null), ['reward']);
    expect(declared.kind === 'infra' && declared.reason).toMatch(/has no reward \(the score this commission grades/);
  });
});

describe('reward.json with informational keys and text fields', () => {
  test('the score is `reward`: other numbers recorded, non-numbers dropped and named', () => {
    const v = judgeVerifier(run('{"reward": 1, "unsupported": 0, "note": "graded by test.sh", "ok": true}', null));
    expect(v).toMatchObject({ kind: 'reward', rewards: { reward: 1, unsupported: 0 }, dropped: ['note', 'ok'] });
    expect(v.kind === 'reward' && fullScore(v.rewards, [])).toBe(true);
  });

  test('the declared metric keys are the score; a key they do not name never blocks full reward', () => {
    const rewards = { correctness: 1, performance: 1, latency_ms: 840 };
    expect(fullScore(rewards, ['correctness', 'performance'])).toBe(true);
    expect(judgeVerifier(run(JSON.stringify(rewards), null), ['correctness', 'performance']).kind).toBe('reward');
  });

  test('a reward.json with no number at all is no reward (infra), naming what Harbor dropped', () => {
    expect(parseRewards('{"reward": true, "note": "x"}', null)).toBe(
      'reward.json holds no number (reward, note are not numbers, and Harbor drops them)',
    );
    expect(judgeVerifier(run('{"reward": "1"}', null)).kind).toBe('infra');
  });
});

describe('properties', () => {
  const word = fc.stringMatching(/^[a-z][a-z_]{0,8}$/).filter((k) => k !== 'reward' && k !== '__proto__');
  const score = fc.double({ min: 0, max: 1, noNaN: true });

  test('text fields never change the score; numbers beside `reward` never decide it', () => {
    fc.assert(
      fc.property(
        score,
        fc.dictionary(word, fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string())),
        (r, extra) => {
          const v = judgeVerifier(run(JSON.stringify({ ...extra, reward: r }), null));
          return v.kind === 'reward' && v.rewards.reward === r && fullScore(v.rewards, []) === r >= 1;
        },
      ),
    );
  });

  test('a score outside [0, 1] is never a reward verdict', () => {
    const outside = fc.oneof(
      fc.double({ min: 1.000001, max: 1e6, noNaN: true }),
      fc.double({ min: -1e6, max: -1e-6, noNaN: true }),
    );
    fc.assert(
      fc.property(outside, fc.boolean(), (x, viaTxt) => {
        const v = viaTxt
          ? judgeVerifier(run('{"n": 1}', String(x)), ['reward'])
          : judgeVerifier(run(JSON.stringify({ reward: x }), null));
        return v.kind === 'infra' && /outside \[0, 1\]/.test(v.reason);
      }),
    );
  });
});
