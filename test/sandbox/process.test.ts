/**
 * The same acceptance behaviours on the process backend — once with everything this machine permits, once with
 * every optional isolation switched off (what a locked-down CI runner without docker gives). What a variant cannot
 * enforce is skipped, and the skipped test's name says why; `weakerIsolation` of each execution says the same.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  createProcessBackend,
  type ProcessCapabilities,
  processBackend,
  processCapabilities,
} from '../../src/sandbox/index.js';
import { type Enforcement, sandboxBehaviours } from './behaviours.js';
import { execFileP, makeCase, scratch, spec } from './helpers.js';

const probed = await processCapabilities();
const root = (process.getuid?.() ?? -1) === 0;

/** Processes still running the test's unique `sleep <marker>` (zombies have no command line and do not count). */
async function processesWith(marker: string): Promise<string[]> {
  try {
    const { stdout } = await execFileP('pgrep', ['-f', `^sleep ${marker}$`]);
    return stdout.split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

function enforcement(c: ProcessCapabilities): Enforcement {
  return {
    memory: c.cgroups ? null : 'no writable cgroup, so no memory limit and no OOM detection',
    pids: c.cgroups ? null : 'no writable cgroup, so no pids limit to contain a fork bomb',
    network: c.netns ? null : 'no network namespace (unshare -n not permitted), so the delivery keeps the host network',
    writeProtection:
      c.mountns || c.dropUser || !root ? null : 'root ignores file modes and no mount namespace is permitted',
    caseIsolation: c.mountns ? null : "no mount namespace, so the host's other cases stay readable",
    sigint: null,
    sigkillGc:
      c.pidns && c.pdeathsig
        ? null
        : c.cgroups
          ? null
          : 'without a pid namespace with pdeathsig, or cgroups, nothing finds what a SIGKILLed runner left',
  };
}

const degraded: Partial<ProcessCapabilities> = {
  netns: false,
  mountns: false,
  pidns: false,
  cgroups: false,
  dropUser: false,
  pdeathsig: false,
  loopbackUp: null,
  unshareFlags: [],
};

describe('process sandbox', () => {
  sandboxBehaviours({
    name: 'process',
    variant: 'as permitted here',
    backend: () => processBackend,
    enforcement: enforcement(probed),
    leftovers: (_id, marker) => processesWith(marker),
    survivesSigkill: false,
    gc: (id) => processBackend.cleanup(id),
  });

  const weak = createProcessBackend({ capabilities: degraded });
  sandboxBehaviours({
    name: 'process',
    variant: 'no namespaces, no cgroups',
    processCapabilities: degraded,
    backend: () => weak,
    enforcement: enforcement({ ...probed, ...degraded }),
    leftovers: (_id, marker) => processesWith(marker),
    survivesSigkill: true,
    gc: (id) => weak.cleanup(id),
  });

  test('every execution lists what the process backend could not enforce', async () => {
    const s = await scratch('weaker');
    try {
      const c = await makeCase(`${s.root}/cases`, 'c', 'x');
      const base = { command: 'true', deliveryDir: s.delivery('ok'), inputPath: c.inputPath, image: 'some/image' };
      const x = await processBackend.run(spec({ ...base, outputDir: `${s.root}/out1` }));
      expect(x.exitCode).toBe(0);
      const said = x.weakerIsolation.join('\n');
      expect(said).toContain('filesystem');
      expect(said).toContain('image: some/image ignored');
      if (!probed.netns) expect(said).toContain('network');
      if (!probed.cgroups) expect(said).toContain('memory limit');

      const y = await weak.run(spec({ ...base, outputDir: `${s.root}/out2` }));
      expect(y.exitCode).toBe(0);
      const weakSaid = y.weakerIsolation.join('\n');
      for (const m of ['network:', 'memory limit:', 'pids limit:', 'oom:', 'cpu limit:', 'user:', 'processes:']) {
        expect(weakSaid).toContain(m);
      }
    } finally {
      await s.cleanup();
    }
  });

  test('an output directory used before is writable again: what an earlier run left may be overwritten', async () => {
    const s = await scratch('reused-out');
    try {
      const c = await makeCase(`${s.root}/cases`, 'c', 'x');
      const base = { command: 'echo again > {output}/r.txt', deliveryDir: s.delivery('ok'), inputPath: c.inputPath };
      const outputDir = `${s.root}/out`;
      const first = await processBackend.run(spec({ ...base, command: 'echo first > {output}/r.txt', outputDir }));
      expect(first.exitCode, first.stderr).toBe(0);
      const again = await processBackend.run(spec({ ...base, outputDir }));
      expect(again.exitCode, again.stderr).toBe(0);
      expect(readFileSync(`${outputDir}/r.txt`, 'utf8')).toBe('again\n');
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
        spec({
          command: 'env',
          deliveryDir: s.delivery('ok'),
          inputPath: c.inputPath,
          outputDir: `${s.root}/out`,
          env: { MINE: '1' },
        }),
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
