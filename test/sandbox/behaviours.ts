/**
 * The acceptance behaviours of issue 3, written once and run against each backend. A backend that cannot enforce
 * a guarantee on this machine skips that test, and the skipped test's name says what is missing.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { treeDigest } from '../../src/freeze/index.js';
import { gateFromExecution, gc, type SandboxBackend } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import {
  buildSandboxModule,
  execFileP,
  FIXTURES,
  hostAddresses,
  LIMITS,
  makeCase,
  runId,
  scratch,
  spec,
} from './helpers.js';

export interface Enforcement {
  /** null: enforced; a string: why this backend cannot enforce it here (the test is skipped with that reason). */
  memory: string | null;
  pids: string | null;
  network: string | null;
  writeProtection: string | null;
  caseIsolation: string | null;
  /** Nothing left after SIGINT of the runner. */
  sigint: string | null;
  /** What a SIGKILLed runner left is found and removed by gc. */
  sigkillGc: string | null;
}

export interface BehaviourOptions {
  /** The isolation the backend reports: a container engine (`docker`, `podman`) or `process`. */
  name: 'docker' | 'podman' | 'process';
  /** Distinguishes suites of the same backend (e.g. a degraded process backend). */
  variant?: string;
  /** Process backend: capability overrides, also handed to the SIGINT child. */
  processCapabilities?: Record<string, unknown>;
  backend: () => SandboxBackend;
  enforcement: Enforcement;
  /** Docker: lists containers of a run id through the docker CLI (the acceptance criterion's own words). */
  leftovers: (runId: string, marker: string) => Promise<string[]>;
  /** Whether a SIGKILLed runner leaves its sandbox behind (docker: yes, until gc). */
  survivesSigkill: boolean;
  /** Removes what a SIGKILLed runner left. */
  gc: (runId: string) => Promise<unknown>;
}

/** Containers of a run id, listed through the docker CLI (the acceptance criterion's own words). */
export async function dockerPs(runId: string): Promise<string[]> {
  const { stdout } = await execFileP('docker', ['ps', '-a', '-q', '--filter', `label=heldout.run=${runId}`]);
  return stdout.split('\n').filter(Boolean);
}

/**
 * The options of a container backend (local docker, archive transfer, swarm): every limit enforced, and what a
 * SIGKILLed runner leaves stays until gc removes it (containers, and services for swarm).
 */
export function containerBehaviours(
  backend: () => SandboxBackend,
  variant?: string,
  leftovers: BehaviourOptions['leftovers'] = (id) => dockerPs(id),
  engine: { name: 'docker' | 'podman'; docker?: Docker } = { name: 'docker' },
): BehaviourOptions {
  return {
    name: engine.name,
    variant,
    backend,
    enforcement: {
      memory: null,
      pids: null,
      network: null,
      writeProtection: null,
      caseIsolation: null,
      sigint: null,
      sigkillGc: null,
    },
    leftovers,
    survivesSigkill: true,
    gc: async (id) => {
      const r = await gc({ runId: id, docker: engine.docker });
      return r.containers + r.services;
    },
  };
}

function label(what: string, reason: string | null): string {
  return reason ? `${what} — skipped: ${reason}` : what;
}

