/**
 * One Harbor trial in its container (harbor v0.22 `SingleStepTrial` / `MultiStepTrial`): the container started
 * and checked healthy, then each step in order (step-run.ts), stopping early where a step's reward is under its
 * `min_reward`; the trial's reward is its steps' (mean or final). Writes `reward.json`, `harbor-trial.json` and
 * what the container left in /logs into `outDir`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Commission, HarborConfig } from '../../../commission/index.js';
import type {
  GatewayAttachment,
  OutputLimits,
  SandboxBackend,
  ServiceRecord,
  ServiceSpec,
  TrialContainer,
} from '../../../sandbox/index.js';
import { TrialOutputs } from './output-budget.js';
import { healthcheck, LOGS, prepareLogs, shellOf, workdirOf } from './phases.js';
import { CASE, runStep, type StepRecord } from './step-run.js';
import type { TrialPlan } from './trial-spec.js';
import { meetsMinReward, outputTail, type Rewards, trialRewards } from './verdict.js';

/** The reward file grading reads, written by heldout from the verifier's (never by the delivery). */
export const TRIAL_REWARD = 'reward.json';
export const TRIAL_RECORD = 'harbor-trial.json';

export interface TrialInput {
  openTrial: NonNullable<SandboxBackend['openTrial']>;
  commission: Pick<Commission, 'dir' | 'config'>;
  h: HarborConfig;
  taskDir: string;
  plan: TrialPlan;
  /** Runs the task's solve.sh as the agent (`--oracle`, and the calibration of a substituted environment). */
  oracle: boolean;
  deliveryDir: string;
  outDir: string;
  ids: { runId: string; caseId: string; trial: number };
  /** The task's compose sidecars, started in the trial's pod before it. */
  services: ServiceSpec[];
  serviceLogDir?: string;
  caseInput: string;
  gateway?: GatewayAttachment;
  /** What the case may leave in its output directory (the run's output budget); no bound when absent. */
  outLimits?: OutputLimits;
  env: { environment: Record<string, string>; verifier: Record<string, string>; solution: Record<string, string> };
  /** The images separate verifiers run (verifier-env.ts `verifierImages`). */
  verifierImages?: Record<string, string>;
}

export type TrialOutcome =
  /** `atStart`: the container never ran (its image is missing, its entrypoint failed), so no phase did. */
  | { kind: 'infra'; reason: string; atStart?: boolean }
  | {
      kind: 'reward';
      reward: Rewards;
      steps: StepRecord[];
      notes: string[];
      agent: { stdout: string; stderr: string };
      wallMs: number;
      oom: boolean;
      services: ServiceRecord[];
      /** Why the trial's outputs were cut at the output budget, or null. */
      outputLimit: string | null;
    };

class Stop extends Error {}

/** What `harbor-trial.json` says of a trial. */
export function writeRecord(out: string, record: Record<string, unknown>): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, TRIAL_RECORD), `${JSON.stringify(record, null, 2)}\n`);
}

