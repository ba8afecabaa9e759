/**
 * A Harbor trial as Harbor runs it, through `heldout run` (the Vitest suite): the fixture task imported, then
 * deliveries that do the task, half of it, nothing, cheat, and run out of time. The agent works in the task's
 * workdir with its instruction at {input} and no /tests; the verifier runs after it on the same container state,
 * with its own env; what the agent wrote to /logs/verifier never counts; a timeout still gets verified.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { importHarbor } from '../../src/importers/index.js';
import { engineAnswers, ensureRuntimeImage } from '../../src/sandbox/index.js';
import { repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);

const DELIVERIES: Record<string, string> = {
  full: `printf 'Hello, world!\\n' > hello.txt
{ pwd; id -u; [ -d /tests ] && echo tests-visible || echo no-tests; head -1 "$1"; } > /logs/agent/probe.txt`,
  half: 'echo hi > /app/hello.txt',
  nop: 'exit 0',
  cheat: `echo 1 > /logs/verifier/reward.txt; echo '{"reward": 1}' > /logs/verifier/reward.json`,
  slow: `printf 'Hello, world!\\n' > /app/hello.txt; sleep 600`,
};

describe.skipIf(!engine)(engine ? 'a Harbor trial' : 'a Harbor trial — skipped: no docker engine', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-trial-'));
  const commission = path.join(root, 'hello');
  const out = path.join(root, 'out');
  const cases = (label: string) => path.join(out, 'cases/hello-greeting', label, 'heldout/task-t1');
  let summary: { commissions: { delivery: { label: string }; cases: { status: string; result: number | null }[] }[] };

  beforeAll(async () => {
    await ensureRuntimeImage();
    await importHarbor(path.join(repoRoot, 'fixtures/importers/harbor-hello'), commission);
    const yaml = path.join(commission, 'commission.yaml');
    writeFileSync(
      yaml,
      // A short agent timeout, so the slow delivery runs out of it.
      readFileSync(yaml, 'utf8').replace(/^ {4}timeoutSeconds: 120$/m, '    timeoutSeconds: 3'),
    );
    const deliveries: Record<string, string> = {};
    for (const [label, script] of Object.entries(DELIVERIES)) {
      const dir = path.join(root, 'deliveries', label);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'run.sh'), `#!/bin/sh\n${script}\n`);
      deliveries[label] = dir;
    }
    const script = `
      const { runHeldout } = await import(${JSON.stringify(path.join(repoRoot, 'dist/index.js'))});
      const r = await runHeldout({ commissions: [${JSON.stringify(commission)}], sandbox: 'docker', table: false,
        delivery: ${JSON.stringify(deliveries)}, out: ${JSON.stringify(out)}, concurrency: 1 }, { reporters: ['dot'] });
      console.log(JSON.stringify(r.summary));`;
    const r = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: repoRoot,
      maxBuffer: 16 << 20,
    }).catch((e) => e as { stdout: string; stderr: string });
    try {
      summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? 'null');
    } catch {
      summary = null as never;
    }
    expect(summary, `${r.stdout}\n${r.stderr}`.slice(-4000)).not.toBeNull();
  });

  const resultOf = (label: string) => summary.commissions.find((c) => c.delivery.label === label)!.cases[0]!;

  test("the verifier's reward is the Result: full, half, none", () => {
    expect(resultOf('full')).toMatchObject({ status: 'graded', result: 100 });
    expect(resultOf('half')).toMatchObject({ status: 'graded', result: 50 });
    expect(resultOf('nop')).toMatchObject({ status: 'graded', result: 0 });
  });

  test('the agent ran in the workdir, with the instruction at {input} and no /tests', () => {
    expect(readFileSync(path.join(cases('full'), 'agent/probe.txt'), 'utf8').split('\n')).toEqual([
      '/app',
      '0',
      'no-tests',
      '# Write a greeting',
      '',
    ]);
    // The verifier's own output and reward are the case's evidence.
    expect(readFileSync(path.join(cases('full'), 'verifier/reward.txt'), 'utf8').trim()).toBe('1');
    expect(JSON.parse(readFileSync(path.join(cases('full'), 'reward.json'), 'utf8'))).toEqual({ reward: 1 });
  });

  test('a reward the agent wrote into /logs/verifier itself never counts', () => {
    expect(resultOf('cheat')).toMatchObject({ status: 'graded', result: 0 });
  });

  test('an agent past its timeout is stopped, and the state it left is verified, as Harbor does', () => {
    expect(resultOf('slow')).toMatchObject({ status: 'graded', result: 100 });
    const trial = JSON.parse(readFileSync(path.join(cases('slow'), 'harbor-trial.json'), 'utf8'));
    expect(trial.steps[0].agent).toMatchObject({ timedOut: true, exitCode: null });
  });
});
