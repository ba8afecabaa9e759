import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import { scanTree, treeDigest } from '../../src/freeze/index.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'heldout-digest-'));
  roots.push(d);
  return d;
}

interface FileSpec {
  path: string;
  content: Uint8Array;
  mode: number;
}

// File names end in ".f" so they never collide with the directory names below.
const name = fc.stringMatching(/^[a-zA-Z0-9_-]{1,6}$/).map((s) => `${s}.f`);
const dirPrefix = fc.constantFrom('', 'sub/', 'sub/deep/', 'other dir/');
const mode = fc.constantFrom(0o644, 0o755, 0o600, 0o444);
const files = fc.uniqueArray(
  fc.record({
    path: fc.tuple(dirPrefix, name).map(([d, n]) => d + n),
    content: fc.uint8Array({ maxLength: 64 }),
    mode,
  }),
  { minLength: 1, maxLength: 8, selector: (f) => f.path },
);

async function materialise(root: string, specs: FileSpec[]): Promise<void> {
  for (const f of specs) {
    await mkdir(dirname(join(root, f.path)), { recursive: true });
    await writeFile(join(root, f.path), f.content);
    await chmod(join(root, f.path), f.mode);
  }
}

describe('treeDigest', () => {
  test('has the documented byte layout', async () => {
    const root = await tempDir();
    await writeFile(join(root, 'b.txt'), 'hi');
    await chmod(join(root, 'b.txt'), 0o644);
    await symlink('b.txt', join(root, 'a-link'));
    const expected = createHash('sha256')
      .update('heldout-tree-v1\n')
      .update('L\0a-link\0b.txt\0')
      .update('F\x00b.txt\x00644\x002\x00hi')
      .digest('hex');
    expect(await treeDigest(root)).toBe(`sha256:${expected}`);
  });

  test('ignores .git and empty directories, follows no symlink', async () => {
    const root = await tempDir();
    await writeFile(join(root, 'x'), '1');
    const before = await treeDigest(root);
    await mkdir(join(root, '.git'));
    await writeFile(join(root, '.git', 'index'), 'changes on every git status');
    await mkdir(join(root, 'empty'));
    expect(await treeDigest(root)).toBe(before);
    await symlink('/etc/passwd', join(root, 'p'));
    const scan = await scanTree(root);
    expect(scan.entries.find((e) => e.path === 'p')).toEqual({ path: 'p', type: 'symlink', target: '/etc/passwd' });
  });

  test.prop([files, fc.infiniteStream(fc.nat())], { numRuns: 25 })(
    'does not depend on the order files were created in',
    async (specs, randoms) => {
      const a = await tempDir();
      const b = await tempDir();
      await materialise(a, specs);
      const shuffled = [...specs].sort(() => (randoms.next().value % 3) - 1).reverse();
      await materialise(b, shuffled);
      expect(await treeDigest(b)).toBe(await treeDigest(a));
    },
  );

  test.prop([files, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 })], { numRuns: 25 })(
    'changes when any byte changes',
    async (specs, which, at, delta) => {
      const root = await tempDir();
      await materialise(root, specs);
      const before = await treeDigest(root);
      const f = specs[which % specs.length];
      const content = Buffer.from(f.content);
      if (content.length === 0) {
        await writeFile(join(root, f.path), Buffer.from([delta]));
      } else {
        const i = at % content.length;
        content[i] = (content[i] + delta) % 256;
        await writeFile(join(root, f.path), content);
      }
      expect(await treeDigest(root)).not.toBe(before);
    },
  );

  test.prop([files, fc.nat(), mode], { numRuns: 25 })('changes when a mode changes', async (specs, which, newMode) => {
    const root = await tempDir();
    await materialise(root, specs);
    const before = await treeDigest(root);
    const f = specs[which % specs.length];
    await chmod(join(root, f.path), newMode);
    const after = await treeDigest(root);
    if (newMode === f.mode) expect(after).toBe(before);
    else expect(after).not.toBe(before);
  });

  test.prop([files, fc.nat(), name], { numRuns: 25 })('changes when a name changes', async (specs, which, newName) => {
    const root = await tempDir();
    await materialise(root, specs);
    const before = await treeDigest(root);
    const f = specs[which % specs.length];
    const target = join(dirname(f.path), `renamed-${newName}`);
    await rename(join(root, f.path), join(root, target));
    expect(await treeDigest(root)).not.toBe(before);
  });

  test('changes when a symlink target changes', async () => {
    const root = await tempDir();
    await symlink('a', join(root, 'l'));
    const before = await treeDigest(root);
    await rm(join(root, 'l'));
    await symlink('b', join(root, 'l'));
    expect(await treeDigest(root)).not.toBe(before);
  });
});
