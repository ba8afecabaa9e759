/**
 * The harbor family's case run: one Harbor trial (trial-once.ts) of the delivery — or, with `--oracle`, of the
 * task's own solution — in the task's container, turned into what grading reads. Where the environment is
 * substituted (another image in its place, or its build steps left out), a reward below full cannot be told from
 * the environment's fault, so the task's oracle calibrates it first: unless the oracle reaches full reward there,
 * the case is an infra-error naming what is missing, never the delivery's 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommissionConfig, HarborConfig } from '../../../commission/index.js';
import type { Execution } from '../../../sandbox/index.js';
import { stoppedGrade } from '../../grading-context.js';
import type { CaseRun, CaseRunContext } from '../types.js';
import { solutionDir } from './phases.js';
import { noSolution } from './step-run.js';
import { runTrial, TRIAL_RECORD, TRIAL_REWARD, type TrialInput, type TrialOutcome } from './trial-once.js';
import { planTrial } from './trial-spec.js';
import { fullScore, resolveTemplates, scoreKeys } from './verdict.js';
import { verifierImages } from './verifier-env.js';

/** The task's directory inside the commission: the oracle delivery is this directory. */
export function harborDir(commission: { dir: string; config: CommissionConfig }): string | null {
  const h = commission.config.harbor;
  return h ? path.resolve(commission.dir, h.dir) : null;
}

/** Full marks on the commission's score keys (the other numbers the verifier writes are only recorded). */
const fullReward = (o: TrialOutcome, h: HarborConfig) => o.kind === 'reward' && fullScore(o.reward, h.score);

/** The first step (null: the single-step task) that has no solve.sh for the oracle, or undefined when all have. */
function unsolved(taskDir: string, h: HarborConfig): string | null | undefined {
  const steps = h.steps.length ? h.steps.map((s) => s.name) : [null];
  return steps.find((s) => solutionDir(taskDir, s) === null);
}

/** One calibration per commission and image in this process, shared by its cases. */
const calibrations = new Map<string, Promise<string | null>>();

