import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sandboxTempDir } from '../../util/index.js';
import { copyOutputs } from '../outputs.js';
import { CheckSetupError, defineCheck, lastLines } from './context.js';

/** `command`: an evaluator command in a sandbox; full points on exit 0, or the reward it writes to `{output}`. */
export const commandCheck = defineCheck('command', async (item, ctx) => {
  if (!ctx.runCommand)
    throw new CheckSetupError('a command check needs a command runner (none was given to the grader)');
  // The command may write into {output}: give it a copy so the case's own outputs stay as the delivery left them.
  const scratch = sandboxTempDir('heldout-check-');
  try {
    // A reward file is the verifier's to write: one the delivery left in its outputs is not carried over.
    copyOutputs(ctx.outputDir, scratch, item.score === 'reward' ? REWARD_FILES : undefined);
    const mounts = { output: scratch, ...(ctx.treeDir ? { tree: ctx.treeDir } : {}) };
    const r = await ctx.runCommand(item.run, { mounts, timeoutSeconds: item.timeoutSeconds, image: item.image });
    const tail = lastLines(`${r.stdout}\n${r.stderr}`, 3);
    if (item.score === 'exit') {
      return {
        score: r.exitCode === 0 ? 1 : 0,
        evidence: `\`${item.run}\` exited ${r.exitCode ?? 'by a signal'}${tail ? `: ${tail}` : ''}`,
      };
    }
    const reward = readReward(r.outputDir ?? scratch);
    if (reward === null)
      return { score: 0, evidence: `\`${item.run}\` (exit ${r.exitCode}) wrote no readable reward.txt or reward.json` };
    return { score: Math.min(1, Math.max(0, reward)), evidence: `\`${item.run}\` reward ${reward}` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

const REWARD_FILES: ReadonlySet<string> = new Set(['reward.txt', 'reward.json']);

/** A reward from `reward.txt` (a number) or `reward.json` (`{reward}`), or null. */
export function readReward(dir: string): number | null {
  const txt = path.join(dir, 'reward.txt');
  if (existsSync(txt)) {
    const s = readFileSync(txt, 'utf8').trim();
    const n = s === '' ? Number.NaN : Number(s);
    if (Number.isFinite(n)) return n;
  }
  const json = path.join(dir, 'reward.json');
  if (existsSync(json)) {
    try {
      const n = Number((JSON.parse(readFileSync(json, 'utf8')) as { reward?: unknown }).reward);
      if (Number.isFinite(n)) return n;
    } catch {
      return null;
    }
  }
  return null;
}
