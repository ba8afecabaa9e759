/**
 * Issue 19's package fields as the loader checks them: `services` (commission and case.yaml), `sandbox.build` and
 * `images` — a valid package loads with defaults, every problem is `file: field: problem`, a case's own services
 * extend (or replace by name) the commission's.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { CommissionError, caseServices, formatProblem, loadCommission } from '../../src/commission/index.js';
import { writePackage } from './package-fixtures.js';

const rubric = {
  dimensions: [{ id: 'd', title: 'D', max: 100, items: [{ check: 'exists', file: 'out.json', points: 100 }] }],
};
const base = { id: 'env-pkg', title: 'Env', family: 'creation', entry: 'true' };

async function problemsOf(dir: string): Promise<string[]> {
  try {
    await loadCommission(dir);
    return [];
  } catch (err) {
    if (!(err instanceof CommissionError)) throw err;
    return err.problems.map((p) => formatProblem(p));
  }
}

describe('case environment fields', () => {
  test('services, a build and an image map load with their defaults; a case.yaml adds and replaces services', async () => {
    const dir = writePackage({
      commission: {
        ...base,
        sandbox: { build: { context: 'environment' } },
        images: { 'ubuntu:24.04': 'heldout/runtime:1' },
        services: [
          { name: 'api', image: 'heldout/runtime:1', command: 'node /srv/api.mjs', ready: { tcp: 8080 } },
          { name: 'db', image: 'heldout/runtime:1', files: { fixture: '/data' } },
        ],
      },
      rubric,
    });
    try {
      mkdirSync(path.join(dir, 'environment'));
      writeFileSync(path.join(dir, 'environment', 'Dockerfile'), 'FROM ubuntu:24.04\n');
      for (const c of ['dev/d1', 'heldout/h1']) mkdirSync(path.join(dir, 'cases', c, 'fixture'));
      writeFileSync(
        path.join(dir, 'cases/heldout/h1/case.yaml'),
        stringify({
          services: [
            { name: 'db', image: 'heldout/runtime:1', ready: { command: ['true'] } },
            { name: 'mail', build: { context: 'mail' } },
          ],
        }),
      );
      mkdirSync(path.join(dir, 'cases/heldout/h1/mail'));
      writeFileSync(path.join(dir, 'cases/heldout/h1/mail/Dockerfile'), 'FROM heldout/runtime:1\n');
      const c = await loadCommission(dir);
      expect(c.config.sandbox.build).toEqual({ context: 'environment', dockerfile: 'Dockerfile', args: {} });
      expect(c.config.images).toEqual({ 'ubuntu:24.04': 'heldout/runtime:1' });
      expect(c.config.services[0]).toMatchObject({ name: 'api', timeout: 60, env: {}, files: {}, memoryMb: 1024 });
      const h1 = c.cases.heldout[0];
      expect(caseServices(c.config.services, h1.services).map((s) => [s.name, s.ready])).toEqual([
        ['api', { tcp: 8080 }],
        ['db', { command: ['true'] }],
        ['mail', undefined],
      ]);
      expect(caseServices(c.config.services, c.cases.dev[0].services).map((s) => s.name)).toEqual(['api', 'db']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every problem is named as file: field: problem', async () => {
    const dir = writePackage({
      commission: {
        ...base,
        sandbox: { image: 'x:1', build: { context: 'nowhere' } },
        images: { 'ubuntu:24.04': 7 },
        services: [
          { name: 'API', image: 'x' },
          { name: 'db' },
          { name: 'db', image: 'y', build: { context: '.' }, ready: { http: 'health', port: 0 } },
          { name: 'files', image: 'x', files: { '../up': '/x', fixture: 'relative' } },
          { name: 'localhost', image: 'x', unknown: 1 },
        ],
      },
      rubric,
    });
    try {
      writeFileSync(
        path.join(dir, 'cases/heldout/h1/case.yaml'),
        stringify({ services: [{ name: 'z', image: 'z', timeout: -1 }], extra: 1 }),
      );
      const problems = await problemsOf(dir);
      for (const expected of [
        'commission.yaml: sandbox.build: give image or build, not both',
        'commission.yaml: images.ubuntu:24.04: ',
        'commission.yaml: services.0.name: must be a host name',
        'commission.yaml: services.1.image: give exactly one of image and build',
        'commission.yaml: services.2.name: duplicate service db',
        'commission.yaml: services.2.image: give exactly one of image and build',
        'commission.yaml: services.2.ready',
        'commission.yaml: services.3.files.../up: must be a path inside the case directory',
        'commission.yaml: services.3.files.fixture: must be an absolute path inside the service',
        'commission.yaml: services.4.name: is reserved',
        'commission.yaml: services.4.unknown: unknown field',
        'cases/heldout/h1/case.yaml: extra: unknown field',
        'cases/heldout/h1/case.yaml: services.0.timeout: ',
      ]) {
        expect(
          problems.some((p) => p.startsWith(expected)),
          `${expected}\n${problems.join('\n')}`,
        ).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a build context that is not there, and service files a case lacks, are named before anything runs', async () => {
    const dir = writePackage({
      commission: {
        ...base,
        sandbox: { build: { context: 'environment', dockerfile: 'Containerfile' } },
        services: [{ name: 'api', image: 'x', files: { fixture: '/data', '{commission}/srv/api.py': '/srv/api.py' } }],
      },
      rubric,
      heldout: ['h1', 'h2'],
    });
    try {
      mkdirSync(path.join(dir, 'environment'));
      mkdirSync(path.join(dir, 'cases/heldout/h1/fixture'));
      const problems = await problemsOf(dir);
      expect(problems).toContain('commission.yaml: sandbox.build.dockerfile: Containerfile not found in environment');
      expect(problems).toContain('commission.yaml: services.0.files.fixture: not found for case h2');
      expect(problems).toContain('commission.yaml: services.0.files.{commission}/srv/api.py: not found for case h1');
      expect(problems.some((p) => p.includes('fixture: not found for case h1'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
