import { CommissionError, formatProblem, loadCommission } from '../../commission/index.js';
import { defineCommand, UsageError } from '../command.js';

export default defineCommand({
  name: 'validate',
  summary: 'check commission packages; print file: field: problem for each problem',
  help: `Usage: heldout validate <commission-dir>...

Loads each commission package (commission.yaml or commission.ts, rubric.yaml, requirement/, cases/)
and checks it against the schema. Prints one line per problem: <dir>/<file>: <field>: <problem>.

Exit: 0 all valid, 2 any invalid.`,
  options: { json: { type: 'boolean' } },
  async run({ positionals }) {
    if (positionals.length === 0) throw new UsageError('validate: name at least one commission directory');
    let invalid = 0;
    for (const dir of positionals) {
      try {
        const c = await loadCommission(dir);
        console.log(
          `ok ${dir} (${c.config.family}: ${c.cases.dev.length} dev, ${c.cases.heldout.length} held-out cases)`,
        );
      } catch (err) {
        if (!(err instanceof CommissionError)) throw err;
        invalid++;
        for (const p of err.problems) console.log(formatProblem(p, dir));
      }
    }
    return invalid > 0 ? 2 : 0;
  },
});
