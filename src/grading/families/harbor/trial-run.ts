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
import type { CommissionConfig } from '../../../commission/index.js';
import type { Execution } from '../../../sandbox/index.js';
import { stoppedGrade } from '../../grading-context.js';
import type { CaseRun, CaseRunContext } from '../types.js';
import { runTrial, TRIAL_RECORD, TRIAL_REWARD, type TrialInput, type TrialOutcome } from './trial-once.js';
import { planTrial } from './trial-spec.js';
import { resolveTemplates } from './verdict.js';

/** The task's directory inside the commission: the oracle delivery is this directory. */
export function harborDir(commission: { dir: string; config: CommissionConfig }): string | null {
  const h = commission.config.harbor;
  return h ? path.resolve(commission.dir, h.dir) : null;
}

const fullReward = (o: TrialOutcome) => o.kind === 'reward' && Object.values(o.reward).every((v) => v >= 1);

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
        return fullReward(o) ? null : substitutedFault(t, o);
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

function substitutedFault(t: TrialInput, o: TrialOutcome): string {
  // A container that never started fails every trial the same way: that is the fault, with what the substitute lacks
  // (an entrypoint a skipped RUN chmod +x would have made runnable, say).
  if (o.kind === 'infra' && o.atStart)
    return t.plan.notes[0] ? `${o.reason}; on ${t.plan.notes[0]}${skippedList(t.h.image.skipped)}` : o.reason;
  const what = o.kind === 'infra' ? o.reason : `reward ${JSON.stringify(o.reward)}`;
  return `the environment cannot grade this task here: on ${t.plan.notes[0] ?? `the substituted image ${t.plan.spec.image}`}, the task's own solution does not reach full reward (${what}). What is missing is the task's image built from environment/Dockerfile${skippedList(t.h.image.skipped)}`;
}

function skippedList(skipped: string[]): string {
  if (!skipped.length) return '';
  const shown = skipped.slice(0, 3).map((s) => `\`${s.length > 60 ? `${s.slice(0, 57)}…` : s}\``);
  return ` (not replayed: ${shown.join(', ')}${skipped.length > 3 ? ` and ${skipped.length - 3} more` : ''})`;
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
  if (plan.substituted && !oracle) {
    const fault = await calibrate(input);
    if (fault) return infra(fault);
  }
  const o = await runTrial(input);
  if (plan.substituted && oracle && !fullReward(o)) return infra(substitutedFault(input, o));
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
    ...(plan.substituted && !oracle
      ? ["the task's oracle reached full reward on this environment first (calibration)"]
      : []),
  ];
  const execution: Execution = {
    backend: 'docker',
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
