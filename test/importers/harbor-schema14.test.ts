/**
 * Harbor schema 1.4's task fields as Harbor's `verifier_mode.py` resolves them: an explicit environment_mode wins, a
 * [verifier.environment] implies separate, a step inherits the task's mode and environment, the step's tests/ is
 * its build context; collect hooks in main are kept, in sidecars refused by name. Registry references
 * (`org/name@ref`) and dataset manifests are refused naming what to download.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { cachedPackage } from '../../src/importers/harbor-collections.js';
import { readTaskToml } from '../../src/importers/harbor-task.js';
import { type ImportError, importHarbor } from '../../src/importers/index.js';
import { parseToml } from '../../src/importers/toml.js';
import { tmp } from './helpers.js';

const read = (toml: string, files: string[] = []) =>
  readTaskToml(parseToml(toml), { multiStep: toml.includes('[[steps]]'), has: (rel) => files.includes(rel) });

describe('the verifier environment mode', () => {
  test('[verifier.environment] implies separate; its docker_image is the image; no build then', () => {
    const r = read('[verifier.environment]\ndocker_image = "org/verifier:1"\nnetwork_mode = "no-network"\ncpus = 2\n');
    expect(r.unsupported).toEqual([]);
    expect((r.harbor.verifier as { separate: unknown }).separate).toEqual({
      image: 'org/verifier:1',
      context: 'harbor/tests',
      dockerfile: null,
      workdir: null,
      memoryMb: null,
      cpus: 2,
      network: 'no-network',
    });
  });

  test('separate without an environment is a fresh copy of [environment], built from tests/Dockerfile', () => {
    const r = read('[verifier]\nenvironment_mode = "separate"\n[environment]\nmemory_mb = 1024\n', [
      'tests/Dockerfile',
    ]);
    expect((r.harbor.verifier as { separate: unknown }).separate).toMatchObject({
      image: null,
      dockerfile: 'Dockerfile',
      memoryMb: 1024,
    });
  });

  test('a step inherits the task mode, builds from its own tests/ when it has one, and may override to shared', () => {
    const toml = `[verifier]\nenvironment_mode = "separate"\n[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n[steps.verifier]\nenvironment_mode = "shared"\n`;
    const r = read(toml, ['tests/Dockerfile', 'steps/one/tests', 'steps/one/tests/Dockerfile']);
    const steps = r.harbor.steps as { name: string; verifier: { separate: { context: string } | null } }[];
    expect(steps.map((s) => [s.name, s.verifier.separate?.context ?? null])).toEqual([
      ['one', 'harbor/steps/one/tests'],
      ['two', null],
    ]);
  });

  test('what cannot be run is refused by name', () => {
    expect(read('[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 1\n').unsupported).toEqual([
      '[verifier]: environment_mode = "shared" with a [verifier.environment] (Harbor refuses it)',
    ]);
    expect(read('[verifier]\nenvironment_mode = "separate"\n').unsupported).toEqual([
      '[verifier]: a separate verifier environment with neither tests/Dockerfile nor a docker_image (Harbor has nothing to build it from)',
    ]);
  });

  test('collect hooks: main ones kept with their timeout and user, a sidecar one refused', () => {
    const r = read(
      '[[verifier.collect]]\ncommand = "snap"\nuser = "app"\n[[verifier.collect]]\ncommand = "dump"\nservice = "db"\n',
    );
    expect((r.harbor.verifier as { collect: unknown }).collect).toEqual([
      { command: 'snap', timeoutSeconds: 60, user: 'app' },
    ]);
    expect(r.unsupported).toEqual([
      '[verifier] [[verifier.collect]] in compose service db (heldout runs commands only in the main container)',
    ]);
  });
});

describe('registry references', () => {
  const missing = async (source: string) =>
    ((await importHarbor(source, path.join(tmp('harbor-ref'), 'c')).catch((e) => e)) as ImportError).missing;

  test('org/name@ref is a registry package: refused, saying how to get the directory', async () => {
    expect(await missing('harbor/hello-world@latest')).toEqual([
      "a Harbor registry package reference (org/name@ref) that is not in Harbor's cache (~/.cache/harbor/tasks/packages, by digest): heldout fetches nothing (no network); `harbor download harbor/hello-world@latest` and import the directory it writes",
    ]);
  });

  test("org/name@sha256:<digest> in Harbor's cache is imported from there, as Harbor would run it", async () => {
    const home = tmp('harbor-home');
    const digest = 'ab12cd34';
    const dir = path.join(home, '.cache/harbor/tasks/packages/heldout/hello', digest);
    cpSync(path.resolve(import.meta.dirname, '../../fixtures/importers/harbor-hello'), dir, { recursive: true });
    expect(cachedPackage(`heldout/hello@sha256:${digest}`, home)).toBe(dir);
    expect(cachedPackage('heldout/hello@latest', home)).toBeNull();
    expect(cachedPackage('heldout/hello@sha256:ffff', home)).toBeNull();
    const before = process.env.HOME;
    process.env.HOME = home;
    try {
      const r = await importHarbor(`heldout/hello@sha256:${digest}`, path.join(tmp('harbor-ref'), 'c'));
      expect(r.id).toBe('hello-greeting');
    } finally {
      process.env.HOME = before;
    }
  });

  test('a dataset manifest is refused naming its tasks as org/name@digest', async () => {
    const dir = path.join(tmp('harbor-dataset'), 'ds');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'dataset.toml'),
      '[dataset]\nname = "org/suite"\n[[tasks]]\nname = "org/a"\ndigest = "sha256:abc"\n[[tasks]]\nname = "org/b"\ndigest = "sha256:def"\n',
    );
    const m = await missing(dir);
    expect(m).toHaveLength(1);
    expect(m[0]).toMatch(
      /^a Harbor dataset manifest \(dataset\.toml\), not a task.*: org\/a@sha256:abc, org\/b@sha256:def$/,
    );
  });
});
