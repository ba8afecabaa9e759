import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serviceVariable } from '../../src/commission/index.js';
import { importAgentSwe } from '../../src/importers/index.js';
import {
  planCaseServices,
  relayedUrl,
  relayFailure,
  sandboxUrl,
  startCaseRelays,
} from '../../src/run/service-relays.js';
import { RELAY_FAILED_EXIT, relayWrapper } from '../../src/sandbox/gateway-wrapper.js';
import {
  createDockerBackend,
  dockerBackend,
  podmanBackend,
  type SandboxSpec,
  swarmBackend,
} from '../../src/sandbox/index.js';
import { heldout } from '../helpers/cli.js';
import { agentsweFixtures, tmp } from './helpers.js';

// A mapped URL service (issue 30) reached from a sandbox with no network the way the gateway is: a host Unix socket
// piped to the URL, bind-mounted in, and the relay on the sandbox's own 127.0.0.1 — on the fixture faithful to
// desktop-gui-automation, whose browser-control service is here a small HTTP server on the host's loopback.
const gui = path.join(agentsweFixtures, 'creation/desktop-gui-automation');
const noJudge = {
  ...process.env,
  HELDOUT_JUDGE_BASE_URL: '',
  HELDOUT_JUDGE_MODEL: '',
  OPENAI_BASE_URL: '',
  OPENAI_MODEL: '',
  GUI_CONTROL_TOKEN: 'cap-token',
};

describe('which URL is relayed where', () => {
  test('http(s) and ws(s) keep their scheme and the rest; the host relay connects to host:port', () => {
    const host = fc.constantFrom('127.0.0.1', 'localhost', 'gui.internal', '[::1]');
    const rest = fc.constantFrom('', '/', '/api/v1', '/x?y=1#z');
    fc.assert(
      fc.property(fc.constantFrom('http', 'https', 'ws', 'wss'), host, fc.option(fc.nat(65535)), rest, (s, h, p, r) => {
        const url = relayedUrl('svc', `${s}://${h}${p === null ? '' : `:${p}`}${r}`);
        const port = p ?? (s === 'https' || s === 'wss' ? 443 : 80);
        expect(url).toEqual({ target: { host: h.replace(/^\[|\]$/g, ''), port }, scheme: s, rest: r });
        expect(sandboxUrl(url!, 4142)).toBe(`${s}://127.0.0.1:4142${r}`);
      }),
    );
  });

  test('an http+unix URL targets its socket; a command is no URL; an unknown scheme is refused naming the service', () => {
    expect(relayedUrl('svc', 'http+unix://%2Frun%2Fgui.sock/api')).toEqual({
      target: { unix: '/run/gui.sock' },
      scheme: 'http',
      rest: '/api',
    });
    expect(relayedUrl('case-runtime', '/opt/agentswe-case/run_case')).toBeNull();
    expect(relayedUrl('case-runtime', 'run_case --fast')).toBeNull();
    expect(() => relayedUrl('search', 'ftp://h/x')).toThrow(
      /--service search=ftp:\/\/h\/x: cannot relay the scheme ftp/,
    );
    expect(() => relayedUrl('search', 'http://u:p@h/')).toThrow(/credentials in the URL/);
  });

  test('only a needed URL service is relayed; its variables become the loopback URL; a host command file is mounted', () => {
    const services = [
      { name: 'gui-control', env: ['GUI_CONTROL_URL'] },
      { name: 'case-runtime', env: [] },
      { name: 'search', env: [] },
    ];
    const mapped = { 'gui-control': 'http://127.0.0.1:8123/ui', 'case-runtime': '/bin/sh', search: 'http://s/' };
    const env = {
      [serviceVariable('gui-control')]: mapped['gui-control'],
      GUI_CONTROL_URL: mapped['gui-control'],
      [serviceVariable('case-runtime')]: '/bin/sh',
      GUI_CONTROL_TOKEN: 't',
    };
    const plan = planCaseServices(services, mapped, env, serviceVariable);
    expect(plan.relays).toEqual([
      {
        name: 'gui-control',
        target: { host: '127.0.0.1', port: 8123 },
        port: 4142,
        env: { HELDOUT_SERVICE_GUI_CONTROL: 'http://127.0.0.1:4142/ui', GUI_CONTROL_URL: 'http://127.0.0.1:4142/ui' },
      },
    ]);
    expect(plan.env).toEqual({ HELDOUT_SERVICE_CASE_RUNTIME: '/bin/sh', GUI_CONTROL_TOKEN: 't' });
    expect(plan.mounts).toEqual([expect.objectContaining({ containerPath: '/bin/sh', readOnly: true })]);
  });

  test('a service relay that never listens stops the case before its command, and the reason names the service', async () => {
    const script = relayWrapper(
      'echo the-command-ran',
      [{ port: 1, script: '/nonexistent/relay.mjs', socket: '/nonexistent.sock', service: 'gui-control' }],
      'n0nce',
      process.execPath,
    );
    const r = await promisify(execFile)('/bin/sh', ['-c', script]).catch((e) => e);
    expect(r.code).toBe(RELAY_FAILED_EXIT);
    expect(r.stdout).not.toMatch(/the-command-ran/);
    const relays = [{ name: 'gui-control', port: 1, socketPath: '/s', relayScript: '/r', env: {} }];
    expect(relayFailure({ exitCode: r.code, stderr: r.stderr }, relays, 'n0nce')).toMatch(
      /service "gui-control": its relay did not start in the sandbox/,
    );
    // The delivery cannot pass its own exit off as the relay's without the case's nonce.
    expect(relayFailure({ exitCode: r.code, stderr: r.stderr }, relays, 'other')).toBeNull();
  });
});

