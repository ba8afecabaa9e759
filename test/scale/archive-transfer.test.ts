/**
 * Issue 13: the docker backend's remote-engine path (`transfer: 'archive'`: delivery, case and outputs through the
 * engine API, no host bind mounts) forced against the local engine gives the same results as bind mounts — the
 * same acceptance behaviours the bind-mount backend passes (test/sandbox/behaviours.ts).
 */
import net from 'node:net';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDockerBackend, engineAnswers, engineWhere, ensureRuntimeImage } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { containerBehaviours, dockerPs, sandboxBehaviours } from '../sandbox/behaviours.js';
import { execFileP, FIXTURES, LIMITS, makeCase, runId, scratch, spec } from '../sandbox/helpers.js';

const engine = await engineAnswers(WAIT_MS);
const archive = createDockerBackend({ transfer: 'archive' });

async function dockerVolumes(id: string): Promise<string[]> {
  const { stdout } = await execFileP('docker', ['volume', 'ls', '-q', '--filter', `label=heldout.run=${id}`]);
  return stdout.split('\n').filter(Boolean);
}

describe.skipIf(!engine)(engine ? 'archive transfer' : 'archive transfer — skipped: no docker engine answers', () => {
  test('the runtime image is there (built through the API when missing)', async () => {
    await ensureRuntimeImage();
  });

  // Leftovers here are containers and the run's staging volumes: an interrupted run must remove both.
  sandboxBehaviours(
    containerBehaviours(
      () => archive,
      'archive',
      async (id) => [...(await dockerPs(id)), ...(await dockerVolumes(id))],
    ),
  );

  test('no volume, helper or container is left after a run, and outputs keep their tree', async () => {
    const s = await scratch('archive-left');
    try {
      const c = await makeCase(`${s.root}/cases`, 'deep', 'x', { assets: { 'a.txt': 'A' } });
      const id = runId('archive-left');
      const out = `${s.root}/out`;
      const long = 'd'.repeat(120);
      const x = await archive.run(
        spec({
          runId: id,
          command: `mkdir -p {output}/${long}/e && echo hi > {output}/${long}/e/f.txt && ln -s f.txt {output}/${long}/e/link && cat {case}/assets/a.txt`,
          deliveryDir: s.delivery('ok'),
          inputPath: c.inputPath,
          assetsDir: c.assetsDir,
          outputDir: out,
          limits: LIMITS,
        }),
      );
      expect(x.exitCode, x.stderr).toBe(0);
      expect(x.stdout).toBe('A');
      expect(x.outputs).toEqual([`${long}/e/f.txt`, `${long}/e/link`]);
      expect(await dockerPs(id)).toEqual([]);
      expect(await dockerVolumes(id)).toEqual([]);
    } finally {
      await s.cleanup();
    }
  });

  describe('a tcp engine (a loopback TCP proxy to the local socket stands for a remote host)', () => {
    let proxy: net.Server;
    let tcp: Docker;
    beforeAll(async () => {
      proxy = net.createServer((client) => {
        const engineSide = net.connect('/var/run/docker.sock');
        client.pipe(engineSide).pipe(client);
        const end = () => {
          client.destroy();
          engineSide.destroy();
        };
        client.on('error', end);
        engineSide.on('error', end);
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
      tcp = new Docker({ host: '127.0.0.1', port: (proxy.address() as net.AddressInfo).port, protocol: 'http' });
    });
    afterAll(async () => {
      await new Promise((r) => proxy.close(r));
    });

    const gateway = (required?: boolean) => ({
      socketPath: '/nonexistent/gateway.sock',
      relayScript: join(FIXTURES, 'relay.mjs'),
      port: 8080,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1' },
      ...(required === undefined ? {} : { required }),
    });

    test('moves files through the API by default, and refuses a gateway it cannot reach (unless not required)', async () => {
      expect(engineWhere(tcp)).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
      const backend = createDockerBackend({ docker: tcp });
      const s = await scratch('archive-tcp');
      try {
        const c = await makeCase(`${s.root}/cases`, 'one', 'four words right here');
        const base = {
          deliveryDir: s.delivery('ok'),
          inputPath: c.inputPath,
          limits: LIMITS,
          command: 'python run_agent.py --input {input} --output {output}',
        };
        const ok = await backend.run(spec({ ...base, outputDir: `${s.root}/out1`, gateway: gateway(false) }));
        expect(ok.exitCode, ok.stderr).toBe(0);
        expect(ok.outputs).toEqual(['notes/run_report.md', 'result.json']);
        await expect(backend.run(spec({ ...base, outputDir: `${s.root}/out2`, gateway: gateway() }))).rejects.toThrow(
          /gateway cannot reach sandboxes on the remote engine tcp:/,
        );
      } finally {
        await s.cleanup();
      }
    });
  });
});
