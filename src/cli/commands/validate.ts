import { CommissionError, formatProblem, loadCommission, problemFile } from '../../commission/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions } from '../options.js';

export default defineCommand({
  name: 'validate',
  summary: 'check commission packages; print file: field: problem for each problem',
  help: `Usage: heldout validate <commission-dir>... [--json]

Loads each commission package (commission.yaml or commission.ts, rubric.yaml, requirement/, cases/)
and checks it against the schema. Prints one line per problem: <dir>/<file>: <field>: <problem>.
--json prints one JSON document: [{ dir, ok, family?, dev?, heldout?, problems: [{ file, field, message }] }].

Exit: 0 all valid, 2 any invalid.`,
  options: declareOptions({ boolean: ['json'] }),
  async run({ values, positionals }) {
    if (positionals.length === 0) throw new UsageError('validate: name at least one commission directory');
    const json = values.json === true;
    const results: Record<string, unknown>[] = [];
    let invalid = 0;
    for (const dir of positionals) {
      try {
        const c = await loadCommission(dir, { checkModules: true });
        const counts = { family: c.config.family, dev: c.cases.dev.length, heldout: c.cases.heldout.length };
        results.push({ dir, ok: true, ...counts, problems: [] });
        if (!json) console.log(`ok ${dir} (${counts.family}: ${counts.dev} dev, ${counts.heldout} held-out cases)`);
      } catch (err) {
        if (!(err instanceof CommissionError)) throw err;
        invalid++;
        const problems = err.problems.map((p) => ({
          file: problemFile(p, dir),
          field: p.path,
          message: p.message,
        }));
        results.push({ dir, ok: false, problems });
        if (!json) for (const p of err.problems) console.log(formatProblem(p, dir));
      }
    }
    if (json) console.log(JSON.stringify(results, null, 2));
    return invalid > 0 ? 2 : 0;
  },
});