const onDocker = await dockerBackend.available();
// Podman is the same container backend on its own engine (CI starts one; skipped here without it).
const onPodman = await podmanBackend.available();

test.skipIf(!onDocker)(
  'a mapped command that is a file on this host runs in a container at its documented path',
  async () => {
    const d = tmp('case-runtime');
    const runCase = path.join(d, 'run_case');
    writeFileSync(runCase, '#!/bin/sh\necho "ran $1" > "$HELDOUT_OUTPUT/runtime.txt"\n');
    chmodSync(runCase, 0o755);
    writeFileSync(path.join(d, 'input.md'), 'x');
    chmodSync(d, 0o755);
    const contract = '/opt/agentswe-case/run_case';
    const env = { [serviceVariable('case-runtime')]: contract };
    // The plan mounts a host file at its own path; here a temp file stands in for the contract's, which this host lacks.
    const plan = planCaseServices(
      [{ name: 'case-runtime', env: [] }],
      { 'case-runtime': runCase },
      { [serviceVariable('case-runtime')]: runCase },
      serviceVariable,
    );
    expect(plan.mounts).toEqual([{ hostPath: runCase, containerPath: runCase, readOnly: true }]);
    const x = await dockerBackend.run({
      runId: 'svc-relay-cmd',
      caseId: 'test_001',
      trial: 1,
      command: `"$HELDOUT_SERVICE_CASE_RUNTIME" tamper_seed`,
      deliveryDir: d,
      inputPath: path.join(d, 'input.md'),
      assetsDir: null,
      outputDir: path.join(d, 'out'),
      env,
      limits: { wallSeconds: 60, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
      mounts: [{ ...plan.mounts[0]!, containerPath: contract }],
    });
    expect(x.exitCode, x.stderr).toBe(0);
    expect(readFileSync(path.join(d, 'out/runtime.txt'), 'utf8')).toBe('ran tamper_seed\n');
  },
);

describe("backends that cannot bind this host's sockets refuse by name", () => {
  function spec(): SandboxSpec {
    const d = tmp('relay-refused');
    writeFileSync(path.join(d, 'input.md'), 'x');
    chmodSync(d, 0o755);
    return {
      runId: 'relay-refused',
      caseId: 'test_001',
      trial: 1,
      command: 'true',
      deliveryDir: d,
      inputPath: path.join(d, 'input.md'),
      assetsDir: null,
      outputDir: path.join(d, 'out'),
      limits: { wallSeconds: 30, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
      serviceRelays: [{ name: 'gui-control', socketPath: '/s.sock', relayScript: '/r.mjs', port: 4142, env: {} }],
    };
  }
  const refused = /the mapped service "gui-control" cannot be relayed to .*Unix socket is on this host/;

  test('swarm', async () => {
    await expect(swarmBackend.run(spec())).rejects.toThrow(refused);
  });

  test.skipIf(!onDocker)('a docker engine reached through archive transfer (a remote one)', async () => {
    await expect(createDockerBackend({ transfer: 'archive' }).run(spec())).rejects.toThrow(refused);
  });
});

describe('heldout run with --service gui-control=<a host URL>', () => {
  let dir: string;
  let service: http.Server;
  let other: http.Server;
  let servicePort: number;
  let otherPort: number;
  const seen: { url: string; token: string | undefined }[] = [];
  beforeAll(async () => {
    dir = path.join(tmp('relay-run'), 'c');
    await importAgentSwe(gui, dir);
    service = http.createServer((req, res) => {
      seen.push({ url: req.url ?? '', token: req.headers['x-gui-token'] as string | undefined });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ screen: 'settled', via: 'browser-control' }));
    });
    // Another service on the host's loopback the sandbox must not reach.
    other = http.createServer((_req, res) => res.end('leak'));
    await Promise.all([service, other].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    servicePort = (service.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
  });
  afterAll(() => {
    service?.close();
    other?.close();
  });

  /** A delivery that asks the browser-control service for its state and writes the gated files only with its answer. */
  function delivery(): string {
    const d = tmp('relay-delivery');
    const py = `import json, os, socket, sys, urllib.request
out = sys.argv[sys.argv.index('--output') + 1]
req = urllib.request.Request(os.environ['GUI_CONTROL_URL'] + 'state', headers={'x-gui-token': os.environ['GUI_CONTROL_TOKEN']})
state = json.loads(urllib.request.urlopen(req).read())
try:
    socket.create_connection(('127.0.0.1', ${otherPort})).close()
    sys.exit('another host port is reachable from the sandbox')
except OSError:
    pass
for f in ['automation_result.json', 'initial_state.png', 'decisive_step.png', 'final_state.png', 'run_report.json']:
    open(os.path.join(out, f), 'w').write(json.dumps({'case_id': 'test_001', 'state': state}) if f.endswith('.json') else 'png')
`;
    writeFileSync(path.join(d, 'run_agent.py'), py);
    chmodSync(path.join(d, 'run_agent.py'), 0o644);
    chmodSync(d, 0o755);
    return d;
  }

  async function run(sandbox: string, args: string[]) {
    const out = tmp('relay-out');
    mkdirSync(out, { recursive: true });
    const r = await heldout(
      ['run', dir, '--delivery', delivery(), '--out', out, '--no-judge-cache', '--sandbox', sandbox, ...args],
      { env: noJudge },
    );
    expect(r.code, r.out).not.toBe(2);
    const s = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const c = s.commissions[0].cases[0] as { id: string; status: string; gate: string | null; reason: string | null };
    return { c, out, r };
  }

  const skip: Record<string, boolean> = { docker: !onDocker, podman: !onPodman, process: false };
  for (const sandbox of ['docker', 'podman', 'process']) {
    test.skipIf(skip[sandbox])(
      `on ${sandbox}: the delivery reaches the service and passes its gates; nothing else of the host`,
      async () => {
        seen.length = 0;
        const { c, r } = await run(sandbox, ['--service', `gui-control=http://127.0.0.1:${servicePort}/gui/`]);
        // Past every gate; unscored only for want of a judge model.
        expect([c.status, c.gate], `${c.reason}\n${r.out}`).toEqual(['unscored', null]);
        expect(seen).toEqual([{ url: '/gui/state', token: 'cap-token' }]);
      },
    );
  }

  test('mapped to a port where nothing listens: the case is refused naming the service (session: an infra-error)', async () => {
    const target = { host: '127.0.0.1', port: 1 };
    await expect(startCaseRelays([{ name: 'gui-control', target, port: 4142, env: {} }], '/r')).rejects.toThrow(
      /service "gui-control" is mapped to 127\.0\.0\.1:1, where nothing answers/,
    );
  });

  test('an unknown scheme is a usage error naming the service (exit 2)', async () => {
    const r = await heldout(['run', dir, '--delivery', tmp('d'), '--service', 'gui-control=ftp://127.0.0.1/']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/--service: gui-control=ftp:\/\/127\.0\.0\.1\/: cannot relay the scheme ftp/);
  });
});
