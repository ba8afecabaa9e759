import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type CaseRef, type Commission, externalServiceEnv, type Split, serviceVariable } from '../commission/index.js';
import { attachmentFor, type Gateway, type PricingTable, readPricing, startGateway } from '../gateway/index.js';
import {
  type CaseGrade,
  type CaseRun,
  type CaseRunContext,
  type CommandRunner,
  type DeliveryStart,
  type FamilyStrategy,
  familyStrategy,
  gradeCase,
  judgeConfigFromEnv,
  stoppedGrade,
} from '../grading/index.js';
import {
  createLimiter,
  dieWithParent,
  type Execution,
  installSignalCleanup,
  outputLimits,
  relayNonce,
  resolveSandbox,
  type SandboxBackend,
  type SandboxSpec,
  type Turn,
} from '../sandbox/index.js';
import { sandboxTempDir, writeFileAtomic } from '../util/index.js';
import { pricedJudge, runPurseId, withCost } from './case-cost.js';
import { caseOutputPath } from './case-path.js';
import { devStringsFor, heldoutLeakFor } from './delivery-scans.js';
import { type PreparedEnvironment, prepareEnvironment } from './environment.js';
import { evaluatorCommand, evaluatorPaths } from './evaluator-command.js';
import { notStopping, sweepDeadRuns } from './lifecycle.js';
import { changedSince, type Prepared, prepareDelivery } from './prepared-delivery.js';
import { withRepeats } from './repeats.js';
import { keepsRecord, readRecord, withAttempts } from './retry.js';
import type { RetryClass } from './retry-classes.js';
import { type CaseRelays, planCaseServices, relayFailure, startCaseRelays } from './service-relays.js';
import { type GuardedTurn, guardedTurn, turnOf, withTurns } from './turns.js';
import type { CaseMeta, DeliveryRef, SuitePlan } from './types.js';

type Delivery = SuitePlan['deliveries'][number];
type CaseArgs = { commission: Commission; delivery: Delivery; caseRef: CaseRef; split: Split; trial: number };
/** `round`: which of `repeat` identical runs of the case × trial this is (1 without `--repeat`). */
type RoundArgs = CaseArgs & { round: number };

export interface RunSessionOptions extends Pick<SuitePlan, 'services' | 'pricing'> {
  runId: string;
  out: string;
  sandbox: SuitePlan['sandbox'];
  concurrency: number;
  judgeCache: string | false;
  /** Reuse the recorded verdicts of an earlier run into the same `out` (same delivery digest), rerunning infra errors. */
  resume?: boolean;
  /** With `resume`: the failure classes to run again instead of infra-errors alone (`--retry`). */
  retry?: RetryClass[];
  /** Identical runs of each case × trial (`--repeat`): its record keeps each round's verdict, its row the last. */
  repeat?: number;
  /** Image map over each commission's own `images` (issue 19). */
  images?: Record<string, string>;
}

const REGISTRY = Symbol.for('heldout.run-sessions');
type Registry = Map<string, RunSession>;
const registry = (): Registry => ((globalThis as Record<symbol, Registry>)[REGISTRY] ??= new Map());

/**
 * The per-process state of one heldout run: the sandbox backend, the gateway, the prepared (digested, verified)
 * deliveries and the concurrency limit. Framework-agnostic: the Vitest suite and runner drive it, so could any
 * other harness. Shared through a global registry because Vitest may load the runner and the test modules in
 * separate module graphs.
 */
export class RunSession {
  private backendPromise: Promise<SandboxBackend> | null = null;
  private gatewayPromise: Promise<Gateway> | null = null;
  private readonly prepared = new Map<string, Promise<Prepared>>();
  private readonly started = new Map<string, Promise<DeliveryStart>>();
  private readonly environments = new Map<string, Promise<PreparedEnvironment>>();
  private readonly pending = new Map<
    string,
    { label: string; dir: string; freeze: string | null; role: DeliveryRef['role'] }
  >();
  private readonly limit: <T>(fn: () => Promise<T>) => Promise<T>;
  /** One of `limit`'s slots, held by hand: a backend that takes turns holds it only while an entry command runs. */
  private readonly turn: Turn;
  // Sandboxes run as a non-root user that must be able to read the patched trees kept here.
  private readonly scratch = sandboxTempDir('heldout-run-');
  /** The pricing table, read once per process (the plugin has read it already, so a bad file failed there). */
  private readonly pricing: PricingTable | null;

  constructor(readonly options: RunSessionOptions) {
    this.limit = createLimiter(options.concurrency);
    this.pricing = options.pricing ? readPricing(options.pricing) : null;
    this.turn = turnOf(this.limit);
    // A signal removes what this process runs; a worker whose main process is gone does the same and exits.
    installSignalCleanup();
    dieWithParent();
  }

