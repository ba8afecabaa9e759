import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CheckSetupError, rewardScore } from '../../src/grading/checks.js';
import {
  judgeVerifier,
  meetsMinReward,
  missingPieces,
  parseRewards,
  resolveTemplates,
  trialRewards,
  type VerifierRun,
} from '../../src/grading/families/harbor/verdict.js';

const run = (over: Partial<VerifierRun>): VerifierRun => ({
  exitCode: 0,
  timedOut: false,
  timeoutSeconds: 60,
  output: '',
  rewardJson: null,
  rewardTxt: null,
  missingInterpreter: null,
  ...over,
});

// The canonical Harbor test.sh (apt-get, curl | sh, uvx pytest) on an image without them and without a network.
const CANONICAL_OFFLINE = `/tests/test.sh: line 3: apt-get: command not found
/tests/test.sh: line 4: apt-get: command not found
/tests/test.sh: line 6: curl: command not found
/tests/test.sh: line 8: /root/.local/bin/env: No such file or directory
/tests/test.sh: line 10: uvx: command not found`;

describe("Harbor's reward files", () => {
  test('reward.json first (a flat object of numbers), else reward.txt as `reward`', () => {
    expect(parseRewards('{"a": 1, "b": 0.5}', null)).toEqual({
      rewards: { a: 1, b: 0.5 },
      source: 'reward.json',
      dropped: [],
    });
    expect(parseRewards(null, '1\n')).toEqual({ rewards: { reward: 1 }, source: 'reward.txt', dropped: [] });
    expect(parseRewards(null, null)).toBeNull();
    expect(parseRewards('', null)).toBe('reward.json is empty');
    expect(parseRewards('{"a": "1"}', null)).toBe(
      'reward.json holds no number (a is not a number, and Harbor drops them)',
    );
    expect(parseRewards('[1]', null)).toBe('reward.json is not an object of rewards');
    expect(parseRewards(null, 'yes')).toMatch(/not a number/);
  });

  test('reward.txt numbers as Python float() reads them', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const p = parseRewards(null, ` ${String(x)}\n`);
        return typeof p === 'object' && p !== null && Object.is(p.rewards.reward, Number(String(x))); // String(-0) is '0';
      }),
    );
  });
});

describe('a verifier that could not run is never the delivery’s 0', () => {
  test('no reward file: infra, with what its scripts found missing and its output', () => {
    const v = judgeVerifier(run({ exitCode: 127, output: CANONICAL_OFFLINE }));
    expect(v.kind).toBe('infra');
    expect(v.kind === 'infra' && v.reason).toMatch(
      /wrote no reward.*exited 127.*commands not found: apt-get, curl, uvx/s,
    );
    expect(v.kind === 'infra' && v.reason).toMatch(/uvx: command not found/);
  });

  test('reward 0 written after its tools were missing: infra; the same reward 1: graded, with a warning', () => {
    const zero = judgeVerifier(run({ output: CANONICAL_OFFLINE, rewardTxt: '0\n' }));
    expect(zero).toMatchObject({ kind: 'infra' });
    expect(zero.kind === 'infra' && zero.reason).toMatch(/could not run: commands not found: apt-get, curl, uvx/);
    const one = judgeVerifier(run({ output: CANONICAL_OFFLINE, rewardTxt: '1' }));
    expect(one).toMatchObject({ kind: 'reward', rewards: { reward: 1 } });
    expect(one.kind === 'reward' && one.warnings).toEqual([
      'commands not found: apt-get, curl, uvx',
      'file missing: /root/.local/bin/env',
    ]);
  });

  test("a command missing in the delivery's own script is the delivery's 0, not an infra-error", () => {
    const v = judgeVerifier(run({ output: '/app/greet.sh: line 2: figlet: command not found\n', rewardTxt: '0' }));
    expect(v).toEqual({ kind: 'reward', rewards: { reward: 0 }, source: 'reward.txt', warnings: [], dropped: [] });
  });

  test('no network, a missing test framework, exit 127, a timeout, a missing interpreter: infra', () => {
    expect(judgeVerifier(run({ output: 'curl: (6) Could not resolve host: astral.sh', rewardTxt: '0' })).kind).toBe(
      'infra',
    );
    expect(judgeVerifier(run({ output: '/usr/bin/python3: No module named pytest', rewardTxt: '0' })).kind).toBe(
      'infra',
    );
    expect(judgeVerifier(run({ exitCode: 127, rewardTxt: '0' })).kind).toBe('infra');
    expect(judgeVerifier(run({ timedOut: true, exitCode: null, rewardTxt: '0' }))).toMatchObject({
      kind: 'infra',
      reason: expect.stringMatching(/did not finish within its 60 s/),
    });
    expect(judgeVerifier(run({ missingInterpreter: '/bin/bash', exitCode: 127 }))).toMatchObject({
      kind: 'infra',
      reason: expect.stringMatching(/\/bin\/bash .* is not in the image/),
    });
    // A build log the script redirected into counts too (config-push writes its kotlinc errors there).
    expect(
      judgeVerifier(run({ otherLogs: '/tests/test.sh: line 9: kotlinc: command not found', rewardTxt: '0' })),
    ).toMatchObject({ kind: 'infra', reason: expect.stringMatching(/kotlinc/) });
  });

  test('a verifier that ran and wrote a reward grades the delivery, whatever its exit code', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }).filter((c) => c !== 127),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (code, r) => {
          const v = judgeVerifier(run({ exitCode: code, rewardTxt: String(r) }));
          return v.kind === 'reward' && v.rewards.reward === Number(String(r));
        },
      ),
    );
  });

  test('missing pieces are read from the verifier’s own lines (bash and dash formats)', () => {
    expect(
      missingPieces('/tests/test.sh: 3: uvx: not found\n/tests/x.sh: line 1: make: command not found'),
    ).toMatchObject({
      commands: ['uvx', 'make'],
    });
  });
});

