/**
 * The container defaults of issue 3 (non-root, no capabilities, read-only root, removal, a missing image), written
 * once and run on each engine the docker backend's factory drives (docker, podman).
 */
import { describe, expect, test } from 'vitest';
import type { SandboxBackend } from '../../src/sandbox/index.js';
import { LIMITS, makeCase, scratch, spec } from './helpers.js';

/** `ps`: the containers of a run id on that engine. */
export function containerDefaults(
  name: string,
  backend: () => SandboxBackend,
  ps: (runId: string) => Promise<string[]>,
): void {
  describe(`${name} defaults`, () => {
    test('non-root, no capabilities, no-new-privileges, read-only root, writable /tmp and /out only', async () => {
      const s = await scratch('defaults');
      try {
        const c = await makeCase(`${s.root}/cases`, 'c', 'x');
        const x = await backend().run(
          spec({
            command: [
              'echo uid=$(id -u)',
              'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status',
              'touch /rootfs-probe 2>/dev/null || echo rootfs-ro',
              'touch /delivery/probe 2>/dev/null || echo delivery-ro',
              'touch /case/probe 2>/dev/null || echo case-ro',
              'touch /tmp/probe && echo tmp-rw',
              'touch /out/probe && echo out-rw',
              'ls /sys/class/net',
              'python3 -c "import json, sqlite3, csv, re, urllib.request; print(\'stdlib-ok\')"',
              'python --version',
              'pwd',
            ].join('; '),
            deliveryDir: s.delivery('ok'),
            inputPath: c.inputPath,
            outputDir: `${s.root}/out`,
          }),
        );
        expect(x.stderr).toBe('');
        expect(x.stdout).toContain('uid=65534');
        expect(x.stdout).toMatch(/CapEff:\s+0000000000000000/);
        expect(x.stdout).toMatch(/NoNewPrivs:\s+1/);
        for (const m of ['rootfs-ro', 'delivery-ro', 'case-ro', 'tmp-rw', 'out-rw', 'stdlib-ok', 'Python 3.']) {
          expect(x.stdout).toContain(m);
        }
        expect(x.stdout).toMatch(/^lo$/m);
        expect(x.stdout).not.toMatch(/^eth0$/m);
        expect(x.stdout.trim().split('\n').at(-1)).toBe('/delivery');
        expect(x.outputs).toEqual(['probe']);
      } finally {
        await s.cleanup();
      }
    });

    test('every container is removed after its case, whatever happened', async () => {
      const s = await scratch('removed');
      try {
        const c = await makeCase(`${s.root}/cases`, 'c', 'x');
        const id = `t-removed-${process.pid}-${Date.now()}`;
        for (const command of ['true', 'exit 3', 'sleep 10']) {
          await backend().run(
            spec({
              runId: id,
              command,
              deliveryDir: s.delivery('ok'),
              inputPath: c.inputPath,
              outputDir: `${s.root}/out`,
              limits: { ...LIMITS, wallSeconds: 1 },
            }),
          );
        }
        expect(await ps(id)).toEqual([]);
      } finally {
        await s.cleanup();
      }
    });

    test('an image that is not on the engine is an infrastructure error, not an execution', async () => {
      const s = await scratch('noimage');
      try {
        const c = await makeCase(`${s.root}/cases`, 'c', 'x');
        await expect(
          backend().run(
            spec({
              image: 'heldout/does-not-exist:0',
              command: 'true',
              deliveryDir: s.delivery('ok'),
              inputPath: c.inputPath,
              outputDir: `${s.root}/out`,
            }),
          ),
        ).rejects.toThrow(/not on this engine/);
      } finally {
        await s.cleanup();
      }
    });
  });
}
