/**
 * Issue 33: the acceptance behaviours of issue 3 on podman's docker-compatible service, the same ones docker runs.
 * Needs a podman service (`.ci/run` starts one when none answers; CONTAINER_HOST names another); without one the
 * file is skipped and says so. The runtime image is imported by heldout itself on first use (podman has no registry).
 * One test drives the built CLI (`npm run build` first when running it alone).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  engineFlavour,
  ensureRuntimeImage,
  gc,
  getPodman,
  podmanBackend,
  podmanSocket,
  RUNTIME_IMAGE,
  runtimeRecipe,
} from '../../src/sandbox/index.js';
import { heldout } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { containerBehaviours, sandboxBehaviours } from './behaviours.js';
import { containerDefaults } from './container-defaults.js';
import { execFileP, makeCase, REPO, scratch, spec } from './helpers.js';
import { serviceBehaviours } from './service-behaviours.js';

const why = await podmanBackend.unavailable(WAIT_MS);

/** Containers of a run id, listed through podman's own CLI on the same service. */
async function podmanPs(id: string): Promise<string[]> {
  const args = ['--url', `unix://${podmanSocket()}`, 'ps', '-a', '-q', '--filter', `label=heldout.run=${id}`];
  const { stdout } = await execFileP('podman', args);
  return stdout.split('\n').filter(Boolean);
}

describe.skipIf(why !== null)(why === null ? 'podman sandbox' : `podman sandbox — skipped: ${why}`, () => {
  beforeAll(async () => {
    const img = await ensureRuntimeImage({ docker: getPodman() });
    expect(img.tag).toBe(RUNTIME_IMAGE);
  });

  sandboxBehaviours(
    containerBehaviours(() => podmanBackend, undefined, podmanPs, { name: 'podman', docker: getPodman() }),
  );

  containerDefaults('podman', () => podmanBackend, podmanPs);

  serviceBehaviours({
    name: 'podman',
    backend: () => podmanBackend,
    leftovers: podmanPs,
    // holder, service, case
    running: async (id) => (await podmanPs(id)).length >= 3,
    gc: (id) => gc({ runId: id, docker: getPodman() }),
    missingImage: null,
  });

  describe('podman specifics', () => {
    test('the engine is detected as podman from its own answer', async () => {
      expect(await engineFlavour(getPodman())).toBe('podman');
    });

    test('DOCKER_HOST at the podman socket: detected, not assumed; the report names podman and the case passes', async () => {
      const out = await mkdtemp(join(os.tmpdir(), 'heldout-podman-docker-host-'));
      try {
        const env = { ...process.env, DOCKER_HOST: `unix://${podmanSocket()}` };
        const args = [
          'run',
          join(REPO, 'tasks/log-triage'),
          '--delivery',
          join(REPO, 'fixtures/deliveries/log-triage-reference'),
        ];
        const r = await heldout([...args, '--case', 'h01-jsonl', '--sandbox', 'docker', '--out', out], { env });
        expect(r.code, r.out).toBe(0);
        const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8'));
        expect(summary.run.sandbox).toBe('podman');
        expect(summary.commissions[0].cases.map((c: { passed: boolean }) => c.passed)).toEqual([true]);
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    });

    test('heldout image build --sandbox podman builds on podman (here: finds it up to date)', async () => {
      const r = await heldout(['image', 'build', '--sandbox', 'podman', '--if-missing', '--json']);
      expect(r.code, r.out).toBe(0);
      const built = JSON.parse(r.stdout);
      expect(built).toMatchObject({ tag: RUNTIME_IMAGE, built: false });
      expect(built.id).toBe((await getPodman().getImage(RUNTIME_IMAGE).inspect()).Id);
    });

    test('the runtime image keeps its tag and its recipe label, so the next run imports nothing', async () => {
      const info = await getPodman().getImage(RUNTIME_IMAGE).inspect();
      expect(info.RepoTags?.some((t) => t.endsWith(`/${RUNTIME_IMAGE}`))).toBe(true);
      // podman's compat import tags `:latest` by itself; heldout drops that tag so nothing else is named after it.
      expect(info.RepoTags?.some((t) => t.endsWith(':latest'))).toBe(false);
      // What ensureRuntimeImage compares: a lost label would re-import the image on every run.
      expect(info.Config?.Labels?.['heldout.recipe']).toBe((await runtimeRecipe()).hash);
      expect(info.Config?.Labels?.['heldout.image']).toBe('runtime');
    });

    test('an output budget (fsize) runs: podman is given nofile and nproc the host allows', async () => {
      const s = await scratch('podman-fsize');
      try {
        const c = await makeCase(`${s.root}/cases`, 'c', 'x');
        const x = await podmanBackend.run(
          spec({
            command: 'ulimit -f; head -c 5000 /dev/zero > /out/big; echo wrote',
            deliveryDir: s.delivery('ok'),
            inputPath: c.inputPath,
            outputDir: `${s.root}/out`,
            limits: {
              wallSeconds: 30,
              memoryMb: 256,
              cpus: 1,
              pids: 64,
              outputBytes: 65536,
              out: { bytes: 1000, entries: 10, depth: 4 },
            },
          }),
        );
        expect(x.backend).toBe('podman');
        expect(x.outputLimit).toMatch(/./);
      } finally {
        await s.cleanup();
      }
    });
  });
});
