/**
 * The phases of a Harbor trial inside its container, each as Harbor's trial code does it (harbor v0.22
 * `trial/`, `verifier/verifier.py`, `agents/oracle.py`, `environments/base.py`): healthchecks with Docker
 * HEALTHCHECK semantics, the agent (or the oracle's solve.sh), artifact collection, and the verifier with its
 * tests uploaded to /tests and its output in /logs/verifier. Harbor's own setup steps run as root.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { HarborArtifact, HarborHealthcheck } from '../../../commission/index.js';
import type { TrialContainer, TrialExecResult } from '../../../sandbox/index.js';
import { shQuote, sleep } from '../../../util/index.js';
import { readOutputFile, walkOutputs } from '../../outputs.js';
import type { TrialOutputs } from './output-budget.js';
import { outputTail, type VerifierRun } from './verdict.js';

export const LOGS = { agent: '/logs/agent', verifier: '/logs/verifier', artifacts: '/logs/artifacts' } as const;
const ROOT = '0';

/** Runs a shell command as root; rejects with its output when it fails. */
export async function asRoot(trial: TrialContainer, script: string): Promise<void> {
  const r = await trial.exec(['sh', '-c', script], { user: ROOT });
  if (r.exitCode !== 0)
    throw new Error(`\`${script}\` failed (exit ${r.exitCode}): ${outputTail(`${r.stdout}${r.stderr}`, 5)}`);
}

/** Harbor's mount points, made and opened up as its docker environment does after start. */
export async function prepareLogs(trial: TrialContainer): Promise<void> {
  const dirs = [...Object.values(LOGS), `${LOGS.agent}/.run`].map(shQuote).join(' ');
  await asRoot(trial, `mkdir -p ${dirs} && chmod 777 /logs ${dirs}`);
}

/** The container's working directory, as Harbor finds it (`pwd` in a plain exec). */
export async function workdirOf(trial: TrialContainer): Promise<string> {
  const r = await trial.exec(['sh', '-c', 'pwd']);
  return r.stdout.trim() || '/';
}

/** The shell Harbor runs main-container commands with: bash; `sh` where the image has none (noted by the caller). */
export async function shellOf(trial: TrialContainer): Promise<'bash' | 'sh'> {
  const r = await trial.exec(['sh', '-c', 'command -v bash']);
  return r.exitCode === 0 ? 'bash' : 'sh';
}

/**
 * Polls `command` with Docker HEALTHCHECK semantics: failures during the start period do not count; after it, the
 * check fails once `retries` consecutive attempts failed. Resolves null when healthy, else the last output.
 */
export async function healthcheck(
  trial: TrialContainer,
  hc: HarborHealthcheck,
  shell: 'bash' | 'sh',
  opts: { user?: string; cwd: string; env: Record<string, string> },
): Promise<string | null> {
  const t0 = performance.now();
  let failures = 0;
  let last = '';
  for (;;) {
    const r = await trial.exec([shell, '-c', hc.command], { ...opts, timeoutSeconds: hc.timeoutSeconds });
    if (r.exitCode === 0) return null;
    last = r.timedOut
      ? `timed out after ${hc.timeoutSeconds} s`
      : `exit ${r.exitCode}: ${outputTail(`${r.stdout}${r.stderr}`, 5)}`;
    const inStart = performance.now() - t0 < hc.startPeriodSeconds * 1000;
    if (!inStart && ++failures > hc.retries) return `\`${hc.command}\` failed ${failures} times (${last})`;
    await sleep((inStart ? hc.startIntervalSeconds : hc.intervalSeconds) * 1000);
  }
}

/** Uploads a step's workdir/ into the working directory and runs its setup.sh (bash) there; null when it went well. */
export async function stepWorkdir(
  trial: TrialContainer,
  dir: string,
  workdir: string,
  shell: 'bash' | 'sh',
  opts: { user?: string; env: Record<string, string> },
): Promise<string | null> {
  if (!existsSync(dir)) return null;
  await trial.put(dir, workdir);
  if (!existsSync(path.join(dir, 'setup.sh'))) return null;
  const r = await trial.exec([shell, path.posix.join(workdir, 'setup.sh')], { ...opts, cwd: workdir });
  return r.exitCode === 0 ? null : `setup.sh exited ${r.exitCode}: ${outputTail(`${r.stdout}${r.stderr}`, 8)}`;
}

/**
 * The solution directory the oracle runs for a step (null: the single-step task): the step's own
 * steps/<name>/solution/ where it has solve.sh, else the task's solution/ (Harbor's OracleAgent falls back to it);
 * null when neither has solve.sh.
 */
export function solutionDir(taskDir: string, step: string | null): string | null {
  const dirs = [...(step ? [path.join(taskDir, 'steps', step, 'solution')] : []), path.join(taskDir, 'solution')];
  return dirs.find((d) => existsSync(path.join(d, 'solve.sh'))) ?? null;
}