  /** The session of this process for a plan's run; created on first use. */
  static forPlan(plan: SuitePlan): RunSession {
    let s = registry().get(plan.runId);
    if (!s) {
      s = new RunSession(plan);
      registry().set(plan.runId, s);
    }
    for (const d of plan.deliveries) s.pending.set(d.dir, d);
    return s;
  }

  /** Every session of this process (the runner verifies their deliveries before files run). */
  static all(): RunSession[] {
    return [...registry().values()];
  }

  /** Digests every delivery registered so far and holds each to its freeze; refusals are kept per delivery. */
  async verifyDeliveries(): Promise<{ label: string; refusal: string | null }[]> {
    const out = [];
    for (const d of this.pending.values()) {
      const p = await this.prepare(d);
      out.push({ label: d.label, refusal: p.refusal?.message ?? null });
    }
    return out;
  }

  private prepare(d: {
    label: string;
    dir: string;
    freeze: string | null;
    role: DeliveryRef['role'];
  }): Promise<Prepared> {
    let p = this.prepared.get(d.dir);
    if (!p) {
      p = prepareDelivery(d);
      this.prepared.set(d.dir, p);
    }
    return p;
  }

  private backend(): Promise<SandboxBackend> {
    this.backendPromise ??= (async () => {
      const backend = await resolveSandbox(this.options.sandbox);
      await sweepDeadRuns(backend);
      return backend;
    })();
    return this.backendPromise;
  }

  private gateway(): Promise<Gateway> {
    this.gatewayPromise ??= startGateway({
      ...(this.pricing ? { pricing: this.pricing } : {}),
      socketPath: path.join(this.scratch, 'gateway.sock'),
      ledgerDir: path.join(this.options.out, 'ledger'),
      // The evaluator's own judge calls go through the gateway too (ledgered under its role), over loopback TCP.
      tcp: judgeConfigFromEnv() !== null,
    });
    return this.gatewayPromise;
  }

  /** The judge as configured (HELDOUT_JUDGE_* / OPENAI_*), reached through the gateway's judge role; null when none. */
  private async judgeConfig(gateway: Gateway) {
    const configured = judgeConfigFromEnv();
    if (!configured || !gateway.tcpUrl) return pricedJudge(configured, this.pricing, undefined);
    // The gateway holds the real key and overwrites the model with the judge role's.
    const viaGateway = { ...configured, baseURL: gateway.roleBaseURL('judge'), apiKey: 'heldout-judge' };
    return pricedJudge(viaGateway, this.pricing, gateway.roles.judge.model);
  }

  /** The family's preparation of a delivery, made once per commission × delivery and shared by all its cases. */
  private deliveryStart(family: FamilyStrategy, commission: Commission, delivery: DeliveryRef): Promise<DeliveryStart> {
    if (!family.onDeliveryStart) return Promise.resolve({ runDir: delivery.dir, runnable: true });
    const key = `${commission.dir}\0${delivery.dir}`;
    let p = this.started.get(key);
    if (!p) {
      p = family.onDeliveryStart({ commission, delivery, scratch: this.scratch });
      this.started.set(key, p);
    }
    return p;
  }

  /** The commission's case environment (image map, builds), made once before its first case (issue 19). */
  private environment(commission: Commission, backend: SandboxBackend): Promise<PreparedEnvironment> {
    let p = this.environments.get(commission.dir);
    if (!p) {
      const logDir = path.join(this.options.out, 'builds', commission.config.id);
      p = prepareEnvironment({ commission, backend, imageMap: this.options.images, logDir });
      this.environments.set(commission.dir, p);
    }
    return p;
  }

  /**
   * Runs one case × trial of a delivery in the sandbox and grades it. Rejects only when the delivery is refused
   * (changed since its freeze, or during the run); every other failure is a graded outcome in the returned meta.
   */
  async runCase(args: CaseArgs): Promise<CaseMeta> {
    const prepared = await this.prepare(args.delivery);
    const rounds: CaseMeta[] = [];
    for (let round = 1; round <= (this.options.repeat ?? 1); round++) {
      // A ticket now, before any other wait: turns go in the order cases start (`--concurrency 1` keeps their order).
      const guarded = guardedTurn(this.turn, () => prepared.refusal);
      try {
        const ran = await this.runTicketed({ ...args, round }, prepared, guarded);
        if ('kept' in ran) return ran.kept;
        rounds.push(ran.fresh);
        if (ran.fresh.refused) break;
      } finally {
        guarded.settle();
      }
    }
    const record = `${this.outputDirOf(args, prepared)}.meta.json`;
    const finished = withAttempts(withRepeats(rounds), this.options.resume ? readRecord(record) : null);
    // A case the teardown cut short has no verdict: recorded, --resume would keep it.
    notStopping();
    // Atomic, and only once every round ran: --resume reads these records back after an interruption.
    await writeFileAtomic(record, JSON.stringify(finished));
    return finished;
  }

