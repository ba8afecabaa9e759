/** The process backend's child: started detached, killed as a group, waited for with capped output. */
import { type ChildProcess, spawn } from 'node:child_process';
import { type Captured, capture, type Ended } from '../execution.js';
import { watchOutputs } from '../output-limits.js';
import type { SandboxSpec } from '../protocol.js';
import { registerCleanup } from '../teardown.js';
import type { Cgroup } from './cgroup.js';

/** How the child ended, what it printed, and why its outputs stopped it (past the output budget), if they did. */
export interface Launched {
  ended: Ended;
  captured: Captured;
  outputLimit: string | null;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // group gone
  }
}

/**
 * Starts the outer script in its own process group and waits for it: wall-clock kill of the whole group (and its
 * cgroup), a kill once `outDir` is past the output budget, capped output, OOM from the cgroup. Rejects when
 * aborted or not spawned.
 */
export function spawnAndWait(
  spec: SandboxSpec,
  outer: string,
  env: Record<string, string>,
  stage: string,
  cgroup: Cgroup | null,
  outDir: string,
  signal?: AbortSignal,
): Promise<Launched> {
  return new Promise<Launched>((resolvePromise, reject) => {
    const { stdout, stderr } = capture(spec.limits.outputBytes);
    const t0 = performance.now();
    const child = spawn('/bin/sh', ['-c', outer], {
      cwd: stage,
      env,
      detached: true, // own process group: the wall-clock kill takes every descendant
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    const unregister = registerCleanup(async () => {
      killGroup(child);
      await cgroup?.destroy();
      await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
    });
    let timedOut = false;
    let aborted = false;
    let exited: { code: number | null; sig: NodeJS.Signals | null } | null = null;
    let wallMs = 0;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
      void cgroup?.destroy();
    }, spec.limits.wallSeconds * 1000);
    const onAbort = () => {
      aborted = true;
      killGroup(child);
    };
    const watch = watchOutputs(outDir, spec.limits.out, () => {
      killGroup(child);
      void cgroup?.destroy();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (b: Buffer) => stdout.push(b));
    child.stderr!.on('data', (b: Buffer) => stderr.push(b));
    child.on('error', (err) => {
      clearTimeout(timer);
      watch.stop();
      unregister();
      reject(err);
    });
    child.on('exit', (code, sig) => {
      wallMs = Math.round(performance.now() - t0);
      exited = { code, sig };
      clearTimeout(timer);
      watch.stop();
      // the command is done: whatever it left running goes too (as a container's end would take it)
      killGroup(child);
      // a process that escaped the group may still hold the pipes: stop reading after a grace period
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        void finish();
      }, 2000).unref();
    });
    child.on('close', () => {
      void finish();
    });
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      signal?.removeEventListener('abort', onAbort);
      unregister();
      if (aborted) return reject(signal?.reason ?? new Error('sandbox run aborted'));
      const oom = cgroup ? (await cgroup.oomKills()) > 0 : false;
      const e = exited ?? { code: null, sig: null };
      const ended = { status: e.code, signal: e.sig, timedOut, oom, wallMs };
      resolvePromise({ ended, captured: { stdout, stderr }, outputLimit: watch.exceeded });
    };
  });
}