/** Null when the oracle reaches full reward on the substituted environment; else why the environment cannot grade. */
function calibrate(t: TrialInput): Promise<string | null> {
  const key = `${t.commission.dir}\0${t.plan.spec.image}`;
  let p = calibrations.get(key);
  if (!p) {
    p = (async () => {
      const outDir = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-oracle-'));
      try {
        const { gateway: _, ...rest } = t;
        const o = await runTrial({
          ...rest,
          oracle: true,
          outDir,
          ids: { ...t.ids, caseId: `${t.ids.caseId}-oracle` },
        });
        return fullReward(o, t.h) ? null : substitutedFault(t, o);
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    })();
    calibrations.set(key, p);
  }
  return p;
}

/** A service's env with its `${VAR}` templates filled from the host (and the names no default could fill). */
function resolveServiceEnv(env: Record<string, string> | undefined): {
  env: Record<string, string>;
  missing: string[];
} {
  const r = resolveTemplates(env ?? {}, process.env);
  return { env: r.env, missing: r.missing };
}

/** The score a trial reached, as a reason quotes it: `reward 0.8`, or each score key's value. */
function scoreText(reward: Record<string, number>, h: HarborConfig): string {
  const keys = scoreKeys(reward, h.score);
  return keys.map((k) => `${k} ${Object.hasOwn(reward, k) ? reward[k] : 'absent'}`).join(', ') || 'no reward';
}

/** Why a substituted environment cannot grade, naming what failed and what the substitute lacks. */
function substitutedFault(t: TrialInput, o: TrialOutcome): string {
  const on = t.plan.notes[0] ?? `the substituted image ${t.plan.spec.image}`;
  // A container that never started fails every trial the same way: that is the fault, with what the substitute lacks
  // (an entrypoint a skipped RUN chmod +x would have made runnable, say).
  if (o.kind === 'infra' && o.atStart)
    return t.plan.notes[0] ? `${o.reason}; on ${on}${lacking(t.h, ' (not replayed: ', ')', true)}` : o.reason;
  const img = t.h.image;
  const cause =
    lacking(t.h, "What it may lack is environment/Dockerfile's build, not replayed there: ", '') ||
    (img.dockerfile === null && img.prebuilt
      ? `What it lacks is the task's own image ${img.prebuilt}`
      : `It differs from the task's image built from environment/Dockerfile (FROM ${img.base ?? '?'})`);
  const where = `on the substituted image ${t.plan.spec.image}`;
  if (o.kind === 'reward')
    return `the environment cannot grade this task here: ${where}, the task's own solution reached ${scoreText(o.reward, t.h)}, not full reward. ${cause}`;
  return `the environment cannot grade this task here: ${where}, the task's own solution got no reward. ${cause}. Its trial: ${o.reason}`;
}

/**
 * The Dockerfile steps a replay skipped, quoted whole enough to show what each installs (the installing and
 * fetching ones first unless `asWritten`), or '' when none was.
 */
function lacking(h: HarborConfig, before: string, after: string, asWritten = false): string {
  const all = h.image.skipped.map((s) => s.replace(/\s*\\\n\s*/g, ' ').replace(/\s+/g, ' '));
  if (!all.length) return '';
  const builds = (s: string) => /\b(install|clone|curl|wget|fetch|add|get)\b/i.test(s);
  const ordered = asWritten ? all : [...all.filter(builds), ...all.filter((s) => !builds(s))];
  const shown = ordered.slice(0, 3).map((s) => `\`${s.length > 240 ? `${s.slice(0, 237)}…` : s}\``);
  const more = all.length > 3 ? ` and ${all.length - 3} more` : '';
  return `${before}${shown.join(', ')}${more}${after}`;
}

/** Runs one case × trial of a harbor commission; see the file comment. */
export async function runHarborTrial(ctx: CaseRunContext): Promise<CaseRun> {
  const { backend, spec, commission, caseRef, split, trial } = ctx;
  const infra = (reason: string): CaseRun => ({ grade: stoppedGrade(caseRef, split, trial, 'infra-error', reason) });
  const h = commission.config.harbor;
  const taskDir = harborDir(commission);
  if (!h || !taskDir) return infra('a harbor commission without its harbor block');
  const openTrial = backend.openTrial?.bind(backend);
  if (!openTrial)
    return infra(
      `sandbox ${backend.kind} cannot run Harbor tasks: a trial needs one container that stays up across the agent and verifier phases (use --sandbox docker)`,
    );
  const image = spec.image;
  if (!image) return infra('the task names no image (environment/Dockerfile or [environment].docker_image)');
  const oracle = path.resolve(spec.deliveryDir) === taskDir;

  const env = resolveTemplates(h.env, process.env);
  // Compose interpolates the sidecars' environment from the host, as Harbor's does.
  const services = (spec.services ?? []).map((s) => ({ ...s, ...resolveServiceEnv(s.env) }));
  const verifierEnv = resolveTemplates(h.verifier.env, process.env);
  const solutionEnv = resolveTemplates(h.solutionEnv, process.env);
  const unset = [
    ...new Set([
      ...env.missing,
      ...verifierEnv.missing,
      ...(oracle ? solutionEnv.missing : []),
      ...services.flatMap((s) => s.missing),
    ]),
  ];
  if (unset.length) {
    const passed = env.withheld.length ? `; heldout never passes its own ${env.withheld.join(', ')}` : '';
    return infra(`the task's env templates need ${unset.join(', ')} set on the host (no default given)${passed}`);
  }

  // The image run is the task's own environment (built from its Dockerfile, or its prebuilt docker_image) unless an
  // image map put another in its place: then the Dockerfile's final stage is replayed onto that one.
  const sandbox = commission.config.sandbox;
  const mapped = (ctx.substitutedImages ?? []).some((s) => s.for.startsWith('sandbox'));
  const own = !mapped && (Boolean(sandbox.build) || (h.image.prebuilt !== null && sandbox.image === h.image.prebuilt));
  const plan = planTrial(h, commission.dir, image, !own);
  const input: TrialInput = {
    openTrial,
    commission,
    h,
    taskDir,
    plan,
    oracle,
    deliveryDir: spec.deliveryDir,
    outDir: spec.outputDir,
    ids: { runId: spec.runId, caseId: caseRef.id, trial },
    services: services.map(({ missing: _, ...s }) => s),
    ...(spec.serviceLogDir ? { serviceLogDir: spec.serviceLogDir } : {}),
    caseInput: caseRef.inputPath,
    // The oracle is the task's own script: it calls no model.
    ...(spec.gateway && !oracle ? { gateway: spec.gateway } : {}),
    ...(spec.limits.out ? { outLimits: spec.limits.out } : {}),
    env: { environment: env.env, verifier: verifierEnv.env, solution: solutionEnv.env },
  };
  let verifiers: Record<string, string>;
  try {
    verifiers = await verifierImages(h, commission.dir, caseRef.id, backend.build?.bind(backend), spec.outputDir);
  } catch (err) {
    return infra(`the verifier's own environment could not be built: ${(err as Error).message.split('\n')[0]}`);
  }
  if (Object.keys(verifiers).length) input.verifierImages = verifiers;
  const missingSolution = unsolved(taskDir, h);
  if (oracle && missingSolution !== undefined) return infra(noSolution(missingSolution));
  // Without a solution nothing calibrates the substitute: a full score still grades, anything less cannot be told
  // from what the substitute lacks.
  const calibrates = plan.substituted && !oracle && missingSolution === undefined;
  if (calibrates) {
    const fault = await calibrate(input);
    if (fault) return infra(fault);
  }
  const o = await runTrial(input);
  if (plan.substituted && !fullReward(o, h)) {
    if (oracle) return infra(substitutedFault(input, o));
    if (!calibrates && o.kind === 'reward')
      return infra(
        `the environment cannot grade this task here: on the substituted image ${plan.spec.image}, the delivery reached ${scoreText(o.reward, h)}, and the task has no solution to calibrate the substitute with (a reward below full cannot be told from what it lacks${lacking(h, ': ', '')})`,
      );
  }
  if (o.kind === 'infra') return infra(o.reason);

  const last = [...o.steps].reverse().find((s) => s.agent);
  const said = o.steps
    .map((s) => {
      const what = s.name === 'task' ? 'verifier' : `step ${s.name}`;
      const reward = s.rewards ? `${s.source} ${JSON.stringify(s.rewards)}` : 'not run';
      const tail = s.outputTail ? `\n${s.outputTail.replace(/^/gm, '  ')}` : '';
      return `heldout: ${what}: ${reward}${s.stoppedBy ? ` — stopped: ${s.stoppedBy}` : ''}${tail}`;
    })
    .join('\n');
  const stderr = o.agent.stderr;
  const notes = [
    ...o.notes,
    ...(calibrates ? ["the task's oracle reached full reward on this environment first (calibration)"] : []),
    ...(plan.substituted && !oracle && !calibrates
      ? ['the task has no solution to calibrate this substituted environment; its full score stands']
      : []),
  ];
  const execution: Execution = {
    backend: backend.name,
    exitCode: last?.agent?.exitCode ?? null,
    signal: null,
    timedOut: o.steps.some((s) => s.agent?.timedOut),
    oom: o.oom,
    wallMs: o.wallMs,
    stdout: o.agent.stdout,
    stderr: `${stderr}${stderr && !stderr.endsWith('\n') ? '\n' : ''}${said}\n`,
    stdoutTruncated: false,
    stderrTruncated: false,
    outputLimit: o.outputLimit,
    outputs: [TRIAL_REWARD, TRIAL_RECORD],
    ...(o.services.length ? { services: o.services } : {}),
    weakerIsolation: [
      "harbor trial: the task's own container (its image's user, writable root filesystem, docker's default capabilities)",
      ...notes.map((n) => `harbor trial: ${n}`),
    ],
  };
  return { execution };
}
