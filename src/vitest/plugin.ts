import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { configDefaults } from 'vitest/config';
import type { Split } from '../commission/index.js';
import { checkPricing, newRunId, type SuitePlan } from '../run/index.js';
import { resolveSandbox } from '../sandbox/index.js';
import { globToRegExp } from '../util/index.js';
import { joinGateToJunit } from './junit-gate.js';
import type { HeldoutOptions } from './options.js';
import { plannedExecutions } from './planned.js';
import { HeldoutReporter } from './reporter.js';
import { armRunTeardown } from './run-teardown.js';
import { watchedFiles } from './watch-files.js';

const COMMISSION_FILES = ['commission.yaml', 'commission.ts'];

/** Resolves a sibling module of this file whether heldout runs from `src/` (TypeScript) or from `dist/`. */
function sibling(name: string): string {
  const js = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
}

/** Expands `tasks/*`-style patterns (a `*` per path segment) and plain directories to commission directories. */
export function resolveCommissionDirs(patterns: string | string[], root: string): string[] {
  const out = new Set<string>();
  for (const pattern of Array.isArray(patterns) ? patterns : [patterns]) {
    const segments = path.normalize(pattern).split(path.sep).filter(Boolean);
    let dirs = [path.isAbsolute(pattern) ? path.sep : root];
    for (const seg of segments) {
      if (!/[*?]/.test(seg)) {
        dirs = dirs.map((d) => path.join(d, seg));
        continue;
      }
      const re = globToRegExp(seg);
      dirs = dirs.flatMap((d) =>
        existsSync(d)
          ? readdirSync(d)
              .filter((n) => re.test(n) && statSync(path.join(d, n)).isDirectory())
              .sort()
              .map((n) => path.join(d, n))
          : [],
      );
    }
    for (const d of dirs) if (COMMISSION_FILES.some((f) => existsSync(path.join(d, f)))) out.add(path.resolve(d));
  }
  return [...out];
}

function isInside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function commissionFile(dir: string): string {
  return path.join(dir, COMMISSION_FILES.find((f) => existsSync(path.join(dir, f)))!);
}

/** The directory id of a commission (its folder name) — used before the package itself is loaded. */
function deliveriesFor(options: HeldoutOptions, commissionDir: string, root: string) {
  const id = path.basename(commissionDir);
  const spec = options.delivery ?? process.env.HELDOUT_DELIVERY;
  if (spec === undefined) {
    throw new Error(
      'heldout: no delivery to test. Set `delivery` in the heldout plugin options or HELDOUT_DELIVERY=<dir> (see README).',
    );
  }
  // A single directory is labelled by its name, so reports say which delivery they measured.
  const map =
    typeof spec === 'string'
      ? { [path.basename(path.resolve(root, spec))]: spec }
      : typeof spec === 'function'
        ? spec(id)
        : spec;
  return Object.entries(map).map(([label, dir]) => {
    const abs = path.resolve(root, dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      throw new Error(
        `heldout: delivery "${label}" for ${id}: ${abs} is not a directory; fix \`delivery\` in the heldout plugin options (or HELDOUT_DELIVERY)`,
      );
    }
    const freezeGuess = `${abs.replace(/\/$/, '')}.freeze.json`;
    const freeze =
      options.freeze === false
        ? null
        : options.freeze
          ? path.resolve(root, options.freeze)
          : existsSync(freezeGuess)
            ? freezeGuess
            : null;
    return { label, dir: abs, freeze, role: 'candidate' as const };
  });
}

/**
 * Says, once per run, when the sandbox's engine gate (a cap over every heldout process of this machine) admits fewer
 * sandboxes than the run's concurrency asks for: otherwise `--concurrency 8` on a 2-core engine silently runs 4.
 * Best effort and off the run's path: a backend that cannot be resolved here is the run's own error to report.
 */
async function warnCappedConcurrency(options: HeldoutOptions, warn: (line: string) => void): Promise<void> {
  const wanted = options.concurrency ?? os.availableParallelism();
  try {
    const backend = await resolveSandbox(options.sandbox ?? 'auto');
    const cap = (await backend.runningCap?.()) ?? Number.POSITIVE_INFINITY;
    if (cap < wanted) {
      warn(
        `heldout: concurrency ${wanted} is capped at ${cap} running sandboxes by the ${backend.kind} engine's gate ` +
          '(2 × engine CPUs by default, shared by every heldout process of this machine); set HELDOUT_MAX_SANDBOXES to change it',
      );
    }
  } catch {
    // the run resolves the sandbox itself and fails with the reason
  }
}

/**
 * The heldout Vite/Vitest plugin (DESIGN §9). Adds each commission's `commission.yaml`/`.ts` to the project's test
 * files, turns it into a generated suite (`describe(commission)` → a test per case × trial), sets the heldout runner
 * (a superset of Vitest's, so ordinary tests in the same project keep working) and attaches the heldout reporter.
 */
