import os from 'node:os';
import path from 'node:path';
import { CommissionError, formatProblem, loadCommission, type Split } from '../../commission/index.js';
import { familyStrategy } from '../../grading/index.js';
import { type GateThresholds, readSummary, SummaryReadError, summaryPathOf } from '../../report/index.js';
import { expectedSandbox, isSandboxKind, SANDBOX_KINDS, stopReason } from '../../sandbox/index.js';
import { runHeldout } from '../../vitest/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions, imageMapOption, numberOption, optionalInteger, stringOption } from '../options.js';

/** The gate's thresholds, numbers read by numberOption. */
const GATE_OPTIONS = ['min-result', 'min-pass-hat-k', 'max-gap'];

export default defineCommand({
  name: 'run',
  summary: 'run commissions against a delivery through Vitest; write summary.json, report.md, index.html, junit.xml',
  help: `Usage: heldout run <commission>... --delivery <dir> [options]

Runs each commission's cases (held-out by default) against the frozen delivery, each case in its own sandbox,
through Vitest (the same generated suite \`npx vitest\` runs with the heldout plugin), and writes the report.

Options:
  --delivery <dir>          the delivery under test (default: $HELDOUT_DELIVERY)
  --oracle                  run each commission's own reference solution instead of a delivery (a Harbor task's
                            solution/: checks that the task can be solved here and its verifier runs)
  --split heldout|dev|both  which cases run (default heldout; both also gives the fidelity gap)
  --trials <k>              trials per case (default: the commission's)
  --sandbox ${SANDBOX_KINDS.join('|')}   (default auto: docker when an engine answers)
  --image-map <from=to>     run image <to> wherever a commission names <from> (or builds on it: the build is
                            skipped); repeatable, over the commission's own \`images\`; the report names each
                            substitution on every row it affects
  --out <dir>               report directory (default reports/<run-id>)
  --concurrency <n>         cases at once per commission (default: number of cores)
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
  --reporter <name>         Vitest reporter(s) for the console (default: default)
  --silent                  no progress lines and no console output of the cases (Vitest's --silent)

When stdout is not a terminal (CI), a progress line is printed per finished case, at most every 2 s
(cases done/total, failures, elapsed, ETA).

Exit: 0 the gate holds, 1 it fails (or could not be evaluated: a partial run), 2 usage error or invalid input.
Without gate options the gate is "every case meets the commission's pass rule", as under \`npx vitest\`.`,
  options: declareOptions({
    string: [
      'delivery',
      'split',
      'trials',
      'sandbox',
      'out',
      'concurrency',
      'freeze',
      'judge-cache',
      'no-regression-vs',
      ...GATE_OPTIONS,
    ],
    strings: ['reporter', 'image-map'],
    boolean: ['resume', 'no-judge-cache', 'silent', 'oracle'],
  }),
  async run({ values, positionals }) {
    if (positionals.length === 0) throw new UsageError('run: name at least one commission directory');
    const images = imageMapOption(values);
    const oracle = values.oracle === true;
    if (oracle && values.delivery !== undefined)
      throw new UsageError('run: --oracle and --delivery exclude each other');
    const delivery = oracle ? undefined : (stringOption(values, 'delivery') ?? process.env.HELDOUT_DELIVERY);
    if (!oracle && !delivery)
      throw new UsageError('run: --delivery <dir> is required (or set HELDOUT_DELIVERY, or --oracle)');
    if (values.resume && !values.out) throw new UsageError('run: --resume needs the --out of the run to continue');
    // Refuse bad packages before any sandbox starts, with every problem at once.
    let invalid = false;
    const oracles: Record<string, Record<string, string>> = {};
    for (const dir of positionals) {
      try {
        const c = await loadCommission(dir);
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
    const split = (values.split as string | undefined) ?? 'heldout';
    if (!['heldout', 'dev', 'both'].includes(split))
      throw new UsageError(`--split: expected heldout, dev or both, got ${split}`);
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
    const given = stringOption(values, 'no-regression-vs');
    const baseline = given === undefined ? undefined : await summaryPathOf(given);
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
    const result = await runHeldout(
      {
        commissions: positionals,
        delivery: oracle ? (id: string) => oracles[id]! : delivery,
        split: split === 'both' ? (['dev', 'heldout'] as Split[]) : (split as Split),
        trials: optionalInteger(values, 'trials', 1),
        sandbox,
        images,
        out: stringOption(values, 'out'),
        concurrency: optionalInteger(values, 'concurrency', 1),
        freeze: stringOption(values, 'freeze'),
        gate,
        resume: Boolean(values.resume),
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
