// Deadlines in heldout's own tests end a test that hangs; they never time one that is merely slow. The machine is
// shared and busy (other test runs, Docker builds), so each deadline is many times what an idle machine needs, and
// it is scaled up on a machine with fewer cores, or more load, than the 4-core idle one the figures are set for.
// `HELDOUT_TEST_TIMEOUT_MS` sets the test/hook deadline outright (0: none, Vitest's own meaning of 0).
import os from 'node:os';

/**
 * How much slower than a 4-core idle machine this one may be: fewer cores, and load beyond its cores when the run
 * starts (counted up to 4×: past that a deadline is only longer, not more honest).
 */
export function machineScale(cores = os.availableParallelism(), load1 = os.loadavg()[0] ?? 0): number {
  return Math.max(1, 4 / cores) * Math.min(4, Math.max(1, load1 / cores));
}

/**
 * The deadline of one test or hook (vitest.config.ts's `testTimeout` and `hookTimeout`): 10 minutes on a 4-core
 * idle machine, where the slowest test file here needs under a minute and a half, scaled by `machineScale` (20
 * minutes on 2 idle cores, up to 80 on 2 busy ones). Tests set none of their own.
 */
export function hangDeadlineMs(env: NodeJS.ProcessEnv = process.env): number {
  const set = env.HELDOUT_TEST_TIMEOUT_MS?.trim();
  if (set && Number.isFinite(Number(set))) return Number(set);
  return Math.round(10 * 60_000 * machineScale());
}

/**
 * How long a test waits for something it expects to happen soon (a child to print, a ledger line to land, a
 * request to reach the stub) before it fails: a minute on a 4-core idle machine, where it takes milliseconds;
 * scaled by `machineScale`.
 */
export const WAIT_MS = Math.round(60_000 * machineScale());

/** Options for Vitest's own `vi.waitUntil` / `vi.waitFor`: poll often, give up only after `WAIT_MS`. */
export const UNTIL = { timeout: WAIT_MS, interval: 10 } as const;
