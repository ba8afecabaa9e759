/**
 * The case's output budget over a Harbor trial's copies out of its container (the agent's /logs/agent, the declared
 * artifacts, /logs/artifacts): each copy gets what the case's output directory has left, so together they stay
 * within the bound every case has (DESIGN's output budget, issue 17); the first copy past it says why, and the case
 * fails the `output-limit` gate. The verifier's own logs are the evaluator's and are not charged to the delivery.
 */
import path from 'node:path';
import { describeExcess, type OutputLimits, outputsUsage, type TrialContainer } from '../../../sandbox/index.js';

export class TrialOutputs {
  /** Why a copy stopped short (the first one), or null while everything fit. */
  over: string | null = null;

  constructor(
    private readonly outDir: string,
    private readonly limits: OutputLimits | undefined,
  ) {}

  /** `trial.get(from, to)` within what is left of the budget; resolves false when `from` does not exist. */
  async get(trial: TrialContainer, from: string, to: string): Promise<boolean> {
    const all = this.limits;
    if (!all) return (await trial.get(from, to)) !== false;
    const used = await outputsUsage(this.outDir);
    const above = path.relative(this.outDir, path.dirname(to)).split(path.sep).filter(Boolean).length;
    const left: OutputLimits = {
      bytes: Math.max(0, all.bytes - used.bytes),
      entries: Math.max(0, all.entries - used.entries),
      depth: all.depth - above,
    };
    const got = await trial.get(from, to, left);
    if (typeof got === 'string' && !this.over) {
      // Said of the whole budget, not of what this copy had left of it.
      const what = (['bytes', 'entries', 'depth'] as const).find((w) => describeExcess(left, w) === got);
      this.over = what ? describeExcess(all, what) : got;
    }
    return got !== false;
  }
}
