/**
 * One step of a Harbor trial (a single-step task is one step named `task`): the step's workdir upload and setup.sh,
 * its healthcheck, the agent (the delivery's entry, or the oracle's solve.sh) with the step's instruction, the
 * declared artifacts, then the verifier on the same container state and its verdict.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommissionConfig, HarborConfig, HarborStep } from '../../../commission/index.js';
import type { TrialContainer } from '../../../sandbox/index.js';
import { stripCanary } from '../../../util/index.js';
import type { TrialOutputs } from './output-budget.js';
import {
  collectArtifacts,
  collectLogArtifacts,
  healthcheck,
  LOGS,
  runOracle,
  runVerifier,
  solutionDir,
  stepWorkdir,
} from './phases.js';
import { judgeVerifier, outputTail, type Rewards, resolveTemplates } from './verdict.js';
import { runCollectHooks, runSeparateVerifier, type SeparateRun } from './verifier-env.js';

/** Where the case's own files are inside the trial container. */
export const CASE = { dir: '/case', input: '/case/input.md', delivery: '/delivery' } as const;

/** Why `--oracle` cannot run a task (or a step) that has no solve.sh. */
export function noSolution(step: string | null): string {
  return step
    ? `this task has no solution for step ${step} (neither steps/${step}/solution/solve.sh nor solution/solve.sh): --oracle has nothing to run`
    : 'this task has no solution (no solution/solve.sh): --oracle has nothing to run';
}

/** What one step did, as `harbor-trial.json` records it. */
export interface StepRecord {
  name: string;
  agent: { exitCode: number | null; timedOut: boolean; wallMs: number } | null;
  rewards: Rewards | null;
  source?: string;
  warnings?: string[];
  /** reward.json keys whose values are no numbers, dropped as Harbor drops them. */
  dropped?: string[];
  artifactsMissing?: string[];
  stoppedBy?: string;
  /** The last lines of the verifier's output (the rest is in the step's verifier/ directory). */
  outputTail?: string;
}

export interface StepInput {
  h: HarborConfig;
  cfg: CommissionConfig;
  step: HarborStep | null;
  taskDir: string;
  oracle: boolean;
  workdir: string;
  shell: 'bash' | 'sh';
  entry: string;
  env: Record<string, string>;
  caseId: string;
  trial: number;
  verifierEnv: Record<string, string>;
  solutionEnv: Record<string, string>;
  out: string;
  caseInput: string;
  /** Opens a separate verifier's container, and the image each runs (by step name, `task` for a single step). */
  openVerifier?: SeparateRun['open'];
  verifierImages?: Record<string, string>;
  /** The case's output budget, shared by every copy out of the trial. */
  outputs: TrialOutputs;
}

