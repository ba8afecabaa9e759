import os from 'node:os';
import path from 'node:path';
import { type Commission, CommissionError, formatProblem, loadCommission, type Split } from '../../commission/index.js';
import { familyStrategy } from '../../grading/index.js';
import { type GateThresholds, readSummary, SummaryReadError, summaryPathOf } from '../../report/index.js';
import { parseRetryClasses, RETRY_CLASSES, type RetryClass } from '../../run/index.js';
import { expectedSandbox, isSandboxKind, SANDBOX_KINDS, stopReason } from '../../sandbox/index.js';
import type { CaseFilter, selectCases } from '../../vitest/index.js';
import { defineCommand, UsageError } from '../command.js';
import { deliveryMap } from '../deliveries.js';
import {
  declareOptions,
  imageMapOption,
  numberOption,
  optionalInteger,
  pricingOption,
  serviceOption,
  stringOption,
} from '../options.js';

/** The gate's thresholds, numbers read by numberOption. */
const GATE_OPTIONS = ['min-result', 'min-pass-hat-k', 'max-gap'];

export default defineCommand({
  name: 'run',
  summary: 'run commissions against a delivery through Vitest; write summary.json, report.md, index.html, junit.xml',
  help: `Usage: heldout run <commission>... --delivery <dir> [options]

Runs each commission's cases (held-out by default) against the frozen delivery, each case in its own sandbox,
through Vitest (the same generated suite \`npx vitest\` runs with the heldout plugin), and writes the report.

Options:
  --delivery [label=]<dir>  a delivery under test (default: $HELDOUT_DELIVERY); repeat it to run several in one run,
                            each labelled by its directory name or by label=
  --case <glob>             run only the cases whose id (or split/id) matches; repeatable (* and ?)
  --limit <n>               run at most n cases per commission and split (after --case); the report marks
                            a filtered run partial
  --oracle                  run each commission's own reference solution instead of a delivery (a Harbor task's
                            solution/: checks that the task can be solved here and its verifier runs)
  --split heldout|dev|both  which cases run (default heldout; both also gives the fidelity gap)
  --trials <k>              trials per case (default: the commission's)
  --sandbox ${SANDBOX_KINDS.join('|')}   (default auto: docker when an engine answers)
  --image-map <from=to>     run image <to> wherever a commission names <from> (or builds on it: the build is
                            skipped); repeatable, over the commission's own \`images\`; the report names each
                            substitution on every row it affects
  --service <name=url|cmd>  an evaluator-owned service a commission declares under \`external\` (a browser-control
                            service, web search, a case runtime): a URL served on this host is relayed into the
                            sandbox (127.0.0.1:4142…) and a command must exist there, each under the variables the
                            package documents; repeatable. Unmapped, or nothing answering, its cases are infra-errors
  --pricing <file>          pricing table (YAML or JSON; USD per million tokens by model, see the README): each
                            model call's cost in the ledger, each case's and row's in the report, and
                            budgets.usd / budgets.runUsd kept; a model missing from it is said once, never 0
  --out <dir>               report directory (default reports/<run-id>)
  --concurrency <n>         cases at once per commission (default: number of cores; docker caps it at
                            HELDOUT_MAX_SANDBOXES, 2 × engine CPUs by default, and says so)
  --freeze <freeze.json>    hold the delivery to this freeze manifest (default <delivery>.freeze.json if present)
  --min-result <x>          gate: held-out mean Result must be ≥ x
  --min-pass-hat-k <x>      gate: pass^k (largest k run) must be ≥ x
  --max-gap <x>             gate: dev − held-out mean must be ≤ x (needs --split both)
  --no-regression-vs <run>  gate: each held-out candidate must not be significantly worse than that baseline
                            run's entry (its report directory or summary.json; worse: the paired bootstrap
                            95 % CI of new − baseline over the cases both graded lies wholly below 0)
  --judge-cache <dir>       judge verdict cache (default .heldout/judge-cache); --no-judge-cache turns it off
  --resume                  continue an interrupted run into the same --out: graded cases keep their verdicts,
                            cases lost to infrastructure errors (and cases not reached) run again
  --retry <class,...>       with --resume: run again the recorded cases of these failure classes instead
                            (${RETRY_CLASSES.join(', ')}); each earlier attempt is kept in the case's record
  --repeat <n>              run each case × trial n times over, identically (a reference or --oracle): a case
                            whose verdict changes is marked flaky, and each entry shows its run-to-run noise
  --exclude-flaky           gate: leave the flaky cases out of the gate's figures (it says how many)
  --reporter <name>         Vitest reporter(s) for the console (default: default)
  --silent                  no progress lines and no console output of the cases (Vitest's --silent)

When stdout is not a terminal (CI), a progress line is printed per finished case, at most every 2 s
(cases done/total, failures, elapsed, ETA).

Exit: 0 the gate holds, 1 it fails (or could not be evaluated: a partial run), 2 usage error or invalid input.
Without gate options the gate is "every case meets the commission's pass rule", as under \`npx vitest\`.`,
  options: declareOptions({
    string: [
      'split',
      'trials',
      'sandbox',
      'out',
      'concurrency',
      'freeze',
      'judge-cache',
      'limit',
      'no-regression-vs',
      'repeat',
      'pricing',
      ...GATE_OPTIONS,
    ],
    strings: ['reporter', 'delivery', 'case', 'image-map', 'service', 'retry'],
    boolean: ['resume', 'no-judge-cache', 'silent', 'oracle', 'exclude-flaky'],
  }),
  async run({ values, positionals }) {
    if (positionals.length === 0) throw new UsageError('run: name at least one commission directory');
    const images = imageMapOption(values);
    const services = serviceOption(values);
    const pricing = pricingOption(values);
    const oracle = values.oracle === true;
    const given = (values.delivery as string[] | undefined) ?? [];
    if (oracle && given.length > 0) throw new UsageError('run: --oracle and --delivery exclude each other');
    if (!oracle && given.length === 0 && process.env.HELDOUT_DELIVERY) given.push(process.env.HELDOUT_DELIVERY);
    if (!oracle && given.length === 0)
      throw new UsageError('run: --delivery <dir> is required (or set HELDOUT_DELIVERY, or --oracle)');
    const delivery = oracle ? undefined : deliveryMap(given, 'run');
    if (values.resume && !values.out) throw new UsageError('run: --resume needs the --out of the run to continue');
    const retry = retryOption(values.retry as string[] | undefined, Boolean(values.resume));
    const split = (values.split as string | undefined) ?? 'heldout';
    if (!['heldout', 'dev', 'both'].includes(split))
      throw new UsageError(`--split: expected heldout, dev or both, got ${split}`);
    const splits: Split[] = split === 'both' ? ['dev', 'heldout'] : [split as Split];
    const cases: CaseFilter = {
      match: (values.case as string[] | undefined) ?? [],
      limit: optionalInteger(values, 'limit', 1) ?? null,
    };
    const sandbox = values.sandbox ?? 'auto';
    if (!isSandboxKind(sandbox)) throw new UsageError(`--sandbox: ${expectedSandbox(sandbox)}`);
    const gate: GateThresholds = {};
    if (values['min-result'] !== undefined) gate.minResult = numberOption(values, 'min-result', 0);
    if (values['min-pass-hat-k'] !== undefined) gate.minPassHatK = numberOption(values, 'min-pass-hat-k', 0);
    if (values['max-gap'] !== undefined) {
      // The gap is dev − held-out: without both splits it does not exist, and a gate on it could never fail.
      if (split !== 'both') throw new UsageError('--max-gap needs --split both (the gap is dev − held-out)');
      gate.maxGap = numberOption(values, 'max-gap', 0, Number.NEGATIVE_INFINITY);
    }
    const against = stringOption(values, 'no-regression-vs');
    const baseline = against === undefined ? undefined : await summaryPathOf(against);
    if (baseline !== undefined) {
      // A baseline that cannot be read would fail the gate only after every case ran: refuse it now.
      try {
        await readSummary(baseline);
      } catch (err) {
        if (!(err instanceof SummaryReadError)) throw err;
        throw new UsageError(`--no-regression-vs: ${err.message}`);
      }
      gate.noRegressionVs = baseline;
    }
    const repeat = optionalInteger(values, 'repeat', 1);
    if (values['exclude-flaky']) {
      // Without repeats no case can be found flaky, and a gate that says it left them out would mislead.
      if (!repeat || repeat < 2) throw new UsageError('--exclude-flaky needs --repeat n (n ≥ 2) to find flaky cases');
      gate.excludeFlaky = true;
    }
    const trials = optionalInteger(values, 'trials', 1);
    const concurrency = optionalInteger(values, 'concurrency', 1);
    // Refuse bad packages before any sandbox starts, with every problem at once.
    let invalid = false;
    const loaded: Commission[] = [];
    const oracles: Record<string, Record<string, string>> = {};
    for (const dir of positionals) {
      try {
        const c = await loadCommission(dir, { checkModules: true });
        loaded.push(c);
        if (oracle) {
          const o = familyStrategy(c.config.family).oracle?.(c) ?? null;
          if (!o) {
            console.error(`${dir}: --oracle: a ${c.config.family} commission has no reference solution to run`);
            invalid = true;
          } else oracles[path.basename(path.resolve(dir))] = { [o.label]: o.dir };
        }
      } catch (err) {
        if (!(err instanceof CommissionError)) throw err;
        invalid = true;
        for (const p of err.problems) console.error(formatProblem(p, dir));
      }
    }
    if (invalid) return 2;
    // Vitest loads only once the packages are known to be good (a refusal stays quick).
    const { runHeldout, selectCases } = await import('../../vitest/index.js');
    // The cases left out are declared skipped, so the report's `partial` counts and names them.
    const filtered = checkCaseFilter(loaded, splits, cases, selectCases);
    const result = await runHeldout(
      {
        commissions: positionals,
        delivery: oracle ? (id: string) => oracles[id]! : delivery,
        split: splits.length === 1 ? splits[0] : splits,
        ...(filtered ? { cases } : {}),
        trials,
        sandbox,
        images,
        ...(services ? { services } : {}),
        ...(pricing ? { pricing } : {}),
        out: stringOption(values, 'out'),
        concurrency,
        freeze: stringOption(values, 'freeze'),
        gate,
        resume: Boolean(values.resume),
        ...(retry ? { retry } : {}),
        ...(repeat ? { repeat } : {}),
        judgeCache: values['no-judge-cache'] ? false : stringOption(values, 'judge-cache'),
      },
      { reporters: (values.reporter as string[] | undefined) ?? ['default'], silent: Boolean(values.silent) },
    );
    // A signal stopped the run: its teardown (vitest/run-teardown.ts) says so and ends the process with the signal.
    const stopped = stopReason();
    if (stopped) return 128 + (os.constants.signals[stopped as NodeJS.Signals] ?? 0);
    if (!result.summary) {
      console.error('heldout run: no case was run (see the errors above)');
      return 2;
    }
    if (Object.keys(gate).length > 0) return result.violations.length > 0 ? 1 : 0;
    return result.failedTests > 0 || result.vitestExitCode !== 0 ? 1 : 0;
  },
});

