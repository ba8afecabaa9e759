/**
 * Issue 13: the swarm backend — each case × trial a one-shot Swarm service — passes the same acceptance behaviours
 * as the docker backend on a single-node swarm, and the example creation commission (tasks/log-triage, reference
 * delivery) gives the same summary.json figures on swarm as on docker (through the built package: `npm run build`
 * first; `npm test` does it). One file, so the swarm is inited once (when the engine is not in one) and left again
 * afterwards: the engine ends as it was found.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSwarmBackend, engineAnswers, ensureRuntimeImage } from '../../src/sandbox/index.js';
import { hangDeadlineMs, WAIT_MS } from '../helpers/deadlines.js';
import { containerBehaviours, sandboxBehaviours } from '../sandbox/behaviours.js';
import { execFileP, LIMITS, makeCase, runId, scratch, spec } from '../sandbox/helpers.js';
import { cleanEnv, figures, REPO } from './figures.js';
import { enterSwarm, leaveSwarm } from './swarm-helpers.js';

const engine = await engineAnswers(WAIT_MS);
const swarm = createSwarmBackend();
const DELIVERY = join(REPO, 'fixtures/deliveries/log-triage-reference');

/** `heldout run` through the library entry (the CLI's --sandbox list is the lead's to extend). */
async function run(sandbox: 'docker' | 'swarm', out: string): Promise<void> {
  const script = `
    const { runHeldout } = await import(${JSON.stringify(join(REPO, 'dist/index.js'))});
    const r = await runHeldout({ commissions: ['tasks/log-triage'], delivery: ${JSON.stringify(DELIVERY)},
      sandbox: ${JSON.stringify(sandbox)}, out: ${JSON.stringify(out)}, concurrency: 4, table: false },
      { reporters: ['dot'] });
    if (!r.summary) { console.error('no summary'); process.exit(3); }`;
  await execFileP(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO,
    env: cleanEnv(),
    // Ends a child that hangs, with the test's own deadline (never one tuned to how long a run takes).
    timeout: hangDeadlineMs(),
    maxBuffer: 16 * 1024 * 1024,
  });
}

async function leftovers(id: string): Promise<string[]> {
  const ps = await execFileP('docker', ['ps', '-a', '-q', '--filter', `label=heldout.run=${id}`]);
  const services = await execFileP('docker', ['service', 'ls', '-q', '--filter', `label=heldout.run=${id}`]).catch(
    () => ({ stdout: '' }),
  );
  const networks = await execFileP('docker', ['network', 'ls', '-q', '--filter', `label=heldout.run=${id}`]);
  const volumes = await execFileP('docker', ['volume', 'ls', '-q', '--filter', `label=heldout.run=${id}`]);
  return [ps, services, networks, volumes].flatMap((r) => r.stdout.split('\n')).filter(Boolean);
}

describe.skipIf(!engine)(engine ? 'swarm backend' : 'swarm backend — skipped: no docker engine answers', () => {
  let inited = false;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(os.tmpdir(), 'heldout-swarm-lt-'));
    inited = await enterSwarm();
    await ensureRuntimeImage();
  });
  afterAll(async () => {
    if (inited) await leaveSwarm();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the engine is a swarm manager the backend accepts', async () => {
    expect(await swarm.available()).toBe(true);
  });

  sandboxBehaviours(
    containerBehaviours(
      () => swarm,
      'swarm',
      (id) => leftovers(id),
    ),
  );

  test('no service, network, volume or container is left after a case', async () => {
    const s = await scratch('swarm-left');
    try {
      const c = await makeCase(`${s.root}/cases`, 'one', 'x');
      const id = runId('swarm-left');
      const x = await swarm.run(
        spec({
          runId: id,
          command: 'echo out; echo err >&2; echo 1 > {output}/r.txt; exit 3',
          deliveryDir: s.delivery('ok'),
          inputPath: c.inputPath,
          outputDir: `${s.root}/out`,
          limits: LIMITS,
        }),
      );
      expect(x.exitCode).toBe(3);
      expect(x.stdout).toBe('out\n');
      expect(x.stderr).toBe('err\n');
      expect(x.outputs).toEqual(['r.txt']);
      expect(await leftovers(id)).toEqual([]);
      const nets = await execFileP('docker', ['network', 'ls', '-q', '--filter', `label=heldout.run=${id}`]);
      const vols = await execFileP('docker', ['volume', 'ls', '-q', '--filter', `label=heldout.run=${id}`]);
      expect(nets.stdout.trim() + vols.stdout.trim()).toBe('');
    } finally {
      await s.cleanup();
    }
  });

  test('the swarm backend gives the docker backend figures', async () => {
    await Promise.all([run('docker', join(dir, 'docker')), run('swarm', join(dir, 'swarm'))]);
    const docker = figures(join(dir, 'docker', 'summary.json'));
    const swarm = figures(join(dir, 'swarm', 'summary.json'));
    expect(docker[0]?.cases.length).toBeGreaterThan(0);
    expect(docker[0]?.result).toMatchObject({ infraErrors: 0 });
    expect(swarm).toEqual(docker);
    const { stdout } = await execFileP('docker', ['service', 'ls', '-q', '--filter', 'label=heldout=1']);
    expect(stdout.trim()).toBe('');
  });
});
