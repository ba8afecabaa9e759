/**
 * Issue 19: case services on each backend. Docker runs them in a pod (needs an engine); the process backend as
 * children of the case's own network namespace where this host permits it, else refuses; swarm refuses them.
 */
import { describe, expect, test } from 'vitest';
import {
  createProcessBackend,
  createSwarmBackend,
  dockerBackend,
  engineAnswers,
  gc,
  processBackend,
  processCapabilities,
} from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { dockerPs } from './behaviours.js';
import { execFileP, makeCase, scratch, spec } from './helpers.js';
import { server, serviceBehaviours } from './service-behaviours.js';

const engine = await engineAnswers(WAIT_MS);
const caps = await processCapabilities();
const processServices = caps.netns && caps.loopbackUp !== null && caps.mountns;

async function pgrep(pattern: string): Promise<string[]> {
  try {
    return (await execFileP('pgrep', ['-f', pattern])).stdout.split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe.skipIf(!engine)(engine ? 'docker pod' : 'docker pod — skipped: no docker engine answers', () => {
  serviceBehaviours({
    name: 'docker',
    backend: () => dockerBackend,
    leftovers: (id) => dockerPs(id),
    // holder, service, case
    running: async (id) => (await dockerPs(id)).length >= 3,
    gc: (id) => gc({ runId: id }),
    missingImage: null,
  });
});

describe.skipIf(!processServices)(
  processServices
    ? 'process pod'
    : 'process pod — skipped: this host permits no network namespace with loopback and mount namespace',
  () => {
    serviceBehaviours({
      name: 'process',
      backend: () => processBackend,
      leftovers: (_id, marker) => pgrep(marker),
      running: async (_id, marker) => (await pgrep(`^sleep ${marker}$`)).length > 0,
      missingImage: 'the process backend runs no images (a service runs on the host’s binaries)',
    });
  },
);

describe('backends that cannot run a pod refuse services, saying why', () => {
  test('process backend without a network namespace: a clear refusal, nothing started', async () => {
    const s = await scratch('svc-refuse');
    try {
      const c = await makeCase(`${s.root}/cases`, 'c', 'x');
      const backend = createProcessBackend({ capabilities: { netns: false, loopbackUp: null } });
      const run = backend.run(
        spec({
          command: 'echo never',
          deliveryDir: s.delivery('ok'),
          inputPath: c.inputPath,
          outputDir: `${s.root}/out`,
          services: [server('svc', 'hello.mjs', ['7000', 'x'])],
        }),
      );
      await expect(run).rejects.toThrow(
        /^sandbox process: case services need a network namespace \(unshare -n\).*run this commission with --sandbox docker/,
      );
    } finally {
      await s.cleanup();
    }
  });

  test('swarm backend: commissions with services are refused (docs/scale-out.md), before anything is created', async () => {
    const s = await scratch('svc-swarm');
    try {
      const c = await makeCase(`${s.root}/cases`, 'c', 'x');
      const run = createSwarmBackend().run(
        spec({
          command: 'echo never',
          deliveryDir: s.delivery('ok'),
          inputPath: c.inputPath,
          outputDir: `${s.root}/out`,
          services: [server('svc', 'hello.mjs', ['7000', 'x'])],
        }),
      );
      await expect(run).rejects.toThrow(/^sandbox swarm: this commission declares case services.*--sandbox docker/);
    } finally {
      await s.cleanup();
    }
  });
});