export function sandboxBehaviours(o: BehaviourOptions): void {
  const e = o.enforcement;
  let s: Awaited<ReturnType<typeof scratch>>;
  let caseOk: Awaited<ReturnType<typeof makeCase>>;
  let outCount = 0;
  const outDir = () => join(s.root, 'out', String(outCount++));

  beforeAll(async () => {
    s = await scratch(o.name);
    caseOk = await makeCase(join(s.root, 'cases'), 'ok', 'three little words', {
      assets: { 'data.csv': 'a,b\n1,2\n' },
      truth: '{"answer": "TRUTH-OK"}',
    });
  });
  afterAll(async () => {
    await s?.cleanup();
  });

  const run = (partial: Partial<Parameters<typeof spec>[0]> & { command: string; delivery: string }) =>
    o.backend().run(
      spec({
        inputPath: caseOk.inputPath,
        assetsDir: caseOk.assetsDir,
        outputDir: outDir(),
        deliveryDir: s.delivery(partial.delivery),
        ...partial,
      }),
    );

  describe(`${o.name} backend${o.variant ? ` (${o.variant})` : ''}: acceptance behaviours`, () => {
    test('a correct delivery produces its outputs', async () => {
      const out = outDir();
      const x = await run({
        delivery: 'ok',
        outputDir: out,
        command: 'python run_agent.py --input {input} --output {output}',
      });
      expect(x.stderr).toBe('');
      expect(x.exitCode).toBe(0);
      expect(gateFromExecution(x)).toBeNull();
      expect(x.backend).toBe(o.name);
      expect(x.outputs).toEqual(['notes/run_report.md', 'result.json']);
      const result = JSON.parse(await readFile(join(out, 'result.json'), 'utf8'));
      expect(result.words).toBe(3);
      expect(result.assets).toEqual(['data.csv']);
      expect(x.stdout).toContain('ok: wrote result.json');
      if (o.name !== 'process') {
        expect(result.cwd).toBe('/delivery');
        expect(x.weakerIsolation).toEqual([]);
      } else {
        expect(x.weakerIsolation.length).toBeGreaterThan(0);
      }
    });

    test('placeholders and HELDOUT_* variables name the staged paths', async () => {
      const x = await run({
        delivery: 'ok',
        command:
          'echo "input={input} output={output} run={run} case={case} delivery={delivery}"; echo "env=$HELDOUT_INPUT $HELDOUT_RUN_DIR"; ls {case}; test -d {run} && echo run-dir-ok; cat {input}',
      });
      expect(x.exitCode).toBe(0);
      if (o.name !== 'process') {
        expect(x.stdout).toContain('input=/case/input.md output=/out run=/out/.run case=/case delivery=/delivery');
        expect(x.stdout).toContain('env=/case/input.md /out/.run');
      }
      expect(x.stdout).toMatch(/^assets\ninput\.md$/m);
      expect(x.stdout).toContain('run-dir-ok');
      expect(x.stdout).toContain('three little words');
    });

    test('a crash is an error-exit', async () => {
      const x = await run({ delivery: 'crash', command: 'python run_agent.py' });
      expect(x.exitCode).toBe(1);
      expect(x.timedOut).toBe(false);
      expect(x.oom).toBe(false);
      expect(x.stderr).toContain('the delivery crashed on purpose');
      expect(gateFromExecution(x)).toBe('error-exit');
      expect(gateFromExecution(x, [0, 1])).toBeNull();
    });

    test('an endless loop is a timeout, killed by the wall clock and not before it', async () => {
      const wallSeconds = 3;
      const x = await run({
        delivery: 'endless-loop',
        command: 'python run_agent.py',
        limits: { ...LIMITS, wallSeconds },
      });
      expect(x.timedOut).toBe(true);
      expect(gateFromExecution(x)).toBe('timeout');
      // Not killed early; that it ended at all is the kill (the loop never ends by itself). How soon after the limit
      // depends on how busy the machine is: bench/ measures speed, tests do not.
      expect(x.wallMs).toBeGreaterThanOrEqual(wallSeconds * 1000 - 50);
      expect(x.stdout).toContain('looping');
    });

    test.skipIf(e.memory)(label('allocating past the memory limit is oom', e.memory), async () => {
      const x = await run({
        delivery: 'memory-hog',
        command: 'python hog.py 2048',
        limits: { ...LIMITS, memoryMb: 128 },
      });
      expect(x.oom).toBe(true);
      expect(x.timedOut).toBe(false);
      expect(gateFromExecution(x)).toBe('oom');
      expect(x.stdout).not.toContain('survived');
      expect(x.stdout).toContain('held 32 MiB');
    });

    test.skipIf(e.pids)(label('a fork bomb stays contained and the next case runs', e.pids), async () => {
      const bomb = await run({
        delivery: 'fork-bomb',
        command: 'sh bomb.sh',
        limits: { ...LIMITS, wallSeconds: 4, pids: 64 },
      });
      // Contained: it ended (by the pids limit or the wall clock) and the machine still runs the next case.
      expect(gateFromExecution(bomb)).not.toBeNull();
      const next = await run({ delivery: 'ok', command: 'python run_agent.py --input {input} --output {output}' });
      expect(next.exitCode).toBe(0);
      expect(next.outputs).toContain('result.json');
    });

    test.skipIf(e.network)(label('an attempt to open a network connection fails inside', e.network), async () => {
      const server = net.createServer((c) => {
        c.on('error', () => {});
        c.end('hello\n');
      });
      await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
      const port = (server.address() as net.AddressInfo).port;
      try {
        const hosts = ['127.0.0.1', ...hostAddresses()];
        // control: from the host, the server is reachable
        await new Promise<void>((res, rej) => {
          const probe = net.connect(port, '127.0.0.1');
          probe.on('error', rej);
          probe.on('data', () => {
            probe.end();
            res();
          });
        });
        const x = await run({
          delivery: 'network-attempt',
          command: 'python connect.py',
          // only this host's own addresses: a failing sandbox must not send traffic anywhere else
          env: { TARGETS: hosts.map((h) => `${h}:${port}`).join(',') },
        });
        expect(x.stdout).not.toContain('reached');
        expect(x.stdout).toContain(`blocked 127.0.0.1:${port}`);
        expect(x.exitCode).toBe(0);
      } finally {
        server.close();
      }
    });

    test.skipIf(e.writeProtection)(label('a write into the delivery fails', e.writeProtection), async () => {
      const dir = s.delivery('write-into-delivery');
      const before = await treeDigest(dir);
      const x = await run({ delivery: 'write-into-delivery', command: 'python tamper.py' });
      expect(x.stdout).not.toContain('succeeded');
      expect(x.stdout).toContain('create: refused');
      expect(x.exitCode).toBe(0);
      expect(await treeDigest(dir)).toBe(before);
    });

    test.skipIf(e.caseIsolation)(
      label("another case's input (and any truth) is not reachable", e.caseIsolation),
      async () => {
        const cases = join(s.root, 'isolation-cases');
        const a = await makeCase(cases, 'a', 'secret-A-content\n', { truth: '{"t": "TRUTH-A"}' });
        const b = await makeCase(cases, 'b', 'case B\n', {
          truth: '{"t": "TRUTH-B"}',
          assets: { 'note.txt': 'note-b\n' },
        });
        const out = outDir();
        const x = await run({
          delivery: 'read-other-case',
          inputPath: b.inputPath,
          assetsDir: b.assetsDir,
          outputDir: out,
          command: 'python peek.py {input} {output}',
          env: { PEEK: [a.inputPath, join(a.dir, 'truth.json'), join(b.dir, 'truth.json'), a.dir].join(',') },
        });
        expect(x.exitCode).toBe(0);
        const report = JSON.parse(await readFile(join(out, 'found.json'), 'utf8'));
        expect(report.own).toBe('case B');
        expect(report.listing).toEqual(['assets', 'input.md']);
        const seen = JSON.stringify(report.found);
        expect(seen).not.toContain('secret-A');
        expect(seen).not.toContain('TRUTH');
        expect(Object.values(report.found)).toEqual(['note-b']);
      },
    );

    test('100 MB on stdout is capped and the run goes on', async () => {
      const cap = 1024 * 1024;
      const x = await run({
        delivery: 'big-stdout',
        command: 'python flood.py 100 {output}',
        limits: { ...LIMITS, outputBytes: cap },
      });
      expect(x.exitCode).toBe(0);
      expect(x.stdoutTruncated).toBe(true);
      expect(Buffer.byteLength(x.stdout)).toBe(cap);
      expect(x.stderrTruncated).toBe(false);
      expect(x.stderr.length).toBe(cap);
      expect(x.outputs).toEqual(['done.txt']);
    });

    describe('the model gateway through a Unix socket', () => {
      let dir: string;
      let server: http.Server;
      let socketPath: string;
      beforeAll(async () => {
        dir = await mkdtemp(join(os.tmpdir(), 'heldout-gw-'));
        await chmod(dir, 0o755);
        socketPath = join(dir, 'gateway.sock');
        server = http.createServer((req, res) => {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              object: 'list',
              data: [{ id: 'stub-model' }],
              path: req.url,
              auth: req.headers.authorization,
            }),
          );
        });
        await new Promise<void>((r) => server.listen(socketPath, r));
        await chmod(socketPath, 0o666);
      });
      afterAll(async () => {
        await new Promise((r) => server?.close(r));
        await rm(dir, { recursive: true, force: true });
      });

      test('with a gateway attached the delivery reaches it at 127.0.0.1:<port>', async () => {
        const out = outDir();
        const x = await run({
          delivery: 'gateway-less',
          outputDir: out,
          command: 'node ask.mjs {output}',
          gateway: {
            socketPath,
            relayScript: join(FIXTURES, 'relay.mjs'),
            port: 8080,
            env: { OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1', OPENAI_API_KEY: 'heldout-case-token' },
          },
        });
        expect(x.stderr).toBe('');
        expect(x.exitCode).toBe(0);
        const body = JSON.parse(await readFile(join(out, 'models.json'), 'utf8'));
        expect(body.data[0].id).toBe('stub-model');
        expect(body.path).toBe('/v1/models');
        expect(body.auth).toBe('Bearer heldout-case-token');
      });

      test.skipIf(e.network)(label('without a gateway there is no way to a model', e.network), async () => {
        const x = await run({ delivery: 'gateway-less', command: 'node ask.mjs {output}' });
        expect(x.exitCode).toBe(4);
        expect(x.stderr).toContain('no model reachable');
        expect(x.outputs).toEqual([]);
      });
    });

    describe('teardown', () => {
      let modulePath: string;
      afterAll(async () => {
        if (modulePath) await rm(join(modulePath, '..', '..'), { recursive: true, force: true });
      });
      beforeAll(async () => {
        modulePath = await buildSandboxModule(`${o.name}${o.variant ? `-${o.variant}` : ''}`);
      });

      async function startChild(id: string, marker: string) {
        const caseSpec = spec({
          runId: id,
          caseId: 'long',
          command: `sleep ${marker}`,
          deliveryDir: s.delivery('ok'),
          inputPath: caseOk.inputPath,
          outputDir: outDir(),
          limits: { ...LIMITS, wallSeconds: 120 },
        });
        await mkdir(caseSpec.outputDir, { recursive: true });
        const child = spawn(
          process.execPath,
          [join(FIXTURES, 'sigint-child.mjs'), modulePath, o.name, JSON.stringify(caseSpec)],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (b) => {
          out += b;
        });
        child.stderr.on('data', (b) => {
          err += b;
        });
        const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
          child.on('exit', (code, signal) => r({ code, signal })),
        );
        const deadline = Date.now() + WAIT_MS;
        while (!out.includes('live') && Date.now() < deadline) {
          if (child.exitCode !== null) throw new Error(`child ended early: ${out} ${err}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(out, err).toContain('live');
        return { child, exited, output: () => out + err };
      }

      test.skipIf(e.sigint)(label('SIGINT in the middle of a run leaves nothing behind', e.sigint), async () => {
        const id = runId('sigint');
        const marker = `60.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}1`;
        const c = await startChild(id, marker);
        expect(await o.leftovers(id, marker)).not.toEqual([]);
        c.child.kill('SIGINT');
        const ended = await c.exited;
        expect(ended.signal ?? ended.code, c.output()).toSatisfy((v: unknown) => v === 'SIGINT' || v === 130);
        expect(await o.leftovers(id, marker)).toEqual([]);
      });

      test.skipIf(e.sigkillGc)(label('gc cleans up after the runner is SIGKILLed', e.sigkillGc), async () => {
        const id = runId('sigkill');
        const marker = `60.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}2`;
        const c = await startChild(id, marker);
        c.child.kill('SIGKILL');
        await c.exited;
        if (o.survivesSigkill) expect(await o.leftovers(id, marker)).not.toEqual([]);
        await o.gc(id);
        expect(await o.leftovers(id, marker)).toEqual([]);
      });
    });
  });
}

export { execFileP };
