import path from 'node:path';
import { CommissionError, loadCommission } from '../../commission/index.js';
import type { runDevRound } from '../../devloop/index.js';
import { expectedSandbox, isSandboxKind, SANDBOX_KINDS } from '../../sandbox/index.js';
import { defineCommand, UsageError } from '../command.js';
import { describeError, requireDirectory } from '../errors.js';
import {
  declareOptions,
  imageMapOption,
  optionalInteger,
  pricingOption,
  serviceOption,
  stringOption,
} from '../options.js';
import { TreeWatch } from '../watch.js';

export default defineCommand({
  name: 'dev',
  summary: 'one development round on the dev cases, with feedback; recorded in the round ledger',
  help: `Usage: heldout dev <commission> --delivery <dir> [options]

Runs the submission on the commission's DEV cases only (through Vitest, each case in its own sandbox), prints
per-case scores and feedback (dimension scores, gate, failed checks with evidence, unmet outcomes, ceilings, the
judge's major errors), and records the round (digest, dev mean, time, per-case results) in the round ledger.

Rounds are counted per distinct tree digest: resubmitting a tree already in the ledger runs again but is not
counted ("identical to round K, not counted"). A new digest once budgets.devRounds rounds are counted is refused
without running. A round is "accepted" when every dev case met the commission's pass rule; \`heldout freeze
--policy last-accepted\` uses that.

Options:
  --delivery <dir>     the submission (default: $HELDOUT_DELIVERY)
  --ledger <file>      round ledger (default .heldout/rounds/<commission-id>.json; must lie outside the delivery)
  --sandbox ${SANDBOX_KINDS.join('|')}   (default auto: docker when an engine answers)
  --image-map <from=to> run image <to> wherever the commission names <from> (repeatable; see heldout run --help)
  --service <name=url|cmd> map an evaluator-owned service the commission declares under \`external\` (repeatable;
                        see heldout run --help)
  --pricing <file>     pricing table: the round's cost in money (see heldout run --help)
  --out <dir>          this round's report directory (default .heldout/dev/<commission-id>/<run-id>)
  --trials <k>         trials per case (default: the commission's)
  --concurrency <n>    cases at once (default: number of cores)
  --reporter <name>    also show a Vitest console reporter (default: none)
  --json               print one JSON document (round, counted, digest, dev mean, cases) instead of text
  --watch              after the round, run another whenever a file of the submission or the commission changes
                       (each is a round of its own in the ledger; an unchanged tree is not counted again)

Exit: 0 every dev case passed, 1 some did not, 2 usage error, invalid commission, or round refused (budget spent).`,
  options: declareOptions({
    string: ['delivery', 'ledger', 'sandbox', 'out', 'trials', 'concurrency', 'pricing'],
    strings: ['reporter', 'image-map', 'service'],
    boolean: ['json', 'watch'],
  }),
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('dev: name exactly one commission directory');
    const delivery = stringOption(values, 'delivery') ?? process.env.HELDOUT_DELIVERY;
    if (!delivery) throw new UsageError('dev: --delivery <dir> is required (or set HELDOUT_DELIVERY)');
    requireDirectory(delivery, 'dev: --delivery', 'give the submission’s directory');
    requireDirectory(positionals[0]!, 'dev:', 'name the commission directory');
    const sandbox = values.sandbox ?? 'auto';
    if (!isSandboxKind(sandbox)) throw new UsageError(`--sandbox: ${expectedSandbox(sandbox)}`);
    const json = Boolean(values.json);
    const images = imageMapOption(values);
    const services = serviceOption(values);
    const pricing = pricingOption(values);
    if (json && values.watch) throw new UsageError('dev: --json prints one document; leave it out with --watch');
    // A bad package is refused with every problem before Vitest (and the sandboxes) load.
    await loadCommission(positionals[0]!, { checkModules: true });
    const { DevRoundError, roundFeedback, roundLine, runDevRound, shortDigest } = await import(
      '../../devloop/index.js'
    );
    const once = async (): Promise<number> => {
      let r: Awaited<ReturnType<typeof runDevRound>>;
      try {
        const round = () =>
          runDevRound({
            commission: positionals[0],
            delivery,
            ledger: stringOption(values, 'ledger'),
            sandbox,
            images,
            services,
            pricing,
            out: stringOption(values, 'out'),
            trials: optionalInteger(values, 'trials', 1),
            concurrency: optionalInteger(values, 'concurrency', 1),
            reporters: json ? [] : ((values.reporter as string[] | undefined) ?? []),
          });
        r = await round();
      } catch (err) {
        // The package may have changed under --watch since it was checked.
        if (err instanceof DevRoundError || err instanceof CommissionError) throw new UsageError(err.message);
        throw err;
      }
      if (r.status === 'refused') {
        if (json) {
          console.log(
            JSON.stringify(
              { commission: r.commission, refused: r.reason, budget: r.budget, digest: r.digest, ledger: r.ledgerPath },
              null,
              2,
            ),
          );
        } else {
          console.error(`heldout dev: ${r.reason}`);
          console.error(`  (submission ${shortDigest(r.digest)}; ledger ${r.ledgerPath})`);
        }
        return 2;
      }
      const round = r.outcome.round!;
      if (json) {
        console.log(
          JSON.stringify(
            {
              commission: r.commission,
              round: round.round,
              budget: r.budget,
              counted: r.outcome.counted,
              repeatOf: r.outcome.counted ? null : round.round,
              digest: r.digest,
              devMean: r.summary.result.mean,
              accepted: round.accepted,
              ledger: r.ledgerPath,
              report: r.out,
              cases: r.summary.cases,
            },
            null,
            2,
          ),
        );
      } else {
        console.log(roundFeedback(r.summary));
        console.log('');
        console.log(roundLine(r.outcome, r.budget));
        console.log(`  ledger ${r.ledgerPath} · report ${r.out}`);
      }
      return r.allPassed ? 0 : 1;
    };
    if (!values.watch) return once();
    // Watch mode: a round now, then one after every change to the submission or the commission, until Ctrl-C.
    const ledger = stringOption(values, 'ledger');
    const out = stringOption(values, 'out');
    const watcher = new TreeWatch(
      [path.resolve(delivery), path.resolve(positionals[0]!)],
      [ledger, out].filter((p): p is string => p !== undefined).map((p) => path.resolve(p)),
    );
    for (;;) {
      // A round that cannot run (the package was broken by an edit, say) is reported, and the watch goes on.
      await once().catch((err: unknown) => console.error(describeError(err, 'dev')));
      console.log(`\nwatching ${delivery} and ${positionals[0]} for changes (Ctrl-C stops)`);
      const changed = await watcher.next();
      console.log(`\n${path.relative(process.cwd(), changed) || changed} changed: a new round`);
    }
  },
});
