/**
 * What issue 17's hardening tests share: a fresh copy of the fault-suite commission with random canaries, copies of
 * deliveries the sandbox user can read, a heldout run in a child process, and the leftovers of a run (containers,
 * volumes and networks by run label; processes by a marker in their command line).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { WAIT_MS } from '../helpers/deadlines.js';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(REPO, 'dist/cli/bin.js');
const execFileP = promisify(execFile);

/** A world-readable scratch directory (the sandbox user reads deliveries from it), removed by `cleanup`. */
export function scratchDir(label: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `heldout-${label}-`));
  chmodSync(dir, 0o755);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The canaries a commission copy carries: none may ever reach a delivery, a report, a ledger or a trace. */
export type Canaries = Record<'commission' | 'rubric' | 'truthH1' | 'truthH2' | 'truthDev', string>;

const PLACEHOLDERS: Record<keyof Canaries, string> = {
  commission: '@CANARY_COMMISSION@',
  rubric: '@CANARY_RUBRIC@',
  truthH1: '@CANARY_TRUTH_H1@',
  truthH2: '@CANARY_TRUTH_H2@',
  truthDev: '@CANARY_TRUTH_DEV@',
};

/** A fresh random canary string. */
export function canary(what: string): string {
  return `heldout-canary-${what}-${randomBytes(8).toString('hex')}`;
}

/**
 * Copies fixtures/hardening/commission into `into`, with fresh canaries and the budgets and sandbox environment
 * given merged into commission.yaml.
 */
export function faultCommission(
  into: string,
  patch: { budgets?: Record<string, number>; env?: Record<string, string>; judge?: boolean } = {},
): { dir: string; canaries: Canaries } {
  const dir = path.join(into, 'fault-suite');
  cpSync(path.join(REPO, 'fixtures/hardening/commission'), dir, { recursive: true });
  const canaries = Object.fromEntries(Object.keys(PLACEHOLDERS).map((k) => [k, canary(k.toLowerCase())])) as Canaries;
  for (const rel of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, rel);
    if (!/\.(ya?ml|json|md)$/.test(file)) continue;
    let text = readFileSync(file, 'utf8');
    for (const [k, placeholder] of Object.entries(PLACEHOLDERS))
      text = text.replaceAll(placeholder, canaries[k as keyof Canaries]);
    writeFileSync(file, text);
  }
  if (patch.judge === false) {
    // No judge: the sum alone is the Result (a run without a judge model is graded, not unscored).
    const rubric = path.join(dir, 'rubric.yaml');
    const text = readFileSync(rubric, 'utf8');
    writeFileSync(
      rubric,
      text.slice(0, text.indexOf('  - id: notes')).replace('max: 80', 'max: 100').replace('points: 80', 'points: 100'),
    );
  }
  const file = path.join(dir, 'commission.yaml');
  const text = readFileSync(file, 'utf8');
  const config = parse(text) as Record<string, any>;
  Object.assign(config.budgets, patch.budgets ?? {});
  config.sandbox = { ...config.sandbox, env: { ...config.sandbox?.env, ...patch.env } };
  // Keep the canary comment: it is part of what must not leak.
  writeFileSync(file, `# canary: ${canaries.commission}\n${stringify(config)}`);
  return { dir, canaries };
}

/** Copies a delivery (fixtures/faults/<name> or fixtures/hardening/<name>) into `into`, readable by any user. */
export function delivery(into: string, name: string, from = 'fixtures/faults'): string {
  const dir = path.join(into, 'deliveries', name);
  cpSync(path.join(REPO, from, name), dir, { recursive: true });
  for (const rel of ['', ...(readdirSync(dir, { recursive: true }) as string[])]) {
    const p = path.join(dir, rel);
    chmodSync(p, rel === '' || !path.extname(p) ? 0o755 : 0o644);
  }
  return dir;
}

/** The environment for a child heldout run: it must not think it is a worker of this Vitest. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(VITEST|TEST$|NODE_OPTIONS|TINYPOOL|HELDOUT_|OPENAI_)/.test(k)) env[k] = v;
  }
  return { ...env, CI: 'true', FORCE_COLOR: '0', ...extra };
}

/** A child process whose output is kept and whose end can be awaited. */
export interface Child {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  log: () => string;
}

const started = new Set<ChildProcess>();

/** Starts `node <args>` (the heldout CLI when args[0] is BIN) and keeps its output; `stopStarted` ends it. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  child.on('exit', () => started.delete(child));
  let log = '';
  child.stdout!.on('data', (b) => {
    log += b;
  });
  child.stderr!.on('data', (b) => {
    log += b;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return { child, exited, log: () => log };
}

/** Ends (SIGTERM: heldout's own teardown) every run a test started and left running, say after it failed. */
export async function stopStarted(): Promise<void> {
  await Promise.all(
    [...started].map(
      (c) =>
        new Promise<void>((resolve) => {
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
        }),
    ),
  );
}

/** Polls `check` until it holds; the deadline only bounds a hang (the machine may be busy), it is no timing. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Containers, volumes and networks labelled with `runId`, through the docker CLI (as an operator would look). */
export async function dockerLeftovers(runId: string): Promise<string[]> {
  const label = `label=heldout.run=${runId}`;
  const list = async (...args: string[]) =>
    (await execFileP('docker', [...args, '--filter', label])).stdout.split('\n').filter(Boolean);
  return [
    ...(await list('ps', '-a', '--format', 'container {{.ID}} {{.Status}}')),
    ...(await list('volume', 'ls', '-q')).map((v) => `volume ${v}`),
    ...(await list('network', 'ls', '-q')).map((n) => `network ${n}`),
  ];
}

/** Running containers of `runId`. */
export async function runningContainers(runId: string): Promise<string[]> {
  const { stdout } = await execFileP('docker', ['ps', '-q', '--filter', `label=heldout.run=${runId}`]);
  return stdout.split('\n').filter(Boolean);
}

/** Pids of processes whose command line contains `marker` (a sandbox's `sleep <marker>`). */
export function markerProcesses(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes(marker) && !cmd.includes('vitest')) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

/** Cgroups of `runId` the process backend made (named `heldout-<runId>--…`), on either cgroup version. */
export function runCgroups(runId: string): string[] {
  const prefix = `heldout-${runId}--`.replace(/[^A-Za-z0-9_.-]/g, '_');
  const out: string[] = [];
  for (const base of ['/sys/fs/cgroup', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids', '/sys/fs/cgroup/cpu']) {
    try {
      for (const n of readdirSync(base)) if (n.startsWith(prefix)) out.push(path.join(base, n));
    } catch {
      // no such hierarchy here
    }
  }
  return out;
}

/** True while process `pid` exists and is not a zombie; the direct children of a pid (a run's Vitest workers). */
export { childPids as childrenOf, processAlive as alive } from '../../src/sandbox/index.js';

/** Every `*.meta.json` case record under a run's output directory. */
export function caseRecords(out: string): string[] {
  try {
    return (readdirSync(path.join(out, 'cases'), { recursive: true }) as string[]).filter((f) =>
      f.endsWith('.meta.json'),
    );
  } catch {
    return [];
  }
}

/** A fresh run id for a test's heldout run (the label its containers carry). */
export function testRunId(label: string): string {
  return `t-${label}-${process.pid}-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
}
