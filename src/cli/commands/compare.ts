import {
  compareSummaries,
  readSummary,
  renderCompareText,
  SummaryReadError,
  summaryPathOf,
} from '../../report/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions, stringOption } from '../options.js';

export default defineCommand({
  name: 'compare',
  summary: 'compare two runs (or two deliveries of one run) case by case: W/L/T, paired bootstrap CI, sign test, flips',
  help: `Usage: heldout compare <run-a> [<run-b>] [options]

Compares run B with run A entry by entry (commission × delivery × split), case by case. A run is its report
directory or its summary.json (summary@1 or @2). Each entry of A is paired with B's entry of the same commission
and split and the same delivery label (or B's only candidate); with one run, --a-delivery and --b-delivery name
the two deliveries of it to compare. For each pair: the cases both graded, their mean Result per side (over
scored trials), W/L/T (W = B above A), the mean difference B − A with its paired bootstrap 95 % CI, the two-sided
sign test, the verdict (significantly worse / better when the CI excludes 0), and the cases that flipped
pass↔fail. For a CI gate on it, see heldout run --no-regression-vs.

Options:
  --a-delivery <label>      the delivery of A to compare (default: every one)
  --b-delivery <label>      the delivery of B to compare it with (default: the same label)
  --commission <id>         only this commission
  --split heldout|dev       only this split (default: both, each with its own)
  --json                    one JSON document: { a, b, pairs: [{ commission, split, a, b, paired, cases, flipped,
                            onlyA, onlyB }], unmatched }

Exit: 0 compared, 2 usage error or a summary that cannot be read.`,
  options: declareOptions({ string: ['a-delivery', 'b-delivery', 'commission', 'split'], boolean: ['json'] }),
  async run({ values, positionals }) {
    if (positionals.length < 1 || positionals.length > 2)
      throw new UsageError('compare: name one or two runs (report directories or summary.json files)');
    const deliveryA = stringOption(values, 'a-delivery');
    const deliveryB = stringOption(values, 'b-delivery');
    if (positionals.length === 1 && (deliveryA === undefined || deliveryB === undefined))
      throw new UsageError('compare: with one run, name the two deliveries: --a-delivery <label> --b-delivery <label>');
    const split = stringOption(values, 'split');
    if (split !== undefined && split !== 'heldout' && split !== 'dev')
      throw new UsageError(`--split: expected heldout or dev, got ${split}`);
    const paths = await Promise.all(positionals.map(summaryPathOf));
    let a: Awaited<ReturnType<typeof readSummary>>;
    let b: typeof a;
    try {
      a = await readSummary(paths[0]);
      b = paths.length === 2 ? await readSummary(paths[1]) : a;
    } catch (err) {
      if (err instanceof SummaryReadError) throw new UsageError(err.message);
      throw err;
    }
    const cmp = compareSummaries(a, b, {
      deliveryA,
      deliveryB,
      commission: stringOption(values, 'commission'),
      split,
    });
    if (values.json) console.log(JSON.stringify(cmp, null, 2));
    else process.stdout.write(renderCompareText(cmp, { a: positionals[0], b: positionals[1] ?? positionals[0] }));
    return 0;
  },
});
