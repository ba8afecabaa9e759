/**
 * Turns on the docker backend (issue 24): given the caller's concurrency slot as a `turn`, a case's container is
 * staged, created and started ahead, its shell holding before the entry command; the command starts only once the
 * turn is granted, and the turn is handed back as soon as the command has exited, before the container is removed.
 * Against the real engine; without one the file is skipped and says so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dockerBackend, engineAnswers, ensureRuntimeImage, type Turn } from '../../src/sandbox/index.js';
import { waitFor } from '../hardening/helpers.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { dockerPs } from './behaviours.js';
import { execFileP, makeCase, runId, scratch, spec } from './helpers.js';

const engine = await engineAnswers(WAIT_MS);

/** A turn the test grants by hand, counting grants and releases. */
function manualTurn() {
  let grant: (() => void) | null = null;
  const granted = new Promise<void>((r) => {
    grant = r;
  });
  const state = { asked: 0, releases: 0, grant: () => grant!() };
  const turn: Turn = async () => {
    state.asked++;
    await granted;
    let done = false;
    return () => {
      if (!done) state.releases++;
      done = true;
    };
  };
  return { turn, state };
}

async function runningOf(id: string): Promise<string[]> {
  const { stdout } = await execFileP('docker', [
    'ps',
    '-q',
    '--filter',
    `label=heldout.run=${id}`,
    '--filter',
    'status=running',
  ]);
  return stdout.split('\n').filter(Boolean);
}

describe.skipIf(!engine)(engine ? 'docker turns' : 'docker turns — skipped: no docker engine answers', () => {
  let s: Awaited<ReturnType<typeof scratch>>;
  let input: string;
  beforeAll(async () => {
    await ensureRuntimeImage();
    s = await scratch('turns');
    input = (await makeCase(join(s.root, 'cases'), 'c', 'seven')).inputPath;
  });
  afterAll(() => s?.cleanup());

  test('the command starts only on its turn, its wall time counts from there, and the turn is back before removal', async () => {
    const id = runId('turn-held');
    const out = join(s.root, 'out-held');
    const { turn, state } = manualTurn();
    let existedAtRelease: boolean | null = null;
    const watched: Turn = async (signal) => {
      const release = await turn(signal);
      return () => {
        // Synchronous on purpose: whether the container is still there at the very moment the turn comes back.
        existedAtRelease ??=
          execFileSync('docker', ['ps', '-a', '-q', '--filter', `label=heldout.run=${id}`], {
            encoding: 'utf8',
          }).trim() !== '';
        release();
      };
    };
    const running = dockerBackend.run(
      spec({
        runId: id,
        command:
          'echo started > /out/started; read -r x 2>/dev/null && echo stdin-open > /out/stdin; echo to-out; echo to-err >&2; exit 3',
        deliveryDir: s.delivery('ok'),
        inputPath: input,
        outputDir: out,
      }),
      { turn: watched },
    );
    // The container is up and holding: its command has not run.
    await waitFor(async () => (await runningOf(id)).length === 1, 'the held container to run');
    await waitFor(() => state.asked === 1, 'the turn to be asked for');
    expect(existsSync(join(out, 'started'))).toBe(false);
    state.grant();
    const x = await running;
    expect(x.exitCode).toBe(3);
    expect(x.stdout).toBe('to-out\n');
    expect(x.stderr).toBe('to-err\n');
    // The command's stdin is /dev/null, not the attach stream the turn's line came through.
    expect(readdirSync(out).filter((n) => !n.startsWith('.'))).toEqual(['started']);
    expect(x.outputs).toEqual(['started']);
    expect(state.releases).toBe(1);
    expect(existedAtRelease).toBe(true);
    expect(await dockerPs(id)).toEqual([]);
  });

  test('a held case still times out by its own wall clock, counted from its turn', async () => {
    const id = runId('turn-timeout');
    const { turn, state } = manualTurn();
    state.grant();
    const x = await dockerBackend.run(
      spec({
        runId: id,
        command: 'sleep 60',
        deliveryDir: s.delivery('ok'),
        inputPath: input,
        outputDir: join(s.root, 'out-timeout'),
        limits: { wallSeconds: 1, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1024 * 1024 },
      }),
      { turn },
    );
    expect(x.timedOut).toBe(true);
    expect(x.wallMs).toBeGreaterThanOrEqual(1000);
    expect(state.releases).toBe(1);
    expect(await dockerPs(id)).toEqual([]);
  });

  test('an abort while a case waits for its turn leaves nothing, and a turn granted later is handed back', async () => {
    const id = runId('turn-abort');
    const { turn, state } = manualTurn();
    const ac = new AbortController();
    const running = dockerBackend.run(
      spec({
        runId: id,
        command: 'echo ran > /out/ran',
        deliveryDir: s.delivery('ok'),
        inputPath: input,
        outputDir: join(s.root, 'out-abort'),
      }),
      { turn, signal: ac.signal },
    );
    await waitFor(async () => (await runningOf(id)).length === 1, 'the held container to run');
    ac.abort(new Error('stopped by the test'));
    await expect(running).rejects.toThrow(/stopped by the test/);
    expect(await dockerPs(id)).toEqual([]);
    expect(existsSync(join(s.root, 'out-abort', 'ran'))).toBe(false);
    state.grant();
    await waitFor(() => state.releases === 1, 'the late turn to be handed back');
  });
});
