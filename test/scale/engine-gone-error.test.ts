/**
 * Issue 13: when the engine does not answer mid-run, both container backends reject with an EngineGoneError whose
 * message says so (the run session records the case as an infra-error). A real client aimed at a socket nobody
 * listens on stands for an engine that went away.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, test } from 'vitest';
import {
  createDockerBackend,
  createSwarmBackend,
  EngineGoneError,
  isEngineGone,
  type SandboxSpec,
} from '../../src/sandbox/index.js';

const root = mkdtempSync(join(os.tmpdir(), 'heldout-gone-'));
chmodSync(root, 0o755);
mkdirSync(join(root, 'delivery'), { mode: 0o755 });
writeFileSync(join(root, 'input.md'), 'x');
const gone = new Docker({ socketPath: join(root, 'no-engine.sock') });

const spec: SandboxSpec = {
  runId: 'gone',
  caseId: 'c1',
  trial: 1,
  image: 'heldout/does-not-matter:1',
  command: 'true',
  deliveryDir: join(root, 'delivery'),
  inputPath: join(root, 'input.md'),
  assetsDir: null,
  outputDir: join(root, 'out'),
  limits: { wallSeconds: 5, memoryMb: 64, cpus: 1, pids: 16, outputBytes: 1024 },
};

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('an engine that stopped answering', () => {
  for (const [name, backend] of [
    ['docker (bind)', createDockerBackend({ docker: gone, transfer: 'bind' })],
    ['docker (archive)', createDockerBackend({ docker: gone, transfer: 'archive' })],
    ['swarm', createSwarmBackend({ docker: gone })],
  ] as const) {
    test(`${name}: the run rejects saying the engine stopped answering`, async () => {
      const err = await backend.run(spec).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EngineGoneError);
      expect((err as Error).message).toContain(`the docker engine at unix://${join(root, 'no-engine.sock')}`);
      expect((err as Error).message).toContain('stopped answering');
      expect(isEngineGone(err)).toBe(true);
    });
  }

  test('an API error (an answer) is not a lost engine', () => {
    expect(isEngineGone(Object.assign(new Error('no such container'), { statusCode: 404 }))).toBe(false);
    expect(isEngineGone(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
  });
});
