import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  addCanaries,
  CommissionError,
  canaryOf,
  formatProblem,
  loadCommission,
  problemFile,
} from '../../commission/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions } from '../options.js';

/** The held-out input.md files of a package the loader refused: what `--fix` can still mark. */
function heldoutInputs(dir: string): string[] {
  const root = path.join(dir, 'cases', 'heldout');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .map((id) => path.join(root, id, 'input.md'))
    .filter((f) => existsSync(f));
}

export default defineCommand({
  name: 'validate',
  summary: 'check commission packages; print file: field: problem for each problem',
  help: `Usage: heldout validate <commission-dir>... [--fix] [--json]

Loads each commission package (commission.yaml or commission.ts, rubric.yaml, requirement/, cases/), checks it
against the schema and dry-runs what grading will read without running a delivery: every {placeholder} is one
the sandbox fills, every truth: path is in every case's truth.json, every file path, glob, JSON path, pattern,
JSON Schema and check module is usable. Prints every problem of every file at once, one line each:
<dir>/<file>: <field>: <problem>. The fields are documented in docs/commission.md.

--fix      give each held-out case without one a canary line (a random GUID in a Markdown comment at the end
           of its input.md); a delivery holding a canary had held-out cases, and the run reports it (heldoutLeak)
--json     print one JSON document: [{ dir, ok, family?, dev?, heldout?, canaries?, problems: [{ file, field,
           message }] }]

Exit: 0 all valid, 2 any invalid.`,
  options: declareOptions({ boolean: ['json', 'fix'] }),
  async run({ values, positionals }) {
    if (positionals.length === 0) throw new UsageError('validate: name at least one commission directory');
    const json = values.json === true;
    const fix = values.fix === true;
    const results: Record<string, unknown>[] = [];
    let invalid = 0;
    for (const dir of positionals) {
      let inputs: string[];
      try {
        const c = await loadCommission(dir, { checkModules: true });
        inputs = c.cases.heldout.map((x) => x.inputPath);
        const counts = { family: c.config.family, dev: c.cases.dev.length, heldout: c.cases.heldout.length };
        const marked = inputs.filter((f) => canaryOf(readText(f))).length;
        results.push({ dir, ok: true, ...counts, problems: [] });
        if (!json) {
          const canaries =
            marked === inputs.length || fix ? '' : `; ${inputs.length - marked} without a canary (--fix adds them)`;
          console.log(`ok ${dir} (${counts.family}: ${counts.dev} dev, ${counts.heldout} held-out cases${canaries})`);
        }
      } catch (err) {
        if (!(err instanceof CommissionError)) throw err;
        invalid++;
        inputs = heldoutInputs(dir);
        const problems = err.problems.map((p) => ({ file: problemFile(p, dir), field: p.path, message: p.message }));
        results.push({ dir, ok: false, problems });
        if (!json) for (const p of err.problems) console.log(formatProblem(p, dir));
      }
      if (fix) {
        const changed = addCanaries(inputs);
        results.at(-1)!.canaries = changed;
        if (!json && changed.length) console.log(`  added a canary to ${changed.length} held-out case(s) of ${dir}`);
      }
    }
    if (json) console.log(JSON.stringify(results, null, 2));
    return invalid > 0 ? 2 : 0;
  },
});

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