  private outputDirOf({ commission, caseRef, split, trial }: CaseArgs, prepared: Prepared): string {
    const where = caseOutputPath(commission.config.id, prepared.ref.label, split, caseRef.id, trial);
    return path.join(this.options.out, where);
  }

  private async runTicketed(
    args: RoundArgs,
    prepared: Prepared,
    guarded: GuardedTurn,
  ): Promise<{ kept: CaseMeta } | { fresh: CaseMeta }> {
    if (prepared.refusal) throw new Error(`refused: ${prepared.refusal.message}`);
    const outputDir = this.outputDirOf(args, prepared);
    if (this.options.resume && args.round === 1) {
      const previous = readRecord(`${outputDir}.meta.json`);
      // Resuming keeps every verdict of the same delivery except the classes to retry (infra-errors by default).
      if (keepsRecord(previous, prepared.ref.digest, this.options.retry))
        return { kept: { ...previous, runId: this.options.runId } };
    }
    notStopping();
    rmSync(outputDir, { recursive: true, force: true });
    rmSync(`${outputDir}.services`, { recursive: true, force: true });
    mkdirSync(outputDir, { recursive: true });
    return { fresh: await this.runFresh(args, prepared, outputDir, guarded) };
  }

  private async runFresh(a: RoundArgs, prepared: Prepared, outputDir: string, guarded: GuardedTurn): Promise<CaseMeta> {
    const { commission, caseRef, split, trial } = a;
    const delivery = prepared.ref;
    const cfg = commission.config;
    const backend = await this.backend();
    const env = await this.environment(commission, backend);
    let substitutedImages = env.substituted;
    let services: Execution['services'];
    const meta = (grade: CaseGrade, weakerIsolation: string[] = []): CaseMeta => ({
      runId: this.options.runId,
      commission: {
        id: cfg.id,
        dir: commission.dir,
        family: cfg.family,
        title: cfg.title,
        minResult: cfg.pass.minResult,
        trials: cfg.trials,
        modelRequired: cfg.model.required,
        ...(cfg.toolAgent ? { tau2Semantics: cfg.toolAgent.semantics } : {}),
      },
      delivery: {
        ...delivery,
        devStrings: devStringsFor(commission, prepared),
        heldoutLeak: heldoutLeakFor(commission, prepared),
      },
      split,
      sandbox: backend.name,
      weakerIsolation,
      grade,
      ...(substitutedImages.length ? { substitutedImages } : {}),
      ...(services?.length ? { services } : {}),
    });
    if (env.refusal) return meta(stoppedGrade(caseRef, split, trial, 'infra-error', env.refusal));
    const ext = externalServiceEnv(cfg.external, caseRef.id, split, this.options.services ?? {}, process.env);
    if ('missing' in ext) return meta(stoppedGrade(caseRef, split, trial, 'infra-error', ext.missing));

    const family = familyStrategy(cfg.family);
    const start = await this.deliveryStart(family, commission, delivery);
    const { runDir, tree } = start;
    if (!start.runnable) {
      // Nothing can run (editing: the patch was rejected), so the gates decide the case; no judge is asked.
      return meta(
        await gradeCase({ commission, caseRef, trial, split, execution: null, outputDir, tree, judge: null }),
      );
    }

    const gateway = await this.gateway();
    // Each round has its own budget and ledger lines.
    const caseKey = `${cfg.id}/${delivery.label}/${split}/${caseRef.id}${a.round > 1 ? `~round${a.round}` : ''}`;
    const b = cfg.budgets;
    const run = b.runUsd != null ? { id: runPurseId(cfg.id), usd: b.runUsd } : undefined;
    const registered = gateway.registerCase({
      caseId: caseKey,
      trial,
      budgets: { calls: b.modelCalls, tokens: b.modelTokens, wallSeconds: b.wallSeconds, usd: b.usd },
      ...(run ? { run } : {}),
    });
    const limits = {
      wallSeconds: cfg.budgets.wallSeconds,
      memoryMb: cfg.budgets.memoryMb,
      cpus: cfg.budgets.cpus,
      pids: cfg.budgets.pids,
      outputBytes: Math.min(cfg.budgets.outputBytes, 8 * 1024 * 1024),
      out: outputLimits(cfg.budgets.outputBytes),
    };

    const attachment = attachmentFor(gateway, registered);
    let relays: CaseRelays | null = null;
    let execution: Execution;
    try {
      const plan = planCaseServices(cfg.external, this.options.services ?? {}, ext.env, serviceVariable);
      // Mapped URL services (issue 30): a host relay per service, reached from the sandbox like the gateway.
      if (plan.relays.length) relays = await startCaseRelays(plan.relays, attachment.relayScript);
      const pod = await env.servicesFor(caseRef);
      substitutedImages = [...env.substituted, ...pod.substituted];
      const spec: SandboxSpec = {
        runId: this.options.runId,
        caseId: caseRef.id,
        trial,
        image: env.image,
        command: cfg.entry,
        deliveryDir: runDir,
        inputPath: caseRef.inputPath,
        assetsDir: caseRef.assetsDir,
        outputDir,
        evaluatorPaths: evaluatorPaths(commission, caseRef, this.options),
        env: { ...cfg.sandbox.env, ...plan.env },
        limits,
        // A commission with no model budget runs without the gateway where none can be attached (remote engines).
        gateway: { ...attachment, required: cfg.budgets.modelCalls > 0 },
        ...(relays ? { serviceRelays: relays.relays } : {}),
        ...(plan.mounts.length ? { mounts: plan.mounts } : {}),
        ...(pod.services.length ? { services: pod.services, serviceLogDir: `${outputDir}.services` } : {}),
      };
      const runCase = family.runCase ?? plainRun;
      // Not under `limit` as a whole: a turn per command (withTurns) lets queued cases be staged meanwhile (the plugin
      // admits 2 × concurrency); the turn is kept until this case's tamper check below (guardedTurn).
      const context = { spec, commission, caseRef, split, trial, gateway, caseKey, substitutedImages, run };
      const ran = await runCase({ ...context, backend: withTurns(backend, guarded.turn) });
      if (guarded.refused) throw new Error(guarded.refused);
      if (ran.grade) {
        guarded.settle();
        await gateway.flush();
        return meta(withCost(this.pricing, ran.grade, gateway.ledgerFor(caseKey, trial), gateway, caseKey, trial));
      }
      execution = ran.execution;
      services = execution.services;
      const down = relays && relayFailure(execution, relays.relays, relayNonce(spec));
      if (down) {
        guarded.settle();
        return meta(stoppedGrade(caseRef, split, trial, 'infra-error', down));
      }
    } catch (err) {
      guarded.settle();
      if (guarded.refused) throw new Error(guarded.refused);
      return meta(stoppedGrade(caseRef, split, trial, 'infra-error', `sandbox: ${(err as Error).message}`));
    } finally {
      await relays?.close();
    }

    // The delivery must still be what was digested (and frozen) after every case (DESIGN §6). If it changed, this
    // case ran on something else: it fails the constraint gate, its record says so (--resume runs it again), and
    // the delivery's remaining cases are refused — but what ran stays in the report.
    const refused = await changedSince(prepared, caseRef.id).finally(guarded.settle);
    if (refused) {
      const grade = stoppedGrade(caseRef, split, trial, 'infra-error', refused);
      const failed: CaseGrade = {
        ...grade,
        status: 'gate-failed',
        gate: 'constraint-violation',
        result: 0,
        wallMs: execution.wallMs,
        exitCode: execution.exitCode,
      };
      return { ...meta(failed, execution.weakerIsolation), refused };
    }

    // A call cut short by the sandbox's end is ledgered just after; refused calls (429, 503) are ledgered too but
    // are not model calls, so the counts come from the gateway's usage.
    await gateway.flush();
    const ledger = gateway.ledgerFor(caseKey, trial);
    const usage = gateway.usage(caseKey, trial);
    const runCommand: CommandRunner = (command, { image, ...opts }) => {
      ({ image, substituted: substitutedImages } = env.imageFor(image, 'command check', substitutedImages));
      const hidden = evaluatorPaths(commission, caseRef, this.options);
      const run = { backend, runId: this.options.runId, caseRef, trial, runDir, hidden };
      return this.limit(() => evaluatorCommand(run, command, { ...opts, image }));
    };
    const grade = await gradeCase({
      commission,
      caseRef,
      trial,
      split,
      execution,
      outputDir,
      ledger: { calls: usage.calls, tokens: usage.tokens, entries: ledger },
      judge: await this.judgeConfig(gateway),
      cacheDir: this.options.judgeCache === false ? null : this.options.judgeCache,
      runCommand,
      tree,
    });
    return meta(withCost(this.pricing, grade, ledger, gateway, caseKey, trial), execution.weakerIsolation);
  }

  /** Stops the gateway and removes scratch space; containers are already gone case by case. */
  async close(): Promise<void> {
    registry().delete(this.options.runId);
    if (this.gatewayPromise) await (await this.gatewayPromise).close();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

/** A case run of a family with no run of its own: the entry, once, in the sandbox. */
async function plainRun({ backend, spec }: CaseRunContext): Promise<CaseRun> {
  return { execution: await backend.run(spec) };
}
