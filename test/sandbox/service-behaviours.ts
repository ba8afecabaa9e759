/**
 * The acceptance behaviours of issue 19's case services, written once and run against each backend that runs
 * them: a case reaches its services by name (one calling the other), nothing but loopback is reachable from inside
 * the pod and another case's pod is not, a service that exits, is never ready or has no image is an error naming
 * it with its log tail, and nothing is left behind — after the case, after a failure, and after SIGINT.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { SandboxBackend, SandboxSpec, ServiceSpec } from '../../src/sandbox/index.js';
import { UNTIL, WAIT_MS } from '../helpers/deadlines.js';
import { buildSandboxModule, FIXTURES, hostAddresses, LIMITS, makeCase, runId, scratch, spec } from './helpers.js';

const SERVERS = resolve(import.meta.dirname, '../../fixtures/services/servers');

export interface ServiceBehaviourOptions {
  name: 'docker' | 'podman' | 'process';
  backend: () => SandboxBackend;
  /** What of a run is still there: containers by run id (docker), processes carrying the marker (process). */
  leftovers: (runId: string, marker: string) => Promise<string[]>;
  /** True once the case of `runId` (its `sleep <marker>`) runs, after its services. */
  running: (runId: string, marker: string) => Promise<boolean>;
  /** Removes what a SIGKILLed runner left (docker: its pod's containers); absent: nothing outlives the runner. */
  gc?: (runId: string) => Promise<unknown>;
  /** Why this backend cannot check a missing image here (process: it runs no images); null: it can. */
  missingImage: string | null;
}

function label(what: string, reason: string | null): string {
  return reason ? `${what} — skipped: ${reason}` : what;
}

/** A test service running one of the fixture servers, its code mounted read-only at /srv. */
export function server(
  name: string,
  script: 'hello.mjs' | 'relay.mjs',
  args: string[],
  extra: Partial<ServiceSpec> = {},
): ServiceSpec {
  return {
    name,
    image: 'heldout/runtime:1',
    command: `node /srv/${script} ${args.join(' ')}`,
    files: [{ hostPath: join(SERVERS, script), containerPath: `/srv/${script}` }],
    timeoutSeconds: 30,
    ...extra,
  };
}

