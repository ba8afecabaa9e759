/**
 * Issue 21 acceptance on the real Harbor tasks of ../shared/data/harbor, run here as `heldout run` runs them: each
 * task imported, its ubuntu:24.04 environment mapped to an image with bash (no registry here), then run with
 * `--oracle` and with a nop delivery. A task whose environment and verifier can run offline scores 1 / 0; every
 * other case is an infra-error naming what is missing (an image, a tool, a service, a variable) — never a 0.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { importHarbor } from '../../src/importers/index.js';
import { engineAnswers, ensureRuntimeImage, RUNTIME_IMAGE } from '../../src/sandbox/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const data = path.resolve(repoRoot, '../shared/data/harbor');
const engine = await engineAnswers(WAIT_MS);
const tasks = existsSync(data)
  ? readdirSync(data)
      .filter((s) => statSync(path.join(data, s)).isDirectory())
      .flatMap((s) => readdirSync(path.join(data, s)).map((t) => path.join(data, s, t)))
      .filter((d) => existsSync(path.join(d, 'task.toml')))
      .sort()
  : [];

/** Where each task's case must end up, by commission id: a Result, or an infra-error whose reason names the piece. */
const EXPECTED: Record<string, { oracle: number | RegExp; nop: number | RegExp }> = {
  'hello-multi-step-full': { oracle: 100, nop: 0 },
  // The canonical verifier installs uv from the internet: offline its commands are missing.
  'simple-task': { oracle: /commands not found: apt-get, curl, uvx/, nop: /commands not found: apt-get, curl, uvx/ },
  skills: { oracle: /uvx/, nop: /uvx/ },
  'multi-reward': { oracle: /uvx/, nop: /uvx/ },
  // Its RUN chmod +x of the entrypoint is a build step: the substituted image cannot start it.
  'dns-blacklisting': {
    oracle: /entrypoint\.sh failed: Permission denied.*in place of ubuntu:24\.04.*RUN chmod \+x \/entrypoint\.sh/s,
    nop: /entrypoint\.sh failed: Permission denied.*RUN chmod \+x \/entrypoint\.sh/s,
  },
  // Their compose sidecars are built from python:3.12-slim, which this engine lacks.
  'multi-container': {
    oracle: /api-server: base image python:3\.12-slim/,
    nop: /api-server: base image python:3\.12-slim/,
  },
  'mcp-tools': { oracle: /mcp-server: base image python:3\.12-slim/, nop: /mcp-server: base image python:3\.12-slim/ },
  'simulated-user': {
    oracle: /user-server: base image python:3\.12-slim/,
    nop: /user-server: base image python:3\.12-slim/,
  },
  'computer-use-ubuntu': {
    oracle: /desktop: base image python:3\.12-slim/,
    nop: /desktop: base image python:3\.12-slim/,
  },
  'computer-use-windows': {
    oracle: /desktop: base image python:3\.12-slim/,
    nop: /desktop: base image python:3\.12-slim/,
  },
  // Bases no image map here covers: the image is what is missing (each refused before any case runs).
  'git-bisect-flaky-test': { oracle: /golang:1\.22\.7-bookworm/, nop: /golang:1\.22\.7-bookworm/ },
  'config-push-race-condition': { oracle: /eclipse-temurin:17/, nop: /eclipse-temurin:17/ },
  'distributed-lease-manager': { oracle: /eclipse-temurin:17/, nop: /eclipse-temurin:17/ },
  'floci-lambda-publish-snapshot-serialisation': { oracle: /eclipse-temurin:25-jdk/, nop: /eclipse-temurin:25-jdk/ },
  // Mapped, but its environment is a valkey checkout the substituted image does not have.
  'valkey-script-debugger-uaf': {
    oracle: /cannot grade this task here.*RUN git clone/s,
    nop: /cannot grade this task here.*RUN git clone/s,
  },
};

interface Meta {
  commission: { id: string };
  grade: { status: string; result: number | null; reason: string | null };
}

function metas(out: string): Map<string, Meta> {
  const found = new Map<string, Meta>();
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.meta.json')) {
        const m = JSON.parse(readFileSync(p, 'utf8')) as Meta;
        found.set(m.commission.id, m);
      }
    }
  };
  walk(path.join(out, 'cases'));
  return found;
}

