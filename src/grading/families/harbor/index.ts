/**
 * The harbor family: a Harbor / Terminal-Bench task run as Harbor runs it. Its case run is one trial in the task's
 * own container (trial-run.ts); the verifier's reward, never the agent's exit code, decides the case, so the family
 * replaces the run gates with the artifact gates alone. `heldout run --oracle` runs the task's solution/.
 */
import { runGates } from '../../gates.js';
import { gateFailed } from '../../grading-context.js';
import type { FamilyStrategy } from '../types.js';
import { harborDir, runHarborTrial } from './trial-run.js';

/** Harbor's strategy: the trial in place of the plain run, the task's solution/ as the oracle, no run gates. */
export const harbor: FamilyStrategy = {
  runCase: runHarborTrial,
  oracle: (commission) => {
    const dir = harborDir(commission);
    return dir ? { label: 'oracle', dir } : null;
  },
  grading: {
    // Harbor verifies whatever state the agent left, whatever its exit: only the output and artifact gates apply.
    gates: (ctx) => {
      const { outputDir, commission, execution } = ctx.input;
      // The output budget binds a trial as any case: outputs past it are cut, and the case fails its gate.
      if (execution?.outputLimit)
        return gateFailed(ctx, 'output-limit', `${execution.outputLimit}; only what fits was kept`);
      const gates = runGates({ execution: null, outputDir, commission });
      ctx.gates = gates;
      if (!gates.passed) return gateFailed(ctx, gates.gate!, gates.reason!);
    },
  },
};
