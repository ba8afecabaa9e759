/**
 * Issue 33's pure pieces: where podman's socket is, which rlimits a podman container is given, and which id an
 * import's progress names (docker's and podman's shapes).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { containerUlimits, ownLimit } from '../../src/sandbox/docker/flavour.js';
import { importedId } from '../../src/sandbox/docker/runtime-image.js';
import { podmanSocket } from '../../src/sandbox/index.js';

const limitsText = (nofile: [string, string], nproc: [string, string]) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    `Max processes             ${nproc[0].padEnd(21)}${nproc[1].padEnd(21)}processes `,
    `Max open files            ${nofile[0].padEnd(21)}${nofile[1].padEnd(21)}files     `,
  ].join('\n');

describe('podman rlimits', () => {
  test('docker gets fsize alone (or nothing); podman always gets nofile and nproc besides', () => {
    const text = limitsText(['20000', '20000'], ['96365', '96365']);
    expect(containerUlimits('docker', undefined, text)).toBeUndefined();
    expect(containerUlimits('docker', 1001, text)).toEqual([{ Name: 'fsize', Soft: 1001, Hard: 1001 }]);
    expect(containerUlimits('podman', 1001, text)).toEqual([
      { Name: 'fsize', Soft: 1001, Hard: 1001 },
      { Name: 'nofile', Soft: 20000, Hard: 20000 },
      { Name: 'nproc', Soft: 16384, Hard: 16384 },
    ]);
    expect(containerUlimits('podman', undefined, text)?.map((u) => u.Name)).toEqual(['nofile', 'nproc']);
  });

  test('property: podman limits never exceed this process own hard limits, and soft ≤ hard', () => {
    const limit = fc.oneof(fc.integer({ min: 1, max: 1 << 30 }).map(String), fc.constant('unlimited'));
    fc.assert(
      fc.property(limit, limit, limit, limit, (s1, h1, s2, h2) => {
        const text = limitsText([s1, h1], [s2, h2]);
        const own = { nofile: ownLimit('Max open files', text)!, nproc: ownLimit('Max processes', text)! };
        for (const u of containerUlimits('podman', undefined, text)!) {
          const [, hard] = own[u.Name as 'nofile' | 'nproc'];
          expect(u.Hard).toBeLessThanOrEqual(Math.min(hard, 1_048_576));
          expect(u.Soft).toBeLessThanOrEqual(u.Hard);
        }
      }),
    );
  });

  test('unreadable limits fall back to podman-safe defaults', () => {
    expect(ownLimit('Max open files', 'nothing here')).toBeNull();
    expect(containerUlimits('podman', undefined, 'nothing here')).toEqual([
      { Name: 'nofile', Soft: 1024, Hard: 4096 },
      { Name: 'nproc', Soft: 4096, Hard: 4096 },
    ]);
  });
});

describe('the imported image id', () => {
  const id = 'ab'.repeat(32);
  test("docker's status line, podman's id or stream line; none when the progress names no id", () => {
    expect(importedId([{ status: `sha256:${id}` }])).toBe(`sha256:${id}`);
    expect(importedId([{ status: 'Importing' }, { id }])).toBe(`sha256:${id}`);
    expect(importedId([{ stream: `Loaded image: ${id}\n` }])).toBe(`sha256:${id}`);
    expect(importedId([{ status: 'Downloading' }])).toBeNull();
  });
});

describe('podman socket', () => {
  test('CONTAINER_HOST wins; else root or the user runtime dir', () => {
    expect(podmanSocket({ CONTAINER_HOST: 'unix:///run/x.sock' })).toBe('/run/x.sock');
    const uid = process.getuid?.() ?? 0;
    expect(podmanSocket({ XDG_RUNTIME_DIR: '/run/user/7' })).toBe(
      uid === 0 ? '/run/podman/podman.sock' : '/run/user/7/podman/podman.sock',
    );
  });

  test('a CONTAINER_HOST heldout cannot use is one line naming the variable', () => {
    expect(() => podmanSocket({ CONTAINER_HOST: 'ssh://core@host/run/podman.sock' })).toThrow(
      /^CONTAINER_HOST: expected unix:\/\/\/path\/to\/podman\.sock, got ssh:\/\/core@host\/run\/podman\.sock$/,
    );
  });
});
