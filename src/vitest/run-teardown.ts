/**
 * The main process's part of a run's teardown (issue 17). Cases run in Vitest's worker processes, so a SIGINT,
 * SIGTERM or SIGHUP sent to the main process alone (what CI and supervisors send) reaches none of them: Vitest
 * exits at once and its workers would go on as orphans, their containers running to their wall budget. So before
 * Vitest's own handler runs, the main process stops its workers (each removes what it runs on SIGTERM), then
 * removes whatever of the run is still there, by run id, on every backend the run may use.
 */
import {
  BACKENDS,
  childPids,
  installSignalCleanup,
  processAlive,
  registerCleanup,
  type SandboxBackend,
  type SandboxKind,
  stopReason,
} from '../sandbox/index.js';

/** How long the workers get to remove their sandboxes before they are killed (each removal is a few engine calls). */
const WORKER_GRACE_MS = 20_000;

async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = pids.filter(processAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = left.filter(processAlive);
  }
  return left;
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Stops this process's workers, then removes what is left of run `runId` on the backends `sandbox` may use. */
export async function stopRun(runId: string, sandbox: SandboxKind): Promise<void> {
  const workers = childPids();
  signalAll(workers, 'SIGTERM');
  signalAll(await waitGone(workers, WORKER_GRACE_MS), 'SIGKILL');
  const backends: SandboxBackend[] = sandbox === 'auto' ? Object.values(BACKENDS) : [BACKENDS[sandbox]];
  await Promise.all(backends.map((b) => b.cleanup(runId).catch(() => undefined)));
  const reason = stopReason();
  if (reason) {
    process.stderr.write(
      `heldout: stopped by ${reason}: the workers are stopped and run ${runId}'s sandboxes removed; heldout run --resume --out <the same dir> continues it\n`,
    );
  }
}

/**
 * Arms the teardown of run `runId` in this (the main) process: on SIGINT/SIGTERM/SIGHUP it runs before Vitest's
 * handler, and at an exit without a signal the workers are told to stop. Returns the disarm function (the run's end).
 */
export function armRunTeardown(runId: string, sandbox: SandboxKind): () => void {
  installSignalCleanup({ takeOver: true, timeoutMs: WORKER_GRACE_MS + 30_000 });
  let disarm = armed.get(runId);
  if (!disarm) {
    const unregister = registerCleanup(
      () => stopRun(runId, sandbox),
      () => signalAll(childPids(), 'SIGTERM'),
    );
    disarm = () => {
      unregister();
      armed.delete(runId);
    };
    armed.set(runId, disarm);
  }
  return disarm;
}

/** One teardown per run, however many projects carry the plugin. */
const armed = new Map<string, () => void>();