/** The oracle: solution/ uploaded to /solution, solve.sh made executable and run, its output in /logs/agent/oracle.txt. */
export async function runOracle(
  trial: TrialContainer,
  solutionDir: string,
  shell: 'bash' | 'sh',
  opts: { user?: string; cwd: string; env: Record<string, string>; timeoutSeconds: number },
): Promise<TrialExecResult> {
  await asRoot(trial, 'rm -rf /solution && mkdir -p /solution');
  await trial.put(solutionDir, '/solution');
  await asRoot(trial, 'chmod +x /solution/solve.sh');
  return trial.exec([shell, '-c', `(/solution/solve.sh) > ${LOGS.agent}/oracle.txt 2>&1`], {
    ...opts,
    env: { DEBIAN_FRONTEND: 'noninteractive', ...opts.env },
  });
}

/**
 * Copies the declared artifacts out under `into` (each at its path in the container, within the output budget);
 * names those absent.
 */
export async function collectArtifacts(
  trial: TrialContainer,
  declared: HarborArtifact[],
  into: string,
  outputs: TrialOutputs,
): Promise<string[]> {
  const absent: string[] = [];
  for (const a of declared) {
    const dest = path.join(into, a.destination ?? a.source.replace(/^\/+/, ''));
    if (!(await outputs.get(trial, a.source, dest))) absent.push(a.source);
  }
  return absent;
}

/**
 * /logs/artifacts (the convention directory the task's own scripts write) merged into `into` (within the output
 * budget), then emptied.
 */
export async function collectLogArtifacts(trial: TrialContainer, into: string, outputs: TrialOutputs): Promise<void> {
  const tmp = `${into}.logs`;
  if (await outputs.get(trial, LOGS.artifacts, tmp)) {
    mkdirSync(into, { recursive: true });
    cpSync(tmp, into, { recursive: true, verbatimSymlinks: true });
    rmSync(tmp, { recursive: true, force: true });
  }
  await asRoot(trial, `find ${LOGS.artifacts} -mindepth 1 -delete`);
}

/** The program a script's `#!` line runs (`#!/usr/bin/env bash` runs `bash`), or null. */
export function shebangOf(file: string): string | null {
  if (!existsSync(file)) return null;
  const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
  const m = /^#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?/.exec(first);
  if (!m) return null;
  return /\/env$/.test(m[1]!) && m[2] ? m[2] : m[1]!;
}

/**
 * The verifier: /tests emptied and filled from `testDirs` in order (a later one overrides), /logs/verifier emptied,
 * test.sh made executable and run as `(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1` in the workdir;
 * then /logs/verifier is copied out to `into` and read. With `ownTests` (the host copy of the test.sh a separate
 * verifier image owns), /tests is the image's and nothing is uploaded.
 */
export async function runVerifier(
  trial: TrialContainer,
  testDirs: string[],
  shell: 'bash' | 'sh',
  into: string,
  opts: { user?: string; cwd: string; env: Record<string, string>; timeoutSeconds: number; ownTests?: string },
): Promise<VerifierRun> {
  const fresh = opts.ownTests ? '' : 'rm -rf /tests && mkdir -p /tests && ';
  await asRoot(trial, `${fresh}find ${LOGS.verifier} -mindepth 1 -delete`);
  if (!opts.ownTests) for (const d of testDirs) if (existsSync(d)) await trial.put(d, '/tests');
  await asRoot(trial, 'chmod +x /tests/test.sh');
  let script = opts.ownTests ?? '';
  for (const d of testDirs) if (existsSync(path.join(d, 'test.sh'))) script = path.join(d, 'test.sh');
  const interpreter = shebangOf(script);
  let missingInterpreter: string | null = null;
  if (interpreter) {
    const q = shQuote(interpreter);
    const has = await trial.exec(['sh', '-c', interpreter.includes('/') ? `test -x ${q}` : `command -v ${q}`]);
    if (has.exitCode !== 0) missingInterpreter = interpreter;
  }
  const r = missingInterpreter
    ? { exitCode: 127, timedOut: false, stdout: '', stderr: '', wallMs: 0 }
    : await trial.exec([shell, '-c', `(/tests/test.sh) > ${LOGS.verifier}/test-stdout.txt 2>&1`], {
        ...(opts.user ? { user: opts.user } : {}),
        cwd: opts.cwd,
        env: opts.env,
        timeoutSeconds: opts.timeoutSeconds,
      });
  await trial.get(LOGS.verifier, into);
  // What the container wrote is read as outputs are: a link is never followed out of the directory.
  const read = (f: string) => {
    const got = readOutputFile(into, f, 4 * 1024 * 1024);
    return got.ok ? got.bytes.toString('utf8') : null;
  };
  const skip = new Set(['test-stdout.txt', 'test-stderr.txt', 'reward.json', 'reward.txt']);
  const others = walkOutputs(into)
    .filter((e) => e.kind === 'file' && e.size < 4 * 1024 * 1024 && !skip.has(e.rel))
    .map((e) => read(e.rel) ?? '');
  return {
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    timeoutSeconds: opts.timeoutSeconds,
    output: [read('test-stdout.txt'), read('test-stderr.txt'), r.stdout, r.stderr].filter(Boolean).join('\n'),
    otherLogs: others.join('\n'),
    rewardJson: read('reward.json'),
    rewardTxt: read('reward.txt'),
    missingInterpreter,
  };
}
