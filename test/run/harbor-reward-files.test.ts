/**
 * Issue 30, Harbor's reward as Harbor reads it, through `heldout run --sandbox docker` on minimal reproductions
 * (fixtures/harbor/reward-*): a verifier whose scalar is reward.txt beside a detail reward.json of counts (a
 * do-nothing delivery scores 0, not 100); a reward.json with an informational number and a text field (graded on
 * `reward`); a task without solution/ (`--oracle` says so); and a substituted image whose skipped RUN step the
 * oracle needs (the reason names the oracle's 0.8 and quotes the RUN whole).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { importHarbor } from '../../src/importers/index.js';
import { engineAnswers, ensureRuntimeImage, RUNTIME_IMAGE } from '../../src/sandbox/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);
const TASKS = ['reward-detail', 'reward-note', 'reward-substituted'];

interface Meta {
  commission: { id: string };
  delivery: { label: string };
  grade: { status: string; result: number | null; reason: string | null };
}

/** Every case's meta under `out`, keyed `commission/delivery`, with the directory it is in. */
function metas(out: string): Map<string, Meta & { dir: string }> {
  const found = new Map<string, Meta & { dir: string }>();
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.meta.json')) {
        const m = JSON.parse(readFileSync(p, 'utf8')) as Meta;
        found.set(`${m.commission.id}/${m.delivery.label}`, { ...m, dir: p.replace(/\.meta\.json$/, '') });
      }
    }
  };
  walk(path.join(out, 'cases'));
  return found;
}

describe.skipIf(!engine)(engine ? "Harbor's reward files" : "Harbor's reward files — skipped: no docker engine", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-reward-'));
  const dirs = [...TASKS, 'reward-unsolved'].map((t) => path.join(root, t));
  // reward-substituted's base is mapped onto the runtime image: its RUN step is then not replayed.
  const MAP = ['--image-map', `ubuntu:24.04=${RUNTIME_IMAGE}`];
  const deliveries: string[] = [];

  beforeAll(async () => {
    await ensureRuntimeImage();
    for (const t of TASKS) await importHarbor(path.join(repoRoot, 'fixtures/harbor', t), path.join(root, t));
    // The substituted task without its solution: nothing calibrates the substitute.
    const unsolved = path.join(root, 'src', 'reward-unsolved');
    cpSync(path.join(repoRoot, 'fixtures/harbor/reward-substituted'), unsolved, { recursive: true });
    rmSync(path.join(unsolved, 'solution'), { recursive: true });
    await importHarbor(unsolved, path.join(root, 'reward-unsolved'));
    const scripts = {
      nop: 'exit 0',
      done: 'for l in a b c d; do echo "$l" > "/app/$l.txt"; done; echo done > /app/note.txt; echo 42 > /app/answer.txt; mkdir -p /opt/tool && echo ok > /opt/tool/marker',
    };
    for (const [label, script] of Object.entries(scripts)) {
      const dir = path.join(root, 'deliveries', label);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'run.sh'), `#!/bin/sh\n${script}\n`);
      deliveries.push('--delivery', dir);
    }
  });

  // One `heldout run` per label, shared by the tests that read it.
  const runs = new Map<string, Promise<Map<string, Meta & { dir: string }>>>();
  const run = (label: string, args: string[]) => {
    if (!runs.has(label))
      runs.set(
        label,
        (async () => {
          const out = path.join(root, label);
          const r = await heldout([
            'run',
            ...dirs,
            ...args,
            ...MAP,
            '--out',
            out,
            '--sandbox',
            'docker',
            '--concurrency',
            '1',
          ]);
          const found = metas(out);
          expect(found.size, r.out.slice(-3000)).toBe(dirs.length * (args.includes('--oracle') ? 1 : 2));
          return found;
        })(),
      );
    return runs.get(label)!;
  };

  test('deliveries: the scalar is the score, never the counts; text fields are dropped as Harbor drops them', async () => {
    const m = await run('deliveries', deliveries);
    const grade = (k: string) => m.get(k)!.grade;
    // The false pass: a do-nothing delivery beside a reward.json of counts scores 0.
    expect(grade('reward-detail/nop')).toMatchObject({ status: 'graded', result: 0 });
    expect(grade('reward-detail/done')).toMatchObject({ status: 'graded', result: 100 });
    const trial = JSON.parse(readFileSync(path.join(m.get('reward-detail/nop')!.dir, 'harbor-trial.json'), 'utf8'));
    expect(trial.steps[0]).toMatchObject({
      rewards: { checks_passed: 0, checks_total: 4, reward: 0 },
      source: 'reward.json + reward.txt',
    });
    // reward.json with `reward`, an informational 0 and a note: graded on `reward`, on a built image.
    expect(grade('reward-note/done')).toMatchObject({ status: 'graded', result: 100 });
    expect(grade('reward-note/nop')).toMatchObject({ status: 'graded', result: 0 });
    const note = JSON.parse(readFileSync(path.join(m.get('reward-note/done')!.dir, 'harbor-trial.json'), 'utf8'));
    expect(note.steps[0]).toMatchObject({ rewards: { reward: 1, unsupported: 0 }, dropped: ['note'] });
    // On the substituted image the oracle calibrates first and reaches 0.8: infra, for either delivery.
    for (const d of ['nop', 'done'])
      expect(grade(`reward-substituted/${d}`)).toMatchObject({
        status: 'infra-error',
        reason: expect.stringMatching(/the task's own solution reached reward 0\.8, not full reward/),
      });
  });

  test('deliveries on a substitute no solution calibrates: full reward grades, anything less is no verdict', async () => {
    const m = await run('deliveries', deliveries);
    expect(m.get('reward-unsolved/done')!.grade).toMatchObject({ status: 'graded', result: 100 });
    expect(m.get('reward-unsolved/nop')!.grade).toMatchObject({
      status: 'infra-error',
      reason: expect.stringMatching(
        /the delivery reached reward 0, and the task has no solution to calibrate the substitute with.*RUN apt-get update/,
      ),
    });
  });

  test('--oracle: full reward; "this task has no solution"; a substitute that lacks a RUN step names it whole', async () => {
    const m = await run('oracle', ['--oracle']);
    expect(m.get('reward-detail/oracle')!.grade).toMatchObject({ status: 'graded', result: 100 });
    expect(m.get('reward-note/oracle')!.grade).toEqual(
      expect.objectContaining({
        status: 'infra-error',
        reason: 'this task has no solution (no solution/solve.sh): --oracle has nothing to run',
      }),
    );
    const sub = m.get('reward-substituted/oracle')!.grade;
    expect(sub.status).toBe('infra-error');
    expect(sub.reason).toMatch(/the task's own solution reached reward 0\.8, not full reward/);
    expect(sub.reason).toContain(
      '`RUN apt-get update && apt-get install -y --no-install-recommends jq python3-yaml && mkdir -p /opt/tool && echo ok > /opt/tool/marker`',
    );
    expect(sub.reason).not.toMatch(/What it lacks is the task's image built from environment\/Dockerfile/);
  });
});
