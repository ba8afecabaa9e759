/**
 * Issue 17, item 6: the process backend hides the evaluator from the delivery as a container does — the commission
 * (rubric, commission.yaml, truth files, other cases), the run's own records (`*.meta.json`, the ledger) and other
 * runs' files in the host's temporary directory. Where it can build no private root, a case that could read them
 * is refused, never run with them in sight.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { createProcessBackend, processCapabilities } from '../../src/sandbox/index.js';
import {
  BIN,
  canary,
  cleanEnv,
  delivery,
  faultCommission,
  scratchDir,
  spawnNode,
  stopStarted,
  testRunId,
} from './helpers.js';

const caps = await processCapabilities();

describe('the process backend hides the evaluator from the delivery', () => {
  const tmp = scratchDir('hides');
  // Another run's file in the host's temporary directory, readable by anyone.
  const otherRun = scratchDir('other-run');
  const hostCanary = canary('host');
  writeFileSync(path.join(otherRun.dir, 'input.md'), `${hostCanary}\n`, { mode: 0o644 });
  afterEach(() => stopStarted());
  afterAll(() => {
    tmp.cleanup();
    otherRun.cleanup();
  });

  test.skipIf(!caps.privateRoot)(
    `snooping deliveries find nothing of the commission, the run's records or other runs${caps.privateRoot ? '' : ' — skipped: no private root can be built here (the refusal below applies)'}`,
    async () => {
      const runId = testRunId('hides');
      const out = path.join(tmp.dir, 'out');
      const { dir, canaries } = faultCommission(tmp.dir, {
        judge: false,
        env: {
          FAULT_PEEK_EVALUATOR: [
            path.join(tmp.dir, 'fault-suite', 'rubric.yaml'),
            path.join(tmp.dir, 'fault-suite', 'commission.yaml'),
            out,
          ].join(','),
          FAULT_PEEK_CASES: [
            path.join(tmp.dir, 'fault-suite', 'cases/heldout/h1/truth.json'),
            path.join(tmp.dir, 'fault-suite', 'cases/heldout/h2'),
            path.join(tmp.dir, 'fault-suite', 'cases/dev'),
          ].join(','),
          FAULT_PEEK_HOST: otherRun.dir,
        },
      });
      for (const name of ['read-evaluator-files', 'read-other-case', 'read-host-files']) {
        // Two trials: the second runs beside the first one's record (what the issue saw leak).
        const r = spawnNode(
          [
            BIN,
            'run',
            dir,
            '--delivery',
            delivery(tmp.dir, name),
            '--sandbox',
            'process',
            '--out',
            out,
            '--trials',
            '2',
          ],
          cleanEnv({ HELDOUT_RUN_ID: `${runId}-${name}` }),
        );
        const ended = await r.exited;
        expect(ended.code, r.log()).toBe(0);
        for (const c of ['h1', 'h2']) {
          for (const t of [1, 2]) {
            const found = path.join(out, 'cases', 'fault-suite', name, 'heldout', `${c}-t${t}`, 'found.txt');
            expect(existsSync(found), `${name} ${c} trial ${t} ran`).toBe(true);
            const seen = readFileSync(found, 'utf8');
            for (const [what, value] of Object.entries({ ...canaries, host: hostCanary })) {
              expect(seen, `${name} ${c}-t${t} read the ${what}`).not.toContain(value);
            }
            expect(seen).not.toContain('"grade"');
            expect(seen).not.toContain('forbiddenOutputs');
          }
        }
      }
    },
  );

  test.skipIf(!caps.privateRoot)(
    `a case's root holds system directories, a minimal /etc and its stage, nothing else of the host${caps.privateRoot ? '' : ' — skipped: no private root can be built here'}`,
    async () => {
      const { dir } = faultCommission(path.join(tmp.dir, 'root'), { judge: false });
      const x = await createProcessBackend().run({
        runId: testRunId('root'),
        caseId: 'h1',
        trial: 1,
        command: 'ls -A /; echo ---; ls -A /etc; echo ---; ls -A /tmp',
        deliveryDir: delivery(path.join(tmp.dir, 'root'), 'read-host-files'),
        inputPath: path.join(dir, 'cases/heldout/h1/input.md'),
        assetsDir: null,
        outputDir: path.join(tmp.dir, 'root', 'out'),
        evaluatorPaths: [dir],
        limits: { wallSeconds: 30, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
      });
      expect(x.exitCode, x.stderr).toBe(0);
      const [top, etc, tmpListing] = x.stdout.split('---\n').map((p) => p.trim().split('\n'));
      for (const name of top)
        expect(['bin', 'dev', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'proc', 'sbin', 'tmp', 'usr']).toContain(name);
      // The machine's own configuration (credentials in npmrc, pip.conf, environment, docker/, ssh/) is not lent.
      for (const name of ['shadow', 'npmrc', 'pip.conf', 'environment', 'docker', 'ssh', 'gitconfig'])
        expect(etc).not.toContain(name);
      expect(etc).toEqual(expect.arrayContaining(['passwd', 'group', 'ld.so.cache']));
      // /tmp is the case's own: nothing of the host's temporary directory (other runs, this test's files).
      expect(tmpListing).not.toContain(path.basename(otherRun.dir));
    },
  );

  test.skipIf(!caps.privateRoot || !caps.netns || !caps.loopbackUp)(
    `a case's services run outside its private root, and the case cannot reach the host through them${caps.privateRoot && caps.netns && caps.loopbackUp ? '' : ' — skipped: no private root with a network namespace here'}`,
    async () => {
      const { dir, canaries } = faultCommission(path.join(tmp.dir, 'svc'), { judge: false });
      // Every process the case can see: its /proc/<pid>/root and cwd (a service's is the host's root and its
      // staged files), and the stage's services directory, where the service's copies and config are.
      const command = [
        'for p in /proc/[0-9]*; do',
        `  cat "$p/root${dir}/commission.yaml" "$p/root${dir}/cases/heldout/h1/truth.json" 2>/dev/null`,
        '  ls -A "$p/cwd/" 2>/dev/null',
        'done',
        'echo ---',
        'ls -A "$HOME/../services"',
      ].join('\n');
      const x = await createProcessBackend().run({
        runId: testRunId('svc'),
        caseId: 'h1',
        trial: 1,
        command,
        deliveryDir: delivery(path.join(tmp.dir, 'svc'), 'read-host-files'),
        inputPath: path.join(dir, 'cases/heldout/h1/input.md'),
        assetsDir: null,
        outputDir: path.join(tmp.dir, 'svc', 'out'),
        evaluatorPaths: [dir],
        limits: { wallSeconds: 60, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
        services: [
          {
            name: 'fixture',
            image: 'heldout/runtime:1',
            command: 'cat /srv/truth.json >/dev/null; exec sleep 600',
            files: [{ hostPath: path.join(dir, 'cases/heldout/h1/truth.json'), containerPath: '/srv/truth.json' }],
            timeoutSeconds: 30,
          },
        ],
      });
      expect(x.exitCode, x.stderr).toBe(0);
      for (const [what, value] of Object.entries(canaries)) expect(x.stdout, what).not.toContain(value);
      const [seen, servicesDir] = x.stdout.split('---\n');
      expect(seen).not.toContain('truth.json');
      expect(servicesDir.trim()).toBe('');
    },
  );

  test.skipIf(!caps.privateRoot)(
    `in a private root without a user to drop to, the command keeps no capability (it could chroot back out)${caps.privateRoot ? '' : ' — skipped: no private root can be built here'}`,
    async () => {
      const { dir } = faultCommission(path.join(tmp.dir, 'caps'), { judge: false });
      const x = await createProcessBackend({ capabilities: { dropUser: false } }).run({
        runId: testRunId('caps'),
        caseId: 'h1',
        trial: 1,
        command:
          'grep -E "^Cap(Eff|Prm|Bnd):" /proc/self/status; mkdir -p "$HOME/x"; chroot "$HOME/x" /bin/true && echo escaped',
        deliveryDir: delivery(path.join(tmp.dir, 'caps'), 'read-host-files'),
        inputPath: path.join(dir, 'cases/heldout/h1/input.md'),
        assetsDir: null,
        outputDir: path.join(tmp.dir, 'caps', 'out'),
        evaluatorPaths: [dir],
        limits: { wallSeconds: 30, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
      });
      expect(x.stdout).toMatch(/CapEff:\s+0+\n/);
      expect(x.stdout).toMatch(/CapPrm:\s+0+\n/);
      expect(x.stdout).toMatch(/CapBnd:\s+0+\n/);
      expect(x.stdout).not.toContain('escaped');
    },
  );

  test('where no private root can be built, a case that could read the evaluator is refused', async () => {
    const backend = createProcessBackend({ capabilities: { privateRoot: false, mountns: false } });
    const { dir } = faultCommission(path.join(tmp.dir, 'refused'), { judge: false });
    const run = backend.run({
      runId: testRunId('refused'),
      caseId: 'h1',
      trial: 1,
      command: 'sh run.sh {input} {output}',
      deliveryDir: delivery(path.join(tmp.dir, 'refused'), 'read-evaluator-files'),
      inputPath: path.join(dir, 'cases/heldout/h1/input.md'),
      assetsDir: null,
      outputDir: path.join(tmp.dir, 'refused', 'out'),
      evaluatorPaths: [dir, os.tmpdir()],
      limits: { wallSeconds: 30, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
    });
    await expect(run).rejects.toThrow(`cannot hide ${dir} from the delivery`);
  });
});
