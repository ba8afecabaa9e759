// Issue 19's environment files read by issue 17's hostile-input rules (item 10): a case's `case.yaml`, the files a
// service mounts and a build's context and Dockerfile are read like every other file of the package — only regular
// files inside it (a case's own sources inside that case), no FIFO or device opened, no link followed out, every
// refusal one `file: field: problem` line. A service's mounted directory matters on the process backend, whose
// services read it on the host: a link inside it to /etc/shadow would be the host's file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { CommissionError, formatProblem, loadCommission } from '../../src/commission/index.js';
import { heldout } from '../helpers/cli.js';
import { writePackage } from './package-fixtures.js';

const rubric = {
  dimensions: [{ id: 'd', title: 'D', max: 100, items: [{ check: 'exists', file: 'out.json', points: 100 }] }],
};
const base = { id: 'env-hostile', title: 'Env', family: 'creation', entry: 'true' };
const api = { name: 'api', image: 'heldout/runtime:1', files: { '{commission}/srv/api.mjs': '/srv/api.mjs' } };
const db = { name: 'db', image: 'heldout/runtime:1', files: { fixture: '/data' } };

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A valid package with a commission service, a case.yaml service and a build, then changed by `edit`. */
function pkg(edit: (at: (rel: string) => string) => void, commission: object = {}): string {
  const dir = writePackage({
    commission: { ...base, services: [api], sandbox: { build: { context: 'environment' } }, ...commission },
    rubric,
    heldout: ['h1', 'h2'],
  });
  made.push(dir);
  const at = (rel: string) => path.join(dir, rel);
  mkdirSync(at('srv'));
  writeFileSync(at('srv/api.mjs'), '// api\n');
  mkdirSync(at('environment'));
  writeFileSync(at('environment/Dockerfile'), 'FROM heldout/runtime:1\n');
  writeFileSync(at('cases/heldout/h1/case.yaml'), stringify({ services: [db] }));
  mkdirSync(at('cases/heldout/h1/fixture'));
  writeFileSync(at('cases/heldout/h1/fixture/rows.json'), '[]\n');
  edit(at);
  return dir;
}

async function lines(dir: string): Promise<string[] | null> {
  try {
    await loadCommission(dir, { casesRoot: '' });
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(CommissionError);
    return (err as CommissionError).problems.map((p) => formatProblem(p));
  }
}

const replace = (p: string, make: (p: string) => void) => {
  rmSync(p, { recursive: true, force: true });
  make(p);
};

