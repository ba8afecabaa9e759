/**
 * What `heldout import harbor` makes of a verifier's reward files: the score is `reward` where the verifier writes
 * it (in reward.json or as reward.txt, which Harbor merges in), else each key reward.json gets; the other numbers
 * are recorded only. A task without solution/ imports, with a note saying what that means for --oracle.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadCommission } from '../../src/commission/index.js';
import { rewardKeys } from '../../src/importers/harbor-rewards.js';
import { importHarbor } from '../../src/importers/index.js';
import { dataDir, tmp } from './helpers.js';

const fixture = (name: string) => path.resolve(import.meta.dirname, '../../fixtures/harbor', name);
const multiReward = path.join(dataDir, 'harbor/harbor-cookbook/multi-reward');

async function imported(src: string) {
  const out = path.join(tmp('harbor-reward'), 'c');
  await importHarbor(src, out);
  return { c: await loadCommission(out), notes: readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8') };
}

describe('the score a verifier writes', () => {
  test('reward.txt beside a detail reward.json: `reward` is the score, the counts are recorded', () => {
    const r = rewardKeys([
      {
        path: 'tests/test.sh',
        text: `echo 0 > /logs/verifier/reward.txt\nprintf '{"checks_passed": %d, "checks_total": 4}' "$p" > /logs/verifier/reward.json`,
      },
    ]);
    expect(r).toMatchObject({ keys: ['reward'], recorded: ['checks_passed', 'checks_total'], writesTxt: true });
  });

  test('a text field or a boolean is no reward key; an escaped JSON in a shell echo is read', () => {
    const r = rewardKeys([
      {
        path: 'tests/test.sh',
        text: `echo "{\\"correctness\\": $c, \\"note\\": \\"by test.sh\\", \\"flaky\\": false}" > /logs/verifier/reward.json`,
      },
    ]);
    expect(r).toMatchObject({ keys: ['correctness'], recorded: [], unreadJson: false });
    const withReward = rewardKeys([
      {
        path: 'tests/t.py',
        text: `json.dump({"reward": 1, "unsupported": 0, "note": f"{n} checks"}, open("/logs/verifier/reward.json", "w"))`,
      },
    ]);
    expect(withReward).toMatchObject({ keys: ['reward'], recorded: ['unsupported'] });
  });

  test('fixtures/harbor/reward-detail: one dimension `reward`, harbor.score = [reward], the counts named as recorded', async () => {
    const { c, notes } = await imported(fixture('reward-detail'));
    expect(c.config.harbor!.score).toEqual(['reward']);
    expect(c.rubric.dimensions.map((d) => [d.id, d.max, d.items[0]])).toEqual([
      ['reward', 100, expect.objectContaining({ check: 'reward', key: 'reward', points: 100 })],
    ]);
    expect(notes).toMatch(/reward\.json's other numbers \(checks_passed, checks_total\) are recorded/);
    expect(notes).toMatch(/Harbor takes from reward\.txt when reward\.json has none/);
  });

  test('fixtures/harbor/reward-note: no solution/ imports, saying what --oracle and calibration then do', async () => {
    const { c, notes } = await imported(fixture('reward-note'));
    expect(c.config.harbor!.score).toEqual(['reward']);
    expect(notes).toContain('the task has no solution/ (solve.sh): `heldout run --oracle` says so and runs nothing');
  });

  test.skipIf(!existsSync(multiReward))('the cookbook multi-reward: its two keys are the score', async () => {
    const { c } = await imported(multiReward);
    expect(c.config.harbor!.score).toEqual(['correctness', 'performance']);
  });
});
