import { show } from '../json-path.js';
import { type CheckResult, CheckSetupError, defineCheck } from './context.js';
import { readOutputJson } from './read.js';

/** `reward`: the share of its points a reward file (Harbor's reward.json) gives, by `rewardScore`. */
export const rewardCheck = defineCheck('reward', (item, ctx) =>
  rewardScore(item.file, item.key, readOutputJson(ctx.outputDir, item.file)),
);

/**
 * A reward file's share of its points (Harbor's reward.json: a flat object of numbers). With `key`, that key's value;
 * without, `reward` when present, else the only key, else the mean of all keys. A value outside [0, 1] is the
 * evaluator's setup fault (`CheckSetupError`), never clamped into full marks or 0.
 */
export function rewardScore(file: string, key: string | undefined, doc: unknown): CheckResult {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    return { score: 0, evidence: `${file} is not an object of rewards (found ${show(doc)})` };
  const rewards = doc as Record<string, unknown>;
  const keys = Object.keys(rewards);
  let value: unknown;
  let what: string;
  if (key !== undefined) {
    if (!Object.hasOwn(rewards, key))
      return { score: 0, evidence: `${file} has no reward ${key} (keys: ${keys.join(', ') || 'none'})` };
    [value, what] = [rewards[key], key];
  } else if (Object.hasOwn(rewards, 'reward') || keys.length === 1) {
    what = Object.hasOwn(rewards, 'reward') ? 'reward' : keys[0]!;
    value = rewards[what];
  } else {
    const nums = keys.map((k) => rewards[k]);
    if (nums.length === 0 || !nums.every((n) => typeof n === 'number'))
      return { score: 0, evidence: `${file} holds no numeric rewards (found ${show(doc)})` };
    value = (nums as number[]).reduce((a, b) => a + b, 0) / nums.length;
    what = `mean of ${keys.join(', ')}`;
  }
  if (typeof value !== 'number' || !Number.isFinite(value))
    return { score: 0, evidence: `${file} ${what} is not a number (found ${show(value)})` };
  // A reward outside [0, 1] is on a scale heldout does not know (a count, a percentage): never clamped into marks.
  if (value < 0 || value > 1)
    throw new CheckSetupError(`${file} ${what} = ${value} is outside [0, 1]: no share of the points to grade`);
  return { score: value, evidence: `${file} ${what} = ${value}` };
}