describe.skipIf(!engine || tasks.length === 0)(
  !engine
    ? 'real Harbor tasks — skipped: no docker engine'
    : tasks.length
      ? 'real Harbor tasks'
      : 'real Harbor tasks — skipped: no data',
  () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-real-'));
    const dirs: string[] = [];
    // The image map a machine without a registry uses: ubuntu:24.04 → the runtime image (it has bash).
    const MAP = ['--image-map', `ubuntu:24.04=${RUNTIME_IMAGE}`];
    beforeAll(async () => {
      await ensureRuntimeImage();
      for (const t of tasks) {
        const out = path.join(root, path.basename(t));
        await importHarbor(t, out);
        dirs.push(out);
      }
      expect(dirs).toHaveLength(15);
    });

    const check = (out: string, which: 'oracle' | 'nop') => {
      const found = metas(out);
      expect([...found.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
      for (const [id, want] of Object.entries(EXPECTED)) {
        const g = found.get(id)!.grade;
        const w = want[which];
        if (typeof w === 'number')
          expect({ id, status: g.status, result: g.result }).toEqual({ id, status: 'graded', result: w });
        else {
          expect({ id, status: g.status }).toEqual({ id, status: 'infra-error' });
          expect(g.reason, id).toMatch(w);
        }
      }
    };

    test('--oracle: the solution scores 1 where the task can run here; elsewhere the missing piece is named', async () => {
      const out = path.join(root, 'run-oracle');
      const r = await heldout([
        'run',
        ...dirs,
        '--oracle',
        ...MAP,
        '--out',
        out,
        '--sandbox',
        'docker',
        '--concurrency',
        '1',
      ]);
      expect(r.code, r.out).toBe(1);
      check(out, 'oracle');
      // The multi-step recipe: reward 1 on every one of its three steps.
      const trial = JSON.parse(
        readFileSync(path.join(out, 'cases/hello-multi-step-full/oracle/heldout/task-t1/harbor-trial.json'), 'utf8'),
      );
      expect(trial.steps.map((s: { name: string; rewards: unknown }) => [s.name, s.rewards])).toEqual([
        ['scaffold', { reward: 1 }],
        ['implement', { reward: 1 }],
        ['document', { reward: 1 }],
      ]);
      // Artifacts per step: the task's (/app/greet.sh), the document step's own (/app/README.md), and what the
      // implement step's setup.sh and tests left in /logs/artifacts; the implement healthcheck passed to get there.
      const steps = path.join(out, 'cases/hello-multi-step-full/oracle/heldout/task-t1/steps');
      for (const f of [
        'scaffold/artifacts/app/greet.sh',
        'implement/artifacts/setup-marker.txt',
        'implement/artifacts/greet.sh',
        'document/artifacts/app/README.md',
        'document/artifacts/app/greet.sh',
        'document/verifier/reward.txt',
      ])
        expect(existsSync(path.join(steps, f)), f).toBe(true);
      // A verifier that could not run: its own output is the evidence, in the reason and kept in the case.
      const simple = metas(out).get('simple-task')!.grade.reason!;
      expect(simple).toContain('last output:\n/tests/test.sh: line 3: apt-get: command not found');
      expect(simple).toContain('/tests/test.sh: line 11: uvx: command not found');
      expect(
        readFileSync(path.join(out, 'cases/simple-task/oracle/heldout/task-t1/verifier/test-stdout.txt'), 'utf8'),
      ).toMatch(/uvx: command not found/);
    });

    test('a nop delivery scores 0 where the task can run here (the multi-step stops after its first step)', async () => {
      const out = path.join(root, 'run-nop');
      const nop = path.join(root, 'nop');
      cpSync(path.join(repoRoot, 'fixtures/harbor/nop'), nop, { recursive: true });
      const r = await heldout([
        'run',
        ...dirs,
        '--delivery',
        nop,
        ...MAP,
        '--out',
        out,
        '--sandbox',
        'docker',
        '--concurrency',
        '1',
      ]);
      expect(r.code, r.out).toBe(1);
      check(out, 'nop');
      const trial = JSON.parse(
        readFileSync(path.join(out, 'cases/hello-multi-step-full/nop/heldout/task-t1/harbor-trial.json'), 'utf8'),
      );
      expect(trial.steps).toHaveLength(1);
      expect(trial.steps[0]).toMatchObject({ name: 'scaffold', rewards: { reward: 0 } });
      expect(trial.steps[0].stoppedBy).toMatch(/under min_reward 1/);
      const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
      const ms = summary.commissions.find((c: { id: string }) => c.id === 'hello-multi-step-full');
      expect(ms.cases[0]).toMatchObject({ status: 'graded', result: 0, passed: false });
    });
  },
);