describe('steps: min_reward and the trial reward', () => {
  test('a number gates `reward`, an object gates each key, a missing key fails', () => {
    expect(meetsMinReward(1, { reward: 1 })).toBe(true);
    expect(meetsMinReward(1, { reward: 0 })).toBe(false);
    expect(meetsMinReward(0.5, { other: 1 })).toBe(false);
    expect(meetsMinReward({ a: 0.5, b: 1 }, { a: 0.5, b: 1 })).toBe(true);
    expect(meetsMinReward({ a: 0.5, b: 1 }, { a: 0.5 })).toBe(false);
    expect(meetsMinReward(null, {})).toBe(true);
  });

  test('mean: per key over the steps with a result, a missing key counting 0; final: the last', () => {
    expect(trialRewards([{ reward: 1 }, { reward: 0 }, { reward: 0.5 }], 'mean')).toEqual({ reward: 0.5 });
    expect(trialRewards([{ a: 1 }, { b: 1 }], 'mean')).toEqual({ a: 0.5, b: 0.5 });
    expect(trialRewards([{ reward: 1 }, { reward: 0 }], 'final')).toEqual({ reward: 0 });
    const rewards = fc.array(fc.record({ reward: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1 });
    fc.assert(
      fc.property(rewards, (steps) => {
        const m = trialRewards(steps, 'mean').reward!;
        const vals = steps.map((s) => s.reward);
        return m >= Math.min(...vals) - 1e-12 && m <= Math.max(...vals) + 1e-12;
      }),
    );
  });
});

describe('env templates', () => {
  test("resolved from the host with defaults; an unset one is named; heldout's own are never passed", () => {
    const r = resolveTemplates(
      { A: `\${X}`, B: `\${Y:-dflt}`, C: 'literal', D: `\${OPENAI_API_KEY}`, E: `\${HELDOUT_JUDGE_API_KEY:-none}` },
      { X: 'x', OPENAI_API_KEY: 'sk-real', HELDOUT_JUDGE_API_KEY: 'secret' },
    );
    expect(r.env).toEqual({ A: 'x', B: 'dflt', C: 'literal', D: '', E: 'none' });
    expect(r.missing).toEqual(['OPENAI_API_KEY']);
    expect(r.withheld).toEqual(['HELDOUT_JUDGE_API_KEY', 'OPENAI_API_KEY']);
  });
});

describe('the reward check', () => {
  test('a key, `reward`, the only key, or the mean of all; one outside [0, 1] is the setup fault, never clamped', () => {
    expect(rewardScore('r.json', 'b', { a: 1, b: 0.25 })).toEqual({ score: 0.25, evidence: 'r.json b = 0.25' });
    expect(rewardScore('r.json', 'c', { a: 1 }).score).toBe(0);
    expect(rewardScore('r.json', undefined, { reward: 0.5, x: 1 }).score).toBe(0.5);
    expect(rewardScore('r.json', undefined, { only: 0.75 }).score).toBe(0.75);
    expect(rewardScore('r.json', undefined, { a: 1, b: 0 })).toEqual({
      score: 0.5,
      evidence: 'r.json mean of a, b = 0.5',
    });
    expect(() => rewardScore('r.json', undefined, { reward: 3 })).toThrow(CheckSetupError);
    expect(() => rewardScore('r.json', 'checks_total', { reward: 0, checks_total: 4 })).toThrow(
      /checks_total = 4 is outside \[0, 1\]/,
    );
    expect(() => rewardScore('r.json', 'reward', { reward: -0.5 })).toThrow(CheckSetupError);
  });
});