/** `--retry a,b`: the failure classes a resumed run reruns; an unknown name is refused with the list (exit 2). */
function retryOption(given: string[] | undefined, resume: boolean): RetryClass[] | undefined {
  if (!given) return undefined;
  if (!resume)
    throw new UsageError('run: --retry reruns the cases of an earlier run: it needs --resume (and its --out)');
  try {
    return parseRetryClasses(given);
  } catch (err) {
    throw new UsageError(`--retry: ${(err as Error).message}`);
  }
}

/**
 * Holds a case filter to the cases there are: a glob that matches no case of any commission is a typo (exit 2).
 * Returns whether the filter leaves any case out (the run is then partial).
 */
function checkCaseFilter(
  commissions: Commission[],
  splits: Split[],
  filter: CaseFilter,
  select: typeof selectCases,
): boolean {
  for (const glob of filter.match ?? []) {
    const hits = commissions.some((c) => splits.some((s) => select(c.cases[s], { match: [glob] }).run.length > 0));
    if (!hits) {
      const ids = commissions.flatMap((c) => splits.flatMap((s) => c.cases[s].map((x) => x.id)));
      throw new UsageError(
        `run: --case ${glob} matches no ${splits.join(' or ')} case; the cases are ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', …' : ''}`,
      );
    }
  }
  return commissions.some((c) => splits.some((s) => select(c.cases[s], filter).skipped.length > 0));
}