/** One step (a single-step task is one step named `task`): setup, agent, artifacts, verifier, verdict. */
export async function runStep(
  trial: TrialContainer,
  s: StepInput,
): Promise<{ record: StepRecord; infra?: string; stdout: string; stderr: string }> {
  const { h, step, taskDir } = s;
  const name = step?.name ?? 'task';
  const record: StepRecord = { name, agent: null, rewards: null };
  const none = { stdout: '', stderr: '' };
  const stepDir = step ? path.join(taskDir, 'steps', step.name) : taskDir;
  const agentUser = step?.agentUser ?? h.agent.user ?? undefined;
  mkdirSync(s.out, { recursive: true });
  if (step) {
    const failed = await stepWorkdir(trial, path.join(stepDir, 'workdir'), s.workdir, s.shell, {
      user: agentUser,
      env: {},
    });
    if (failed) return { record, infra: `the step's setup failed: ${failed}`, ...none };
    if (step.healthcheck) {
      const bad = await healthcheck(trial, step.healthcheck, s.shell, { user: agentUser, cwd: s.workdir, env: {} });
      if (bad) return { record, infra: `the step's healthcheck failed: ${bad}`, ...none };
    }
  }
  // The instruction the agent sees: this step's (canary lines stripped, as Harbor strips them).
  const instruction = step
    ? stripCanary(readFileSync(path.join(stepDir, 'instruction.md'), 'utf8'))
    : readFileSync(s.caseInput, 'utf8');
  const instructionFile = path.join(s.out, 'instruction.md');
  writeFileSync(instructionFile, instruction);
  await trial.put(instructionFile, CASE.input);
  const timeoutSeconds = step?.agentTimeoutSeconds ?? h.agent.timeoutSeconds ?? s.cfg.budgets.wallSeconds;
  const solution = s.oracle ? solutionDir(taskDir, step?.name ?? null) : null;
  if (s.oracle && !solution) return { record, infra: noSolution(step?.name ?? null), ...none };
  const ran = solution
    ? await runOracle(trial, solution, s.shell, {
        user: agentUser,
        cwd: s.workdir,
        env: s.solutionEnv,
        timeoutSeconds,
      })
    : await trial.exec(['sh', '-c', fill(s.entry)], {
        user: agentUser,
        cwd: s.workdir,
        timeoutSeconds,
        env: {
          ...s.env,
          HELDOUT_CASE_ID: s.caseId,
          HELDOUT_TRIAL: String(s.trial),
          HELDOUT_INPUT: CASE.input,
          HELDOUT_CASE_DIR: CASE.dir,
          HELDOUT_OUTPUT: LOGS.agent,
          HARBOR_WORKDIR: s.workdir,
          ...(step ? { HARBOR_STEP: step.name } : {}),
          ...(h.skillsDir ? { HARBOR_SKILLS_DIR: h.skillsDir } : {}),
          ...(h.mcpServers.length ? { HARBOR_MCP_SERVERS: JSON.stringify(h.mcpServers) } : {}),
        },
      });
  record.agent = { exitCode: ran.exitCode, timedOut: ran.timedOut, wallMs: ran.wallMs };
  const said = { stdout: ran.stdout, stderr: ran.stderr };
  const verifier = step?.verifier ?? h.verifier;
  // Harbor runs the task's collect hooks, then the step's, before it collects the artifacts they may write.
  const hooks = [...h.verifier.collect, ...(step ? step.verifier.collect : [])];
  const hookFailures = await runCollectHooks(trial, hooks, s.shell, s.workdir);
  const artifacts = path.join(s.out, 'artifacts');
  const declared = [...h.artifacts, ...(step?.artifacts ?? [])];
  const missing = await collectArtifacts(trial, declared, artifacts, s.outputs);
  if (missing.length) record.artifactsMissing = missing;

  const testDirs = [path.join(taskDir, 'tests'), ...(step ? [path.join(stepDir, 'tests')] : [])];
  const opts = {
    user: verifier.user ?? h.verifier.user ?? undefined,
    env: { ...s.verifierEnv, ...resolveTemplates(step?.verifier.env ?? {}, process.env).env },
    timeoutSeconds: verifier.timeoutSeconds,
  };
  const into = path.join(s.out, 'verifier');
  const sep = verifier.separate;
  const image = s.verifierImages?.[step?.name ?? 'task'];
  let run: Awaited<ReturnType<typeof runVerifier>>;
  if (sep && !(image && s.openVerifier))
    return { record, infra: "the verifier's own environment has no image (it was not built)", ...said };
  if (sep && image && s.openVerifier) {
    const testScript = path.resolve(taskDir, path.relative(h.dir, sep.context), 'test.sh');
    run = await runSeparateVerifier(trial, {
      open: s.openVerifier,
      image,
      sep,
      declared,
      artifactsDir: artifacts,
      testScript,
      into,
      opts,
    });
  } else {
    run = await runVerifier(trial, testDirs, s.shell, into, { ...opts, cwd: s.workdir });
    await collectLogArtifacts(trial, artifacts, s.outputs);
  }
  const verdict = judgeVerifier(run, h.score);
  if (verdict.kind === 'infra') return { record, infra: verdict.reason, ...said };
  record.rewards = verdict.rewards;
  record.source = verdict.source;
  record.outputTail = outputTail(run.output, 8, 800);
  if (verdict.warnings.length || hookFailures.length) record.warnings = [...hookFailures, ...verdict.warnings];
  // Harbor drops a reward.json value that is no number (a note, a list); the record says which were.
  if (verdict.dropped.length) record.dropped = verdict.dropped;
  return { record, ...said };

  function fill(command: string): string {
    const map: Record<string, string> = {
      input: CASE.input,
      output: LOGS.agent,
      run: `${LOGS.agent}/.run`,
      case: CASE.dir,
      delivery: CASE.delivery,
    };
    return command.replace(/\{(input|output|run|case|delivery)\}/g, (_, k: string) => map[k]!);
  }
}