describe('case.yaml', () => {
  test('the valid package loads (links inside their base are fine)', async () => {
    const dir = pkg((at) => symlinkSync('rows.json', at('cases/heldout/h1/fixture/alias.json')));
    expect(await lines(dir)).toBeNull();
  });

  test('linked out of the package, a directory, a FIFO: refused by name, never read', async () => {
    const out = pkg((at) => replace(at('cases/heldout/h1/case.yaml'), (p) => symlinkSync('/etc/passwd', p)));
    expect(await lines(out)).toEqual([
      'cases/heldout/h1/case.yaml: (root): is a link that leads out of the package (to /etc/passwd)',
    ]);
    const isDir = pkg((at) => replace(at('cases/heldout/h1/case.yaml'), (p) => mkdirSync(p)));
    expect(await lines(isDir)).toEqual(['cases/heldout/h1/case.yaml: (root): must be a regular file, not a directory']);
    const fifo = pkg((at) => replace(at('cases/heldout/h1/case.yaml'), (p) => spawnSync('mkfifo', [p])));
    expect(await lines(fifo)).toEqual(['cases/heldout/h1/case.yaml: (root): is a FIFO, not a regular file']);
  });

  test('YAML aliases and nesting are bounded as in commission.yaml', async () => {
    const bomb = [
      'a: &a [x,x,x,x,x,x,x,x,x]',
      ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`),
    ].join('\n');
    const dir = pkg((at) => writeFileSync(at('cases/heldout/h1/case.yaml'), `${bomb}\n`));
    const got = await lines(dir);
    expect(got).toHaveLength(1);
    expect(got![0]).toMatch(/^cases\/heldout\/h1\/case\.yaml: [^:]+: .*alias/i);
    const deep = pkg((at) => writeFileSync(at('cases/heldout/h1/case.yaml'), `services: ${'['.repeat(5000)}`));
    expect(await lines(deep)).toEqual(['cases/heldout/h1/case.yaml: line 1: nests deeper than 100 levels']);
  });
});

describe('service files', () => {
  test('a link inside a mounted directory that leads to a host file is refused, naming the link', async () => {
    const dir = pkg((at) => symlinkSync('/etc/shadow', at('cases/heldout/h1/fixture/shadow')));
    expect(await lines(dir)).toEqual([
      'cases/heldout/h1/case.yaml: services.0.files.fixture: cases/heldout/h1/fixture/shadow is a link that leads out of the mounted directory (to /etc/shadow) (case h1)',
    ]);
  });

  test("a case's source is its own: a link to another case's directory (its truth) is refused", async () => {
    const dir = pkg((at) => replace(at('cases/heldout/h1/fixture'), (p) => symlinkSync('../h2', p)));
    const got = await lines(dir);
    expect(got).toHaveLength(1);
    expect(got![0]).toMatch(
      /^cases\/heldout\/h1\/case\.yaml: services\.0\.files\.fixture: is a link that leads out of its case directory .*\(case h1\)$/,
    );
  });

  test('a {commission}/ source linked to a host file, or a device, is refused for every case that mounts it', async () => {
    const dir = pkg((at) => replace(at('srv/api.mjs'), (p) => symlinkSync('/etc/passwd', p)));
    const got = await lines(dir);
    for (const c of ['d1', 'h1', 'h2']) {
      expect(got).toContain(
        `commission.yaml: services.0.files.{commission}/srv/api.mjs: is a link that leads out of the package (to /etc/passwd) (case ${c})`,
      );
    }
    const fifo = pkg((at) => spawnSync('mkfifo', [at('cases/heldout/h1/fixture/pipe')]));
    expect(await lines(fifo)).toEqual([
      'cases/heldout/h1/case.yaml: services.0.files.fixture: cases/heldout/h1/fixture/pipe is a FIFO, not a regular file (case h1)',
    ]);
  });
});

describe('builds', () => {
  test('a context or Dockerfile out of the package is refused: by its path, or where a link leads', async () => {
    const dotdot = pkg(() => {}, { sandbox: { build: { context: '../..', dockerfile: '../x/Dockerfile' } } });
    expect(await lines(dotdot)).toEqual([
      'commission.yaml: sandbox.build.context: must be a relative path inside its directory (no "..", not absolute)',
      'commission.yaml: sandbox.build.dockerfile: must be inside the context',
    ]);
    const linked = pkg((at) => replace(at('environment'), (p) => symlinkSync('/etc', p)));
    expect(await lines(linked)).toEqual([
      'commission.yaml: sandbox.build.context: environment is a link that leads out of the package (to /etc)',
    ]);
    const df = pkg((at) => replace(at('environment/Dockerfile'), (p) => symlinkSync('/etc/passwd', p)));
    expect(await lines(df)).toEqual([
      'commission.yaml: sandbox.build.dockerfile: Dockerfile is a link that leads out of the context (to /etc/passwd)',
    ]);
  });
});

test('heldout validate prints these as file: field: problem lines, exit 2, no stack', async () => {
  const dir = pkg((at) => {
    replace(at('cases/heldout/h1/case.yaml'), (p) => symlinkSync('/dev/zero', p));
    symlinkSync('/etc/shadow', at('cases/heldout/h1/fixture/shadow'));
  });
  const r = await heldout(['validate', dir]);
  expect(r.code, r.out).toBe(2);
  expect(r.out).toContain('cases/heldout/h1/case.yaml: (root): is a link that leads out of the package (to /dev/zero)');
  expect(r.out).not.toMatch(/\n\s+at /);
});