/** Runs one trial; see the file comment. Never rejects for the task's or the engine's faults: they are `infra`. */
export async function runTrial(t: TrialInput): Promise<TrialOutcome> {
  const { h, plan, commission } = t;
  const cfg = commission.config;
  const notes = [...plan.notes];
  let container: TrialContainer;
  try {
    container = await t.openTrial({
      ...t.ids,
      ...plan.spec,
      env: t.env.environment,
      limits: { memoryMb: cfg.budgets.memoryMb, cpus: cfg.budgets.cpus, pids: cfg.budgets.pids },
      network: h.network !== 'no-network',
      ...(t.services.length ? { services: t.services } : {}),
      ...(t.serviceLogDir ? { serviceLogDir: t.serviceLogDir } : {}),
      ...(t.gateway ? { gateway: t.gateway } : {}),
    });
  } catch (err) {
    return {
      kind: 'infra',
      reason: `the trial container could not start: ${(err as Error).message.replace(/^sandbox: /, '')}`,
      atStart: true,
    };
  }
  notes.push(...container.notes);
  const steps: StepRecord[] = [];
  const agent = { stdout: '', stderr: '' };
  const outputs = new TrialOutputs(t.outDir, t.outLimits);
  const started = performance.now();
  const image = plan.spec.image;
  try {
    await prepareLogs(container);
    const workdir = await workdirOf(container);
    const shell = await shellOf(container);
    if (shell === 'sh') notes.push("the image has no bash: Harbor's bash wrappers ran under sh");
    if (!t.oracle) await container.put(t.deliveryDir, CASE.delivery);
    if (h.healthcheck) {
      const failed = await healthcheck(container, h.healthcheck, shell, { cwd: workdir, env: {} });
      if (failed) throw new Stop(`the environment's healthcheck failed: ${failed}`);
    }
    for (const step of h.steps.length ? h.steps : [null]) {
      const rec = await runStep(container, {
        h,
        cfg,
        step,
        taskDir: t.taskDir,
        oracle: t.oracle,
        workdir,
        shell,
        entry: cfg.entry,
        env: { ...cfg.sandbox.env, ...(t.gateway?.env ?? {}) },
        caseId: t.ids.caseId,
        trial: t.ids.trial,
        verifierEnv: t.env.verifier,
        solutionEnv: t.env.solution,
        out: step ? path.join(t.outDir, 'steps', step.name) : t.outDir,
        caseInput: t.caseInput,
        ...(t.verifierImages ? { verifierImages: t.verifierImages } : {}),
        openVerifier: (img, sep) =>
          t.openTrial({
            ...t.ids,
            caseId: `${t.ids.caseId}-verifier${step ? `-${step.name}` : ''}`,
            image: img,
            ...(sep.workdir ? { workdir: sep.workdir } : {}),
            limits: {
              memoryMb: sep.memoryMb ?? cfg.budgets.memoryMb,
              cpus: sep.cpus ?? cfg.budgets.cpus,
              pids: cfg.budgets.pids,
            },
            network: sep.network !== 'no-network',
          }),
        outputs,
      });
      steps.push(rec.record);
      agent.stdout += rec.stdout;
      agent.stderr += rec.stderr;
      if (rec.infra) throw new Stop(step ? `step ${step.name}: ${rec.infra}` : rec.infra);
      if (step && !meetsMinReward(step.minReward, rec.record.rewards!)) {
        rec.record.stoppedBy = `reward ${JSON.stringify(rec.record.rewards)} is under min_reward ${JSON.stringify(step.minReward)}`;
        break;
      }
    }
    await outputs.get(container, LOGS.agent, path.join(t.outDir, 'agent'));
    // A sidecar that died during the trial took the environment with it: the evaluator's fault, never the delivery's.
    const died = await container.servicesFailed();
    if (died) throw new Stop(died);
  } catch (err) {
    const state = await container.state();
    const logs = container.logs();
    await container.close();
    const oom = state.oomKilled ? ' (the container hit its memory limit)' : '';
    // A container that stopped under a phase (its entrypoint failed, its process was killed) is the fault to report.
    const message =
      err instanceof Stop
        ? err.message
        : !state.running
          ? `the trial container stopped (exit ${state.exitCode ?? '?'})${oom}`
          : `the trial failed: ${(err as Error).message}`;
    writeRecord(t.outDir, { oracle: t.oracle, image, notes, steps, reward: null, error: message });
    const own = logs.trim() && !state.running ? `\ncontainer output:\n${outputTail(logs, 8)}` : '';
    return { kind: 'infra', reason: `${message}${err instanceof Stop ? oom : ''}${own}` };
  }
  const state = await container.state();
  await container.close();
  const services = container.services();
  const results = steps.flatMap((s) => (s.rewards ? [s.rewards] : []));
  const reward = h.steps.length ? trialRewards(results, h.rewardStrategy) : results[0]!;
  writeFileSync(path.join(t.outDir, TRIAL_REWARD), `${JSON.stringify(reward)}\n`);
  writeRecord(t.outDir, { oracle: t.oracle, image, notes, steps, reward, error: null });
  return {
    kind: 'reward',
    reward,
    steps,
    notes,
    agent,
    wallMs: Math.round(performance.now() - started),
    oom: state.oomKilled,
    services,
    outputLimit: outputs.over,
  };
}
