/**
 * The trial container (src/sandbox/trial.ts) against each real engine (docker, and podman: issue 33): one container
 * that stays up across phases, each an exec in it. Without an engine its part is skipped and says so.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  dockerBackend,
  engineAnswers,
  ensureRuntimeImage,
  getDocker,
  getPodman,
  podmanBackend,
  processBackend,
  RUNTIME_IMAGE,
  type TrialContainer,
  type TrialSpec,
} from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { FIXTURES, runId } from './helpers.js';

const LIMITS = { memoryMb: 256, cpus: 1, pids: 64 };
/** Containers of a run id on one engine, asked of that engine's API. */
const psOn = (docker: Docker) => async (id: string) =>
  (await docker.listContainers({ all: true, filters: { label: [`heldout.run=${id}`] } })).map((c) => c.Id);
const ENGINES = [
  {
    name: 'docker',
    backend: dockerBackend,
    docker: getDocker(),
    why: (await engineAnswers(WAIT_MS)) ? null : 'no docker engine answers',
  },
  { name: 'podman', backend: podmanBackend, docker: getPodman(), why: await podmanBackend.unavailable(WAIT_MS) },
];

describe.each(ENGINES)('$name', ({ name, backend, docker, why }) => {
  const dockerPs = psOn(docker);
  const dockerBackend = backend;
  describe.skipIf(why !== null)(
    why === null ? `trial container (${name})` : `trial container (${name}) — skipped: ${why}`,
    () => {
      let dir: string;
      const open = (over: Partial<TrialSpec> = {}) =>
        dockerBackend.openTrial!({
          runId: runId('trial'),
          caseId: 'c',
          trial: 1,
          image: RUNTIME_IMAGE,
          limits: LIMITS,
          ...over,
        });
      beforeAll(async () => {
        await ensureRuntimeImage({ docker });
        dir = await mkdtemp(join(os.tmpdir(), 'heldout-trial-test-'));
        await chmod(dir, 0o755);
      });
      afterAll(() => rm(dir, { recursive: true, force: true }));

      test('stays up across execs that share its state; workdir, user and env as asked; removed on close', async () => {
        const spec = { runId: runId('trial'), caseId: 'c', trial: 1, image: RUNTIME_IMAGE, limits: LIMITS };
        const t = await dockerBackend.openTrial!({
          ...spec,
          workdir: '/app',
          user: '0',
          layerEnv: [
            ['GREETING', 'hello'],
            ['PATH', `/opt/bin:\${PATH}`],
          ],
          env: { EXTRA: '1' },
        });
        try {
          expect(t.network).toBe('none');
          const a = await t.exec([
            'sh',
            '-c',
            'pwd; id -u; echo "$GREETING $EXTRA"; echo "$PATH"; echo state > /app/f',
          ]);
          expect(a.exitCode).toBe(0);
          const [pwd, uid, greet, pathVar] = a.stdout.trim().split('\n');
          expect([pwd, uid, greet]).toEqual(['/app', '0', 'hello 1']);
          expect(pathVar).toMatch(/^\/opt\/bin:\/.+/);
          const b = await t.exec(['cat', '/app/f'], { user: '65534', cwd: '/tmp', env: { X: 'y' } });
          expect(b).toMatchObject({ exitCode: 0, stdout: 'state\n', stderr: '' });
          const c = await t.exec(['sh', '-c', 'id -u; pwd; echo $X'], { user: '65534', cwd: '/tmp', env: { X: 'y' } });
          expect(c.stdout).toBe('65534\n/tmp\ny\n');
          const ifaces = await t.exec(['ls', '/sys/class/net']);
          expect(ifaces.stdout.trim()).toBe('lo');
        } finally {
          await t.close();
        }
        expect(await dockerPs(spec.runId)).toEqual([]);
      });

      test('put copies a file or a directory in (owned by root), get copies one out; absent is false', async () => {
        const src = join(dir, 'src');
        await mkdir(join(src, 'sub'), { recursive: true });
        await writeFile(join(src, 'a.txt'), 'A');
        await writeFile(join(src, 'sub', 'run.sh'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
        const t = await open({ user: '0' });
        try {
          await t.put(src, '/opt/task');
          await t.put(join(src, 'a.txt'), '/etc/renamed.txt');
          await t.put(join(src, 'a.txt'), '/etc/intodir/');
          const r = await t.exec([
            'sh',
            '-c',
            'cat /opt/task/a.txt /etc/renamed.txt /etc/intodir/a.txt; /opt/task/sub/run.sh; stat -c %U /opt/task/a.txt',
          ]);
          expect(r.stdout).toBe('AAAran\nroot\n');
          await t.exec(['sh', '-c', 'mkdir -p /logs/v && echo 1 > /logs/v/reward.txt']);
          expect(await t.get('/logs/v', join(dir, 'v'))).toBe(true);
          expect(await readFile(join(dir, 'v', 'reward.txt'), 'utf8')).toBe('1\n');
          expect(await t.get('/logs/v/reward.txt', join(dir, 'r.txt'))).toBe(true);
          expect(await readFile(join(dir, 'r.txt'), 'utf8')).toBe('1\n');
          expect(await t.get('/nope', join(dir, 'nope'))).toBe(false);
        } finally {
          await t.close();
        }
      });

      test('files are in place before the entrypoint runs, and the entrypoint runs (with sleep infinity after it)', async () => {
        await writeFile(join(dir, 'entry.sh'), '#!/bin/sh\necho booted > /booted\nexec "$@"\n', { mode: 0o755 });
        const t = await open({
          user: '0',
          entrypoint: ['/entry.sh'],
          files: [{ from: join(dir, 'entry.sh'), to: '/entry.sh' }],
        });
        try {
          const r = await t.exec(['cat', '/booted']);
          expect(r.stdout).toBe('booted\n');
        } finally {
          await t.close();
        }
      });

      test('an entrypoint that fails is the start failure, with its output', async () => {
        await writeFile(join(dir, 'bad.sh'), '#!/bin/sh\necho cannot start >&2\nexit 3\n', { mode: 0o755 });
        const opened = await open({
          entrypoint: ['/bad.sh'],
          files: [{ from: join(dir, 'bad.sh'), to: '/bad.sh' }],
        }).catch((e: Error) => e);
        if (opened instanceof Error) expect(String(opened)).toMatch(/exited at start \(status 3\).*cannot start/s);
        else {
          // It outlived the start check by a hair: its state and its output say the same.
          try {
            expect(await opened.state()).toMatchObject({ running: false, exitCode: 3 });
            expect(opened.logs()).toMatch(/cannot start/);
          } finally {
            await opened.close();
          }
        }
      });

      test('a timeout kills the exec and what it started; a background child holding stdout does not hang it', async () => {
        const t = await open();
        try {
          const r = await t.exec(['sh', '-c', 'sleep 300 & sleep 300; echo never'], { timeoutSeconds: 1 });
          expect(r).toMatchObject({ timedOut: true, exitCode: null });
          expect(r.stdout).not.toContain('never');
          const ps = await t.exec(['sh', '-c', 'ps -eo comm | grep -c "^sleep" || true']);
          // Only the container's own `sleep infinity` is left.
          expect(ps.stdout.trim()).toBe('1');
          const bg = await t.exec(['sh', '-c', 'sleep 300 & echo started']);
          expect(bg).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
        } finally {
          await t.close();
        }
      });

      test('a missing image is named; no network is given where the engine has none', async () => {
        const err = await open({ image: 'heldout-test/absent-image:0' }).catch((e: Error) => e);
        expect(String(err)).toMatch(/image heldout-test\/absent-image:0 is not on this engine/);
        const t = await open({ network: true });
        try {
          const nets = await t.exec(['ls', '/sys/class/net']);
          if (t.network === 'none') {
            expect(nets.stdout.trim()).toBe('lo');
            expect(t.notes.join(' ')).toMatch(/no bridge network/);
          } else expect(t.network).toBe('bridge');
        } finally {
          await t.close();
        }
      });

      test('the process backend has no trial containers (a clear refusal by the harbor family)', () => {
        expect(processBackend.openTrial).toBeUndefined();
      });

      describe('the model gateway', () => {
        let server: http.Server;
        let socketPath: string;
        beforeAll(async () => {
          socketPath = join(dir, 'gw.sock');
          server = http.createServer((req, res) =>
            res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization })),
          );
          await new Promise<void>((r) => server.listen(socketPath, r));
          await chmod(socketPath, 0o666);
        });
        afterAll(() => new Promise((r) => server.close(r)));

        test('is reached at 127.0.0.1:<port> from inside the trial through a relay sharing its network namespace', async () => {
          const spec = { runId: runId('trial-gw'), caseId: 'c', trial: 1, image: RUNTIME_IMAGE, limits: LIMITS };
          const t: TrialContainer = await dockerBackend.openTrial!({
            ...spec,
            gateway: { socketPath, relayScript: join(FIXTURES, 'relay.mjs'), port: 8080, env: {} },
          });
          try {
            const r = await t.exec([
              'node',
              '-e',
              "fetch('http://127.0.0.1:8080/v1/models',{headers:{authorization:'Bearer tok'}}).then(r=>r.text()).then(console.log)",
            ]);
            expect(JSON.parse(r.stdout)).toEqual({ path: '/v1/models', auth: 'Bearer tok' });
            expect(await dockerPs(spec.runId)).toHaveLength(2);
          } finally {
            await t.close();
          }
          expect(await dockerPs(spec.runId)).toEqual([]);
        });
      });
    },
  );
});
