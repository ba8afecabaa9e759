/**
 * The same acceptance behaviours on the process backend. What this machine does not let it enforce is skipped, and
 * the skipped test's name says why; `weakerIsolation` of every execution says the same to the report.
 */
import { describe, expect, test } from 'vitest';
import { processBackend, processCapabilities } from '../../src/sandbox/index.js';
import { sandboxBehaviours } from './behaviours.js';
import { execFileP, makeCase, scratch, spec } from './helpers.js';

const caps = await processCapabilities();
const root = (process.getuid?.() ?? -1) === 0;

async function processesWith(marker: string): Promise<string[]> {
  try {
    const { stdout } = await execFileP('pgrep', ['-f', `sleep ${marker}`]);
    return stdout.split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

describe('process sandbox', () => {
  sandboxBehaviours({
    name: 'process',
    backend: () => processBackend,
    enforcement: {
      memory: caps.cgroups ? null : 'no writable cgroup here, so no memory limit and no OOM detection',
      pids: caps.cgroups ? null : 'no writable cgroup here, so no pids limit to contain a fork bomb',
      network: caps.netns ? null : 'unshare -n is not permitted here, so the delivery keeps the host network',
      writeProtection:
        caps.mountns || caps.dropUser || !root ? null : 'root ignores file modes and no mount namespace is permitted here',
      caseIsolation: caps.mountns ? null : "no mount namespace here, so the host's other cases stay readable",
      teardown: null,
    },
    leftovers: (_id, marker) => processesWith(marker),
    survivesSigkill: false,
    gc: (id) => processBackend.cleanup(id),
  });

  test('every execution lists what the process backend could not enforce', async () => {
    const s = await scratch('weaker');
    try {
      const c = await makeCase(`${s.root}/cases`, 'c', 'x');
      const x = await processBackend.run(
        spec({ command: 'true', deliveryDir: s.delivery('ok'), inputPath: c.inputPath, outputDir: `${s.root}/out`, image: 'some/image' }),
      );
      expect(x.exitCode).toBe(0);
      expect(x.weakerIsolation.join('\n')).toContain('filesystem');
      expect(x.weakerIsolation.join('\n')).toContain('image: some/image ignored');
      if (!caps.netns) expect(x.weakerIsolation.join('\n')).toContain('network');
      if (!caps.cgroups) expect(x.weakerIsolation.join('\n')).toContain('memory limit');
    } finally {
      await s.cleanup();
    }
  });

  test('the host environment does not leak into the sandbox', async () => {
    const s = await scratch('env');
    process.env.HELDOUT_TEST_SECRET = 'sk-host-secret';
    try {
      const c = await makeCase(`${s.root}/cases`, 'c', 'x');
      const x = await processBackend.run(
        spec({ command: 'env', deliveryDir: s.delivery('ok'), inputPath: c.inputPath, outputDir: `${s.root}/out`, env: { MINE: '1' } }),
      );
      expect(x.stdout).not.toContain('sk-host-secret');
      expect(x.stdout).toContain('MINE=1');
      expect(x.stdout).toContain('HELDOUT_CASE_ID=case');
    } finally {
      delete process.env.HELDOUT_TEST_SECRET;
      await s.cleanup();
    }
  });
});