export function heldout(options: HeldoutOptions): Plugin {
  const runId = process.env.HELDOUT_RUN_ID ?? newRunId();
  let root = process.cwd();
  let dirs: string[] = [];
  const plans = new Map<string, SuitePlan>();
  const out = () => path.resolve(root, options.out ?? path.join('reports', runId));
  // A commission that cannot be planned here fails its own suite, with the reason, when Vitest loads it.
  const plannedIn = async (moduleId: string): Promise<number | null> => {
    const dir = path.dirname(moduleId);
    if (!COMMISSION_FILES.includes(path.basename(moduleId)) || !dirs.includes(dir)) return null;
    return plannedExecutions(planFor(dir)).catch(() => null);
  };
  let pricing: string | undefined;

  const planFor = (commissionDir: string): SuitePlan => {
    let plan = plans.get(commissionDir);
    if (!plan) {
      const splits: Split[] = Array.isArray(options.split) ? options.split : [options.split ?? 'heldout'];
      plan = {
        runId,
        commissionDir,
        deliveries: deliveriesFor(options, commissionDir, root),
        splits,
        trials: options.trials ?? null,
        sandbox: options.sandbox ?? 'auto',
        out: out(),
        concurrency: options.concurrency ?? os.availableParallelism(),
        judgeCache:
          options.judgeCache === false ? false : path.resolve(root, options.judgeCache ?? '.heldout/judge-cache'),
        resume: options.resume ?? false,
        ...(options.retry ? { retry: options.retry } : {}),
        ...(options.repeat && options.repeat > 1 ? { repeat: options.repeat } : {}),
        ...(options.cases ? { cases: { match: options.cases.match ?? [], limit: options.cases.limit ?? null } } : {}),
        ...(options.images ? { images: options.images } : {}),
        ...(options.services ? { services: options.services } : {}),
        ...(pricing ? { pricing } : {}),
      };
      plans.set(commissionDir, plan);
    }
    return plan;
  };

  return {
    name: 'heldout',
    config(config) {
      root = path.resolve(config.root ?? process.cwd());
      dirs = resolveCommissionDirs(options.commissions, root);
      // a bad pricing file stops the run here, in one line, before any case spends anything
      if (options.pricing) pricing = checkPricing(options.pricing, root);
      if (dirs.length === 0) throw new Error(`heldout: no commission matched ${JSON.stringify(options.commissions)}`);
      const withTest = config as { test?: Record<string, any> };
      withTest.test ??= {};
      const test = withTest.test;
      test.include = [
        ...(test.include ?? configDefaults.include),
        ...dirs.map((d) => path.relative(root, commissionFile(d))),
      ];
      if (test.runner && test.runner !== sibling('runner')) {
        console.warn(
          `heldout: test.runner is already set (${test.runner}); freeze checks before files run are skipped.`,
        );
      } else {
        test.runner = sibling('runner');
      }
      // Case wall budgets are enforced by the sandbox; Vitest's own timeout is set per test from the budget. Twice
      // the concurrency is admitted: the session runs `concurrency` commands at once (its turns) while the cases
      // queued behind them are staged and their containers started, ready for a turn (run/session.ts).
      test.maxConcurrency = 2 * (options.concurrency ?? os.availableParallelism());
    },
    configureVitest({ vitest }) {
      // A signal to this (the main) process alone stops the workers and removes the run's sandboxes first.
      vitest.onClose(armRunTeardown(runId, options.sandbox ?? 'auto'));
      void warnCappedConcurrency(options, (line) => vitest.logger.warn(line));
      // Reporters given on the command line replace configured ones; heldout's report must be written all the same
      // (users keep `--reporter=junit` etc.), so it joins whatever list Vitest built.
      const v = vitest as unknown as { onAfterSetServer(fn: () => void): void; reporters: unknown[] };
      v.onAfterSetServer(() => {
        let reporter = v.reporters.find((r): r is HeldoutReporter => r instanceof HeldoutReporter);
        if (!reporter) {
          reporter = new HeldoutReporter({
            out: out(),
            gate: options.gate ?? {},
            runId,
            table: options.table,
            progress: options.progress,
            junit: options.junit,
            plannedIn,
          });
          v.reporters.push(reporter);
        }
        const own = reporter;
        joinGateToJunit(v.reporters, root, () => own.gateRecord());
      });
    },
    transform(_code, id) {
      const file = id.split('?')[0];
      const dir = path.dirname(file);
      if (!COMMISSION_FILES.includes(path.basename(file)) || !dirs.includes(dir)) return null;
      const plan = planFor(dir);
      // Watch mode: the suite depends on the whole package (rubric, cases, checks, starter), the evaluator's
      // held-out cases kept elsewhere and every delivery; a change to any of them reruns this commission's suite.
      const casesRoot = process.env.HELDOUT_CASES;
      const outside = casesRoot ? [path.resolve(casesRoot, path.basename(dir))] : [];
      for (const f of watchedFiles([dir, ...outside, ...plan.deliveries.map((d) => d.dir)]))
        if (f !== file && !isInside(plan.out, f)) this.addWatchFile(f);
      return {
        code: `import { defineCommissionSuite } from ${JSON.stringify(sibling('suite'))};\nawait defineCommissionSuite(${JSON.stringify(plan)});\n`,
        map: null,
      };
    },
  };
}
