/** `heldout image build`: the runtime image made without a registry, rebuilt only when its recipe changes. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import {
  buildRuntimeImage,
  engineAnswers,
  ensureRuntimeImage,
  getDocker,
  runtimeRecipe,
} from '../../src/sandbox/index.js';
import { tarStream } from '../../src/sandbox/tar.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const execFileP = promisify(execFile);
const engine = await engineAnswers(WAIT_MS);

describe('runtime image', () => {
  test('the recipe holds node, python3 with its stdlib (no test/), sh, coreutils and their libraries', async () => {
    const r = await runtimeRecipe();
    const paths = new Set(r.entries.map((e) => e.path));
    expect(paths.has('usr/bin/node')).toBe(true);
    expect(r.python).not.toBeNull();
    const v = r.python!.version;
    for (const p of [
      `usr/bin/python${v}`,
      'usr/bin/python3',
      'usr/bin/python',
      `usr/lib/python${v}/json/__init__.py`,
      'etc/passwd',
    ]) {
      expect(paths.has(p), p).toBe(true);
    }
    expect([...paths].some((p) => p.startsWith(`usr/lib/python${v}/test/`))).toBe(false);
    expect([...paths].some((p) => p.startsWith(`usr/lib/python${v}/lib-dynload/_sqlite3`))).toBe(true);
    expect([...paths].some((p) => /libsqlite3\.so/.test(p))).toBe(true);
    for (const t of ['sh', 'cat', 'ls', 'env', 'mkdir', 'cp', 'rm', 'sleep', 'head']) expect(r.tools).toContain(t);
    expect(r.hash).toBe((await runtimeRecipe()).hash);
  });

  test("the tools task verifiers use: bash, coreutils, git, patch, and the host's pytest where a python has it", async () => {
    const r = await runtimeRecipe();
    const has = async (cmd: string) =>
      execFileP('sh', ['-c', `command -v ${cmd}`]).then(
        () => true,
        () => false,
      );
    for (const t of ['bash', 'git', 'patch', 'sort', 'tr', 'sha256sum', 'timeout']) {
      if (await has(t)) expect(r.tools, t).toContain(t);
    }
    const hostPytest = await execFileP('python3', ['-c', 'import pytest; print(pytest.__version__)']).then(
      (x) => x.stdout.trim(),
      () => null,
    );
    if (hostPytest !== null && r.python?.version) {
      const paths = new Set(r.entries.map((e) => e.path));
      expect(paths.has('usr/bin/pytest')).toBe(true);
      expect([...paths].some((p) => /\/_pytest\/__init__\.py$/.test(p))).toBe(true);
      expect([...paths].some((p) => /\/pluggy\/__init__\.py$/.test(p))).toBe(true);
    }
  });

  test('the tar stream is a valid archive, long names included', async () => {
    const dir = await mkdtemp(join(os.tmpdir(), 'heldout-tar-'));
    try {
      const long = `${'d'.repeat(80)}/${'f'.repeat(90)}.txt`;
      await writeFile(join(dir, 'src.txt'), 'hello');
      const tar = join(dir, 'x.tar');
      const chunks: Buffer[] = [];
      for await (const c of tarStream([
        { type: 'dir', path: 'a', mode: 0o755 },
        { type: 'file', path: 'a/b.txt', mode: 0o644, source: join(dir, 'src.txt'), size: 5 },
        { type: 'content', path: long, mode: 0o600, content: Buffer.from('x') },
        { type: 'symlink', path: 'a/link', target: `/${'t'.repeat(120)}` },
      ])) {
        chunks.push(c as Buffer);
      }
      await writeFile(tar, Buffer.concat(chunks));
      const { stdout } = await execFileP('tar', ['-tvf', tar]);
      expect(stdout).toContain('a/b.txt');
      expect(stdout).toContain(long);
      expect(stdout).toContain(`a/link -> /${'t'.repeat(120)}`);
      const { stdout: content } = await execFileP('tar', ['-xOf', tar, 'a/b.txt']);
      expect(content).toBe('hello');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test.skipIf(!engine)(
    engine
      ? 'builds with docker import, then is reused while the recipe is unchanged'
      : 'image build — skipped: no docker engine',
    async () => {
      const tag = `heldout/runtime-test:${process.pid}`;
      const docker = getDocker();
      try {
        const built = await buildRuntimeImage({ tag });
        expect(built.built).toBe(true);
        const info = await docker.getImage(tag).inspect();
        expect(info.Config.Labels['heldout.recipe']).toBe(built.recipeHash);
        expect(info.Config.User).toBe('65534:65534');
        const inside = await execFileP('docker', [
          'run',
          '--rm',
          '--network',
          'none',
          tag,
          'bash',
          '-c',
          'echo "bash $BASH_VERSION"; git --version; patch --version | head -1; if command -v pytest >/dev/null; then cd /tmp && printf "def test_ok():\\n    assert True\\n" > test_x.py && pytest -q -p no:cacheprovider test_x.py | tail -1; fi',
        ]);
        expect(inside.stdout).toMatch(/^bash \d/m);
        expect(inside.stdout).toContain('git version');
        expect(inside.stdout).toContain('GNU patch');
        if (built.pytest) expect(inside.stdout).toContain('1 passed');
        const again = await ensureRuntimeImage({ tag });
        expect(again.built).toBe(false);
        expect(again.id).toBe(built.id);
      } finally {
        await docker
          .getImage(tag)
          .remove({ force: true })
          .catch(() => {});
      }
    },
  );
});