export function serviceBehaviours(o: ServiceBehaviourOptions): void {
  let s: Awaited<ReturnType<typeof scratch>>;
  let c: Awaited<ReturnType<typeof makeCase>>;
  let n = 0;
  const outDir = () => join(s.root, 'out', String(n++));

  beforeAll(async () => {
    s = await scratch(`svc-${o.name}`);
    c = await makeCase(join(s.root, 'cases'), 'svc', 'a case with services');
  });
  afterAll(async () => {
    await s?.cleanup();
  });

  const caseSpec = (partial: Partial<SandboxSpec> & { command: string }) =>
    spec({ inputPath: c.inputPath, outputDir: outDir(), deliveryDir: s.delivery('network-attempt'), ...partial });
  const fetchIn = (url: string) =>
    `node -e "fetch('${url}').then(r => r.text()).then(t => console.log('got ' + t), e => console.log('failed ' + (e.cause && e.cause.code || e.message)))"`;

  describe(`${o.name} backend: case services`, () => {
    test('a case reaches a service that calls another by name; both logs are kept as evidence', async () => {
      const id = runId('svc-ok');
      const marker = `m${n}x${Date.now()}`;
      const logs = join(s.root, `logs-${n}`);
      const x = await o.backend().run(
        caseSpec({
          runId: id,
          command: fetchIn('http://front:8080/'),
          services: [
            server('upstream', 'hello.mjs', ['9090', `from-upstream-${marker}`], {
              ready: { http: '/health', port: 9090 },
            }),
            server('front', 'relay.mjs', ['8080', 'http://upstream:9090/'], { ready: { tcp: 8080 } }),
          ],
          serviceLogDir: logs,
        }),
      );
      expect(x.stderr).toBe('');
      expect(x.stdout).toContain(`got relay:from-upstream-${marker}`);
      expect(x.services?.map((r) => r.name)).toEqual(['upstream', 'front']);
      expect(await readFile(join(logs, 'upstream.log'), 'utf8')).toContain('hello: GET /');
      expect(await readFile(join(logs, 'front.log'), 'utf8')).toContain('relay: GET / → http://upstream:9090/');
      expect(await o.leftovers(id, marker)).toEqual([]);
    });

    test('from inside the pod nothing but loopback is reachable: not the host, not its loopback', async () => {
      const server0 = net.createServer((sock) => {
        sock.on('error', () => {});
        sock.end('host\n');
      });
      await new Promise<void>((r) => server0.listen(0, '0.0.0.0', r));
      const port = (server0.address() as net.AddressInfo).port;
      try {
        const targets = ['127.0.0.1', ...hostAddresses()].map((h) => `${h}:${port}`);
        const x = await o.backend().run(
          caseSpec({
            command:
              'python3 -c "import socket; print(\'interfaces\', sorted(n for _, n in socket.if_nameindex()))"; TARGETS="$TARGETS,svc:7070" python3 connect.py',
            env: { TARGETS: targets.join(',') },
            services: [server('svc', 'hello.mjs', ['7070', 'inside'], { ready: { tcp: 7070 } })],
          }),
        );
        expect(x.stdout).toContain("interfaces ['lo']");
        for (const t of targets) expect(x.stdout).toContain(`blocked ${t}`);
        expect(x.stdout).toContain('reached svc:7070');
      } finally {
        server0.close();
      }
    });

    test("another case's pod is not reachable, though it runs at the same time on the same ports", async () => {
      const outA = outDir();
      const a = o.backend().run(
        caseSpec({
          caseId: 'pod-a',
          outputDir: outA,
          command: `${fetchIn('http://127.0.0.1:7070/')}; : > {output}/fetched; while [ ! -e {output}/stop ]; do sleep 0.1; done`,
          services: [server('secret', 'hello.mjs', ['7070', 'pod-A-only'], { ready: { tcp: 7070 } })],
        }),
      );
      try {
        // B starts once A's case has fetched from its own service and waits inside its pod
        await vi.waitUntil(() => existsSync(join(outA, 'fetched')), UNTIL);
        const b = await o.backend().run(
          caseSpec({
            caseId: 'pod-b',
            command: `${fetchIn('http://127.0.0.1:7070/')}; ${fetchIn('http://secret:7070/')}`,
            services: [server('other', 'hello.mjs', ['7071', 'pod-B'], { ready: { tcp: 7071 } })],
          }),
        );
        expect(b.stdout).not.toContain('pod-A-only');
        expect(b.stdout).toMatch(/failed ECONNREFUSED/);
        expect(b.stdout).toMatch(/failed (ENOTFOUND|EAI_AGAIN)/);
      } finally {
        await writeFile(join(outA, 'stop'), '');
      }
      expect((await a).stdout).toContain('got pod-A-only');
    });

    const failing = async (service: (marker: string) => ServiceSpec, command = 'echo the case ran') => {
      const id = runId('svc-fail');
      const marker = `${Date.now() % 1e6}${n}`;
      const err = await o
        .backend()
        .run(caseSpec({ runId: id, command, services: [service(marker)] }))
        .then(
          () => null,
          (e: Error) => e,
        );
      return { err, left: await o.leftovers(id, marker) };
    };

    test('a service that exits before it is ready is an error naming it, with its log tail; nothing is left', async () => {
      const { err, left } = await failing((marker) => ({
        name: 'crasher',
        image: 'heldout/runtime:1',
        command: `echo booting; echo "fatal: no config" >&2; exit 3 # ${marker}`,
        ready: { tcp: 6060 },
        timeoutSeconds: 30,
      }));
      expect(err?.message).toMatch(/^service crasher: exited with code 3 before it was ready/);
      expect(err?.message).toContain('fatal: no config');
      expect(left).toEqual([]);
    });

    test('a service never ready by its deadline is an error naming it, with its log tail; nothing is left', async () => {
      const { err, left } = await failing((marker) => ({
        name: 'sleeper',
        image: 'heldout/runtime:1',
        command: `echo "warming up forever"; exec sleep 600.${marker}`,
        ready: { tcp: 6061 },
        timeoutSeconds: 2,
      }));
      expect(err?.message).toMatch(/^service sleeper: was not ready within 2 s \(TCP 127\.0\.0\.1:6061: /);
      expect(err?.message).toContain('warming up forever');
      expect(left).toEqual([]);
    });

    test.skipIf(o.missingImage)(
      label('a service whose image is missing is an error naming it and the image; nothing is left', o.missingImage),
      async () => {
        const { err, left } = await failing(() => ({
          name: 'ghost',
          image: 'heldout-test/absent-image:never',
          timeoutSeconds: 5,
        }));
        expect(err?.message).toMatch(
          /^service ghost: image heldout-test\/absent-image:never is not on this engine \(heldout pulls nothing/,
        );
        expect(left).toEqual([]);
      },
    );

    test('a service that dies while the case runs makes the case an error naming it', async () => {
      const { err, left } = await failing(
        (marker) => server('flaky', 'hello.mjs', ['6062', marker, '800'], { ready: { tcp: 6062 } }),
        'sleep 4; echo case finished',
      );
      expect(err?.message).toMatch(/^service flaky: exited (with code 5 )?while the case ran/);
      expect(err?.message).toContain('giving up on purpose');
      expect(left).toEqual([]);
    });

    describe('teardown', () => {
      let modulePath: string;
      beforeAll(async () => {
        modulePath = await buildSandboxModule(`svc-${o.name}`);
      });
      afterAll(async () => {
        if (modulePath) await rm(join(modulePath, '..', '..'), { recursive: true, force: true });
      });

      /** Starts one long case with a service in a child process; resolves once the case itself runs. */
      async function startChild(id: string, marker: string) {
        const sp = caseSpec({
          runId: id,
          caseId: 'long',
          command: `sleep ${marker}`,
          limits: { ...LIMITS, wallSeconds: 120 },
          services: [server('svc', 'hello.mjs', ['7072', `sigint-${marker}`], { ready: { tcp: 7072 } })],
        });
        await mkdir(sp.outputDir, { recursive: true });
        const child = spawn(
          process.execPath,
          [join(FIXTURES, 'sigint-child.mjs'), modulePath, o.name, JSON.stringify(sp)],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        child.stdout.on('data', (b) => {
          out += b;
        });
        child.stderr.on('data', (b) => {
          out += b;
        });
        const exited = new Promise<unknown>((r) => child.on('exit', (code, signal) => r(signal ?? code)));
        // the case itself is running once its `sleep <marker>` is (services come first)
        const deadline = Date.now() + WAIT_MS;
        while (!(await o.running(id, marker)) && Date.now() < deadline) {
          if (child.exitCode !== null) throw new Error(`child ended early: ${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(await o.running(id, marker), out).toBe(true);
        return { child, exited, output: () => out };
      }
      const marker = (k: number) => `60.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}${k}`;

      test('SIGINT in the middle of a case with services leaves nothing behind', async () => {
        const id = runId('svc-sigint');
        const m = marker(3);
        const c = await startChild(id, m);
        c.child.kill('SIGINT');
        expect(await c.exited, c.output()).toSatisfy((v: unknown) => v === 'SIGINT' || v === 130);
        expect(await o.leftovers(id, m)).toEqual([]);
      });

      test.skipIf(!o.gc)(
        label('gc removes the pod a SIGKILLed runner left', o.gc ? null : 'nothing outlives its runner'),
        async () => {
          const id = runId('svc-sigkill');
          const m = marker(4);
          const c = await startChild(id, m);
          c.child.kill('SIGKILL');
          await c.exited;
          expect((await o.leftovers(id, m)).length).toBeGreaterThanOrEqual(3);
          await o.gc!(id);
          expect(await o.leftovers(id, m)).toEqual([]);
        },
      );
    });
  });
}
