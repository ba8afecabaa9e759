/**
 * Teardown (DESIGN §7): what this process has running right now (containers, process groups, staged volumes) is
 * removed on SIGINT / SIGTERM / SIGHUP before the signal is re-raised, and as a last resort at exit. Backends
 * register what they start; what a killed run left behind is each backend's `cleanup` (`heldout gc`, and the sweep
 * every run starts with). A worker process (a child with an IPC channel) also tears down when its parent is gone.
 */
import os from 'node:os';

interface Cleanup {
  now: () => void | Promise<void>;
  atExit: () => void;
}

const cleanups = new Set<Cleanup>();

/**
 * Registers a cleanup run on those signals (awaited, bounded) and at exit, where nothing can be awaited: there
 * `atExit` runs instead when given (a synchronous last resort), else `fn` is started. Returns its unregister function.
 */
export function registerCleanup(fn: () => void | Promise<void>, atExit?: () => void): () => void {
  const entry: Cleanup = { now: fn, atExit: atExit ?? (() => void fn()) };
  cleanups.add(entry);
  return () => cleanups.delete(entry);
}

/** Runs every registered cleanup at once, waiting at most `timeoutMs`. Never rejects; resolves with how many ran. */
export async function cleanupNow(timeoutMs = 10_000): Promise<number> {
  const jobs = [...cleanups].map((c) =>
    Promise.resolve()
      .then(c.now)
      .catch(() => {}),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(jobs),
    new Promise((r) => {
      timer = setTimeout(r, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  return jobs.length;
}

let stopping: string | null = null;

/**
 * Why this process is being torn down (`SIGTERM`, `the parent process is gone`), or null while it runs. A case that
 * ends after this is set was cut short by the teardown: its outcome is no verdict and must not be recorded.
 */
export function stopReason(): string | null {
  return stopping;
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;
let handling = false;
let timeoutMs = 10_000;
/** Listeners that were there before a take-over: they run once the cleanup is done. */
const displaced = new Map<NodeJS.Signals, ((...args: unknown[]) => void)[]>();

function handler(signal: NodeJS.Signals): void {
  if (handling) return;
  handling = true;
  stopping ??= signal;
  void cleanupNow(timeoutMs).finally(() => {
    const before = displaced.get(signal) ?? [];
    if (before.length > 0) {
      // Vitest's own handler restores the terminal and exits: let it, now that nothing is left. The exit code is
      // the signal's, whatever the run that was cut short sets meanwhile (a failed test, a worker that died): the
      // last word is an exit listener's.
      const code = 128 + (os.constants.signals[signal] ?? 0);
      process.exitCode = code;
      process.once('exit', () => {
        process.exitCode = code;
      });
      for (const fn of before) fn(signal, os.constants.signals[signal]);
      return;
    }
    for (const s of SIGNALS) process.removeListener(s, handler);
    // Re-raise: with our listener gone, the default action (terminate) applies unless someone else listens.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    else process.exitCode = 128 + (os.constants.signals[signal] ?? 0);
    handling = false;
  });
}

/**
 * Installs SIGINT/SIGTERM/SIGHUP handlers (once per process) that run every cleanup, then re-raise the signal so
 * the process ends as it would have. Also runs the exit variants at `exit`. With `takeOver`, the handlers already
 * listening (Vitest's, which exit at once) are set aside and run only after the cleanup; `timeoutMs` bounds it.
 */
export function installSignalCleanup(options: { takeOver?: boolean; timeoutMs?: number } = {}): void {
  if (options.timeoutMs !== undefined) timeoutMs = Math.max(timeoutMs, options.timeoutMs);
  if (options.takeOver) {
    for (const s of SIGNALS) {
      const others = process.rawListeners(s).filter((l) => l !== handler) as ((...args: unknown[]) => void)[];
      for (const l of others) process.removeListener(s, l);
      displaced.set(s, [...(displaced.get(s) ?? []), ...others]);
    }
  }
  if (installed) return;
  installed = true;
  for (const s of SIGNALS) process.on(s, handler);
  process.on('exit', () => {
    for (const c of [...cleanups]) {
      try {
        c.atExit();
      } catch {
        // exiting anyway
      }
    }
  });
}

let watching = false;

/**
 * Makes this process tear down when its parent is gone (a Vitest worker whose main process was SIGKILLed, or
 * exited on a signal without waiting): what it runs is removed and it exits, rather than going on as an orphan
 * that starts sandboxes and writes case records nobody asked for. Only for a child with an IPC channel (a worker):
 * a command run from a shell that goes away keeps running. The parent counts as gone once this process is
 * re-parented; a closed channel makes the check frequent.
 */
export function dieWithParent(): void {
  if (watching || typeof process.send !== 'function') return;
  watching = true;
  const parent = process.ppid;
  let timer: NodeJS.Timeout;
  const check = () => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stopping ??= 'the parent process is gone';
    void cleanupNow(timeoutMs).finally(() => process.exit(1));
  };
  timer = setInterval(check, 500);
  timer.unref();
  process.once('disconnect', () => {
    clearInterval(timer);
    timer = setInterval(check, 50);
    timer.unref();
  });
}
