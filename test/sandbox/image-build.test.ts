/**
 * Issue 19: environments built from a Dockerfile on the engine — built once and then found by the context's
 * digest, data files in the image, `.dockerignore` honoured, a missing base image refused by name before any build,
 * a failing build reported with its log. Needs an engine; every image made here is removed afterwards.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dockerBackend, engineAnswers, ensureRuntimeImage, getDocker } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { execFileP } from './helpers.js';

const engine = await engineAnswers(WAIT_MS);

describe.skipIf(!engine)(engine ? 'image build' : 'image build — skipped: no docker engine answers', () => {
  let dir: string;
  const made = new Set<string>();
  const build = dockerBackend.build!.bind(dockerBackend);

  beforeAll(async () => {
    await ensureRuntimeImage();
    dir = await mkdtemp(join(os.tmpdir(), 'heldout-build-'));
  });
  afterAll(async () => {
    for (const tag of made) {
      await getDocker()
        .getImage(tag)
        .remove({ force: true })
        .catch(() => {});
    }
    await rm(dir, { recursive: true, force: true });
  });

  async function context(name: string, dockerfile: string, files: Record<string, string>): Promise<string> {
    const ctx = join(dir, name);
    await mkdir(join(ctx, 'data'), { recursive: true });
    await writeFile(join(ctx, 'Dockerfile'), dockerfile);
    for (const [f, body] of Object.entries(files)) await writeFile(join(ctx, f), body);
    return ctx;
  }
  const name = (what: string) => `i19-test-${what}-${process.pid}`;

  test('builds once, then an unchanged context is a cache hit; its data files are in the image', async () => {
    const ctx = await context('env', 'FROM heldout/runtime:1\nCOPY data/ /opt/env-data/\n', {
      'data/facts.json': '{"answer": 42}\n',
      '.dockerignore': 'data/*.secret\n',
      'data/x.secret': 'no',
    });
    const log = join(dir, 'env.log');
    const first = await build({ name: name('env'), context: ctx, logFile: log });
    made.add(first.image);
    expect(first.cached).toBe(false);
    expect(first.baseImages).toEqual(['heldout/runtime:1']);
    expect(first.image).toMatch(/^heldout\/build-i19-test-env-\d+:[0-9a-f]{12}$/);
    expect(await readFile(log, 'utf8')).toMatch(/COPY data\//);
    const info = await getDocker().getImage(first.image).inspect();
    expect(info.Config.Labels['heldout.context']).toBe(first.digest);

    const { stdout } = await execFileP('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      first.image,
      'sh',
      '-c',
      'cat /opt/env-data/facts.json; ls /opt/env-data',
    ]);
    expect(stdout).toContain('"answer": 42');
    expect(stdout).not.toContain('x.secret');

    // an ignored file changing changes nothing the build sees
    await writeFile(join(ctx, 'data/x.secret'), 'changed');
    const second = await build({ name: name('env'), context: ctx, logFile: log });
    expect(second).toMatchObject({ cached: true, id: first.id, image: first.image, digest: first.digest });
    expect(await readFile(log, 'utf8')).toMatch(/^cache hit: /);

    await writeFile(join(ctx, 'data/facts.json'), '{"answer": 43}\n');
    const third = await build({ name: name('env'), context: ctx });
    made.add(third.image);
    expect(third.cached).toBe(false);
    expect(third.digest).not.toBe(first.digest);
  });

  test('a base image the engine does not have is refused by name before anything is built', async () => {
    const ctx = await context('absent', 'FROM heldout-test/absent-base:never\nRUN true\n', {});
    const log = join(dir, 'absent.log');
    await expect(build({ name: name('absent'), context: ctx, logFile: log })).rejects.toThrow(
      /^image build i19-test-absent-\d+: base image heldout-test\/absent-base:never is not on this engine \(heldout pulls nothing/,
    );
    await expect(readFile(log)).rejects.toThrow();
  });

  test('a failing build is an error with its log tail, and the log is kept', async () => {
    const ctx = await context('fails', 'FROM heldout/runtime:1\nRUN echo "step output"; exit 7\n', {});
    const log = join(dir, 'fails.log');
    const err = await build({ name: name('fails'), context: ctx, logFile: log }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^image build i19-test-fails-\d+ failed: /);
    expect((err as Error).message).toContain('step output');
    expect(await readFile(log, 'utf8')).toContain('step output');
  });
});
