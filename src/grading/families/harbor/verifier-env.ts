/**
 * Harbor schema 1.4's verifier parts (harbor v0.22+ `trial/trial.py`): `[[verifier.collect]]` hooks run in the main
 * container after the agent, best-effort; and a verifier in its own environment — a fresh container of its image
 * (which owns /tests), given only the declared artifacts at their paths and /logs/artifacts, so nothing else the
 * agent left is visible to it.
 */
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { HarborArtifact, HarborConfig, HarborSeparateVerifier } from '../../../commission/index.js';
import type { SandboxBackend, TrialContainer } from '../../../sandbox/index.js';
import { shQuote } from '../../../util/index.js';
import { asRoot, LOGS, prepareLogs, runVerifier, shellOf, workdirOf } from './phases.js';
import { outputTail, type VerifierRun } from './verdict.js';

/** Runs the collect hooks in `trial`; resolves the failures, one sentence each (a failure never stops the trial). */
export async function runCollectHooks(
  trial: TrialContainer,
  hooks: HarborConfig['verifier']['collect'],
  shell: 'bash' | 'sh',
  cwd: string,
): Promise<string[]> {
  const failed: string[] = [];
  for (const h of hooks) {
    const r = await trial.exec([shell, '-c', h.command], {
      ...(h.user ? { user: h.user } : {}),
      cwd,
      timeoutSeconds: h.timeoutSeconds,
    });
    if (r.exitCode !== 0)
      failed.push(
        `collect hook \`${h.command}\` ${r.timedOut ? `timed out after ${h.timeoutSeconds} s` : `exited ${r.exitCode}`}: ${outputTail(`${r.stdout}${r.stderr}`, 3, 300)}`,
      );
  }
  return failed;
}

/** The image each separate verifier runs (keyed by step name, `task` for a single-step task), built where needed. */
export async function verifierImages(
  h: HarborConfig,
  commissionDir: string,
  name: string,
  build: SandboxBackend['build'],
  logDir: string,
): Promise<Record<string, string>> {
  const wanted: [string, HarborSeparateVerifier][] = h.steps.length
    ? h.steps.flatMap((s) =>
        s.verifier.separate ? [[s.name, s.verifier.separate] as [string, HarborSeparateVerifier]] : [],
      )
    : h.verifier.separate
      ? [['task', h.verifier.separate]]
      : [];
  const out: Record<string, string> = {};
  for (const [key, sep] of wanted) {
    if (sep.image) {
      out[key] = sep.image;
      continue;
    }
    if (!build) throw new Error('this sandbox builds no images, and the separate verifier environment needs one');
    const ref = await build({
      name: `${name}-verifier`,
      context: path.resolve(commissionDir, sep.context),
      dockerfile: sep.dockerfile ?? 'Dockerfile',
      logFile: path.join(logDir, `verifier-build-${key}.log`),
    });
    out[key] = ref.image;
  }
  return out;
}

/** The host path a declared artifact was collected to (under `artifactsDir`). */
const hostPath = (artifactsDir: string, a: HarborArtifact) =>
  path.join(artifactsDir, a.destination ?? a.source.replace(/^\/+/, ''));

/**
 * Hands the agent's container's artifacts to the verifier's: each declared one (already collected under
 * `artifactsDir`) to its source path, and /logs/artifacts as it is (also merged into `artifactsDir`).
 */
async function handOver(
  agent: TrialContainer,
  verifier: TrialContainer,
  declared: HarborArtifact[],
  artifactsDir: string,
): Promise<void> {
  for (const a of declared) {
    const from = hostPath(artifactsDir, a);
    if (!existsSync(from)) continue;
    await asRoot(verifier, `mkdir -p ${shQuote(path.posix.dirname(a.source))}`);
    await verifier.put(from, a.source);
  }
  const conv = `${artifactsDir}.convention`;
  if (await agent.get(LOGS.artifacts, conv)) {
    await verifier.put(conv, LOGS.artifacts);
    mkdirSync(artifactsDir, { recursive: true });
    cpSync(conv, artifactsDir, { recursive: true, verbatimSymlinks: true });
    rmSync(conv, { recursive: true, force: true });
  }
  await asRoot(agent, `find ${LOGS.artifacts} -mindepth 1 -delete`);
}

/** What a separate verifier needs from the step. */
export interface SeparateRun {
  open: (image: string, sep: HarborSeparateVerifier) => Promise<TrialContainer>;
  image: string;
  sep: HarborSeparateVerifier;
  declared: HarborArtifact[];
  artifactsDir: string;
  /** The host copy of the test.sh the image owns (its `#!` line is checked in the container). */
  testScript: string;
  into: string;
  opts: { user?: string; env: Record<string, string>; timeoutSeconds: number };
}

/** Runs the verifier in its own container; rejects (the trial's infra fault) when that container cannot start. */
export async function runSeparateVerifier(agent: TrialContainer, s: SeparateRun): Promise<VerifierRun> {
  let verifier: TrialContainer;
  try {
    verifier = await s.open(s.image, s.sep);
  } catch (err) {
    throw new Error(
      `the verifier's own environment (${s.image}) could not start: ${(err as Error).message.replace(/^sandbox: /, '')}`,
    );
  }
  try {
    await prepareLogs(verifier);
    await handOver(agent, verifier, s.declared, s.artifactsDir);
    const shell = await shellOf(verifier);
    const cwd = s.sep.workdir ?? (await workdirOf(verifier));
    return await runVerifier(verifier, [], shell, s.into, { ...s.opts, cwd, ownTests: s.testScript });
  } finally {
    await verifier.close();
  }
}
