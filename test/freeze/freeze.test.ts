import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import freezeCommand from '../../src/cli/commands/freeze.js';
import { FreezeMismatchError, readFreeze, treeDigest, verifyFreeze, writeFreeze } from '../../src/freeze/index.js';

let root: string;
let delivery: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'heldout-freeze-'));
  delivery = join(root, 'delivery');
  await mkdir(join(delivery, 'lib'), { recursive: true });
  await writeFile(join(delivery, 'run_agent.py'), 'print("hello")\n');
  await writeFile(join(delivery, 'lib', 'util.py'), 'X = 1\n');
  await writeFile(join(delivery, 'run.sh'), '#!/bin/sh\n');
  await chmod(join(delivery, 'run.sh'), 0o644);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('freeze', () => {
  test('writeFreeze records digest, environment, policy, round and a per-file listing', async () => {
    const out = join(root, 'freeze.json');
    const m = await writeFreeze({ deliveryDir: delivery, policy: 'best-dev', round: 3, out });
    expect(m.digest).toBe(await treeDigest(delivery));
    expect(m.environmentDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(m.policy).toBe('best-dev');
    expect(m.round).toBe(3);
    expect(Object.keys(m.files).sort()).toEqual(['lib/util.py', 'run.sh', 'run_agent.py']);
    expect(m.files['lib/util.py']).toMatch(/^sha256:/);
    const back = await readFreeze(out);
    expect(back).toEqual(m);
    await expect(verifyFreeze(delivery, back)).resolves.toBe(m.digest);
  });

  test('tampering after freeze is refused, naming the changed, added, removed and re-moded files', async () => {
    const m = await writeFreeze({ deliveryDir: delivery });
    await writeFile(join(delivery, 'lib', 'util.py'), 'X = 2\n');
    await writeFile(join(delivery, 'new.txt'), 'n');
    await rm(join(delivery, 'run_agent.py'));
    await chmod(join(delivery, 'run.sh'), 0o755);
    const err = await verifyFreeze(delivery, m).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FreezeMismatchError);
    const e = err as FreezeMismatchError;
    expect(e.message).toContain('changed: lib/util.py');
    expect(e.message).toContain('added: new.txt');
    expect(e.message).toContain('removed: run_agent.py');
    expect(e.message).toContain('run.sh (644→755)');
    expect(e.changes.changed).toEqual(['lib/util.py']);
  });

  test('a different environment digest is a mismatch when the caller supplies one', async () => {
    const m = await writeFreeze({ deliveryDir: delivery, environment: { image: 'a', imageId: 'sha256:1' } });
    await expect(verifyFreeze(delivery, m, { environmentDigest: m.environmentDigest })).resolves.toBe(m.digest);
    await expect(verifyFreeze(delivery, m, { environmentDigest: `sha256:${'0'.repeat(64)}` })).rejects.toThrow(
      /environment changed/,
    );
  });

  test('freeze.json written inside the delivery is excluded from its own digest', async () => {
    const before = await treeDigest(delivery);
    const out = join(delivery, 'freeze.json');
    const m = await writeFreeze({ deliveryDir: delivery, out });
    expect(m.digest).toBe(before);
    expect(m.exclude).toContain('freeze.json');
    await expect(verifyFreeze(delivery, await readFreeze(out))).resolves.toBe(before);
  });

  test('readFreeze refuses a malformed manifest', async () => {
    const p = join(root, 'bad.json');
    await writeFile(p, JSON.stringify({ schema: 'heldout/freeze@1', digest: 'md5:x' }));
    await expect(readFreeze(p)).rejects.toThrow(/digest/);
  });

  test('heldout freeze <delivery> --policy --out writes the manifest', async () => {
    const out = join(root, 'f', 'freeze.json');
    const logs: string[] = [];
    const orig = console.log;
    console.log = (...a: unknown[]) => logs.push(a.join(' '));
    try {
      const code = await freezeCommand.run({
        values: { policy: 'last-accepted', out, 'no-image': true },
        positionals: [delivery],
      });
      expect(code).toBe(0);
    } finally {
      console.log = orig;
    }
    const m = JSON.parse(await readFile(out, 'utf8'));
    expect(m.policy).toBe('last-accepted');
    expect(m.digest).toBe(await treeDigest(delivery));
    expect(logs.join('\n')).toContain(m.digest);
  });
});
