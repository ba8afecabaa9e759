/**
 * Issue 13 acceptance: stopping the engine in the middle of a run marks the unfinished cases `infra-error` (not
 * scored 0); `heldout run --resume` into the same --out runs only those, and the final figures equal a clean run's.
 *
 * This test kills the machine's shared docker engine (SIGKILL to dockerd, found with `pidof`). It is safe in CI
 * because it restores the engine exactly as `.ci/run` starts it (`dockerd --bridge=none --iptables=false`), both
 * right after the interrupted run and again in afterAll whatever happened, and it kills only at a moment when no
 * container but its own runs. A docker test of another file that starts a container in the second or so the engine is
 * away would still fail: run this file apart from the others (its own Vitest project or CI step) where tests run in
 * parallel. It runs only when asked for: HELDOUT_ALLOW_ENGINE_KILL=1, which `.ci/run` sets when it started the engine
 * itself (a machine it owns); `npm test` on a workstation or a shared runner never touches the engine's process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { engineAnswers, gc } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { BIN, cleanEnv, execFileP, figures, REPO } from '../scale/figures.js';

const engine = await engineAnswers(WAIT_MS);
const allowed = process.env.HELDOUT_ALLOW_ENGINE_KILL === '1';
const killable = allowed && engine && process.getuid?.() === 0;
const DELIVERY = join(REPO, 'fixtures/deliveries/log-triage-reference');

function heldoutRun(out: string, extra: string[] = []) {
  const child = spawn(
    process.execPath,
    [BIN, 'run', 'tasks/log-triage', '--delivery', DELIVERY, '--sandbox', 'docker', '--out', out, ...extra],
    { cwd: REPO, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout.on('data', (b) => {
    log += b;
  });
  child.stderr.on('data', (b) => {
    log += b;
  });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, log: () => log };
}

/** Every case record (`<case>-t<trial>.meta.json`) under the run's cases/ directory, with its mtime and status. */
function metas(out: string): Map<string, { mtimeMs: number; status: string }> {
  const found = new Map<string, { mtimeMs: number; status: string }>();
  const root = join(out, 'cases');
  if (!existsSync(root)) return found;
  for (const rel of readdirSync(root, { recursive: true }) as string[]) {
    if (!rel.endsWith('.meta.json')) continue;
    const file = join(root, rel);
    try {
      const meta = JSON.parse(readFileSync(file, 'utf8')) as { grade: { status: string } };
      found.set(basename(rel), { mtimeMs: statSync(file).mtimeMs, status: meta.grade.status });
    } catch {
      // being written right now
    }
  }
  return found;
}

/**
 * True when no container but this run's is running on the engine: the moment to kill it with the least harm to
 * other test files using the shared engine at the same time (the run's id is in its case records).
 */
async function onlyOursRunning(out: string): Promise<boolean> {
  const root = join(out, 'cases');
  const record = (readdirSync(root, { recursive: true }) as string[]).find((f) => f.endsWith('.meta.json'));
  if (!record) return false;
  const runId = (JSON.parse(readFileSync(join(root, record), 'utf8')) as { runId: string }).runId;
  const ps = async (...filters: string[]) =>
    (await execFileP('docker', ['ps', '-q', ...filters.flatMap((f) => ['--filter', f])])).stdout
      .split('\n')
      .filter(Boolean)
      .sort();
  const all = await ps();
  const ours = await ps(`label=heldout.run=${runId}`);
  return all.every((id) => ours.includes(id));
}

/** A process's state letter from /proc (`Z`: a zombie nobody has reaped yet), or null when it is gone. */
function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** The running dockerd's pid; a killed one may linger as a zombie (its parent, PID 1 here, reaps late). */
async function dockerdPid(): Promise<number | null> {
  const r = await execFileP('pidof', ['dockerd']).catch(() => null);
  const pids = (r?.stdout.trim().split(/\s+/) ?? []).map(Number).filter((p) => Number.isInteger(p) && p > 0);
  return pids.find((p) => procState(p) !== null && procState(p) !== 'Z') ?? null;
}

/**
 * Starts the engine as `.ci/run` does when none answers, and waits until `docker info` works: up to 4 × WAIT_MS (4
 * minutes on an idle machine, scaled to this one), since an engine that has run thousands of containers spends
 * minutes removing their stale network sandboxes at startup.
 * A killed dockerd lingers a while (exiting, then a zombie until PID 1 reaps it) and its pid file makes a new dockerd
 * refuse to start: the pid file of a dead or zombie engine is removed, and the start is retried while none runs.
 */
