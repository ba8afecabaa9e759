/**
 * A run's place in its process's life (issue 17): no case starts or is recorded once the process is being torn
 * down, and the first use of a backend collects what runs whose process is gone left on it.
 */
import { type SandboxBackend, stopReason } from '../sandbox/index.js';

/** Throws once this process is being torn down (a signal, or its parent gone): no case starts or is recorded then. */
export function notStopping(): void {
  const reason = stopReason();
  if (reason) throw new Error(`stopped: the run is being torn down (${reason}); this case was not recorded`);
}

const swept = new WeakSet<SandboxBackend>();

/**
 * Removes what runs whose process is gone left on this backend (a SIGKILLed run's containers and cgroups), once per
 * process; a live run's are kept. A backend that cannot be reached right now is left for the run itself to report.
 */
export async function sweepDeadRuns(backend: SandboxBackend): Promise<void> {
  if (swept.has(backend)) return;
  swept.add(backend);
  await backend.cleanup(undefined, { keepLive: true }).catch(() => undefined);
}