async function restoreEngine(): Promise<void> {
  if (await engineAnswers(WAIT_MS)) return;
  let lastStart = 0;
  const deadline = Date.now() + 4 * WAIT_MS;
  while (Date.now() < deadline) {
    if (Date.now() - lastStart > 5000 && !(await dockerdPid())) {
      const pidFile = '/var/run/docker.pid';
      if (existsSync(pidFile)) {
        const old = Number(readFileSync(pidFile, 'utf8'));
        if (procState(old) === null || procState(old) === 'Z') rmSync(pidFile, { force: true });
      }
      if (!existsSync(pidFile)) {
        const d = spawn('sh', ['-c', 'nohup dockerd --bridge=none --iptables=false >/tmp/heldout-dockerd.log 2>&1 &'], {
          detached: true,
          stdio: 'ignore',
        });
        d.unref();
        lastStart = Date.now();
      }
    }
    if (
      await execFileP('docker', ['info']).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `dockerd did not answer within ${(4 * WAIT_MS) / 1000} s after restart (see /tmp/heldout-dockerd.log)`,
  );
}

describe.skipIf(!killable)(
  killable
    ? 'engine gone, then resume'
    : `engine gone, then resume — skipped: ${allowed ? 'needs root and an engine' : 'it kills the Docker engine, so it runs only with HELDOUT_ALLOW_ENGINE_KILL=1 (set by .ci/run when it started the engine)'}`,
  () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(os.tmpdir(), 'heldout-engine-gone-'));
    });
    afterAll(async () => {
      await restoreEngine();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('unfinished cases are infra-errors, and --resume runs only those to the clean figures', async () => {
      const clean = join(dir, 'clean');
      const c = heldoutRun(clean, ['--concurrency', '2', '--trials', '2']);
      expect(await c.exited, c.log()).toBe(0);
      const cleanFigures = figures(join(clean, 'summary.json'));
      const total = cleanFigures[0]!.cases.length;
      expect(total).toBeGreaterThan(3);

      // The interrupted run: the engine is killed once two cases are graded.
      const out = join(dir, 'interrupted');
      const r = heldoutRun(out, ['--concurrency', '1', '--trials', '2']);
      let killed = false;
      try {
        while (r.child.exitCode === null) {
          if (
            [...metas(out).values()].filter((m) => m.status !== 'infra-error').length >= 2 &&
            (await onlyOursRunning(out))
          ) {
            const pid = await dockerdPid();
            expect(pid).not.toBeNull();
            process.kill(pid!, 'SIGKILL');
            killed = true;
            // dead once it is gone or a zombie
            while (procState(pid!) !== null && procState(pid!) !== 'Z') await new Promise((res) => setTimeout(res, 50));
            break;
          }
          await new Promise((res) => setTimeout(res, 25));
        }
        await r.exited;
      } finally {
        await restoreEngine();
      }
      expect(killed, r.log()).toBe(true);
      const first = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
      const lt = first.commissions[0];
      const lost = lt.cases.filter((k: { status: string }) => k.status === 'infra-error');
      const graded = lt.cases.filter((k: { status: string }) => k.status !== 'infra-error');
      expect(lost.length, r.log()).toBeGreaterThan(0);
      expect(graded.length).toBeGreaterThanOrEqual(2);
      expect(lt.result.infraErrors).toBe(lost.length);
      for (const k of lost) {
        expect(k.result).toBeNull();
        expect(k.reason).toMatch(/stopped answering/);
      }
      // result.n counts cases with a scored trial, not executions (two trials of one case are one case).
      expect(lt.result.n).toBe(new Set(graded.map((k: { id: string }) => k.id)).size);
      await gc({ runId: first.run.id });

      // Resume: only the lost cases run again.
      const before = metas(out);
      const again = heldoutRun(out, ['--concurrency', '2', '--trials', '2', '--resume']);
      expect(await again.exited, again.log()).toBe(0);
      const after = metas(out);
      const rerun = [...after.keys()].filter((k) => after.get(k)!.mtimeMs !== before.get(k)?.mtimeMs).sort();
      const expected = lost.map((k: { id: string; trial: number }) => `${k.id}-t${k.trial}.meta.json`).sort();
      expect(rerun).toEqual(expected);
      expect(figures(join(out, 'summary.json'))).toEqual(cleanFigures);
    });
  },
);
