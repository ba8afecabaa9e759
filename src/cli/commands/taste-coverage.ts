import { coverageMetrics, readGoldFile, readToolsFile } from '../../taste/index.js';
import { defineCommand, UsageError } from '../command.js';
import { fileProblem } from '../errors.js';
import { declareOptions, requiredString } from '../options.js';

export default defineCommand({
  name: 'taste coverage',
  summary: 'coverage metrics of gold tool sequences (DESIGN §11)',
  help: `Usage: heldout taste coverage <gold.json>... --tools <tools.json> [--json]

Each <gold.json> is a gold_sequences.json ([{task_id, tools}]) or a τ² tasks.json (sequences from
evaluation_criteria.actions). Prints per input: sequences, vocabulary, toolsUsed, meanLength, writeShare,
uniqueSequences, uniqueToolSets, ngrams (1..3: unique, total, ttr), entropy, entropyNorm, meanPairwiseWed.

--json prints [{ "file", "metrics" }] and nothing else.
Exit: 0 done, 2 usage error or unreadable input.`,
  options: declareOptions({ string: ['tools'], boolean: ['json'] }),
  async run({ values, positionals }) {
    if (positionals.length === 0) throw new UsageError('taste coverage: name at least one gold.json');
    const toolsFile = requiredString(values, 'tools', 'taste coverage', '<tools.json>');
    let tools: ReturnType<typeof readToolsFile>;
    try {
      tools = readToolsFile(toolsFile);
    } catch (err) {
      throw new UsageError(`taste coverage: --tools ${toolsFile}: ${fileProblem(err)}`);
    }
    const results = positionals.map((file) => {
      try {
        return {
          file,
          metrics: coverageMetrics(
            readGoldFile(file).map((g) => g.tools),
            tools,
          ),
        };
      } catch (err) {
        throw new UsageError(`taste coverage: ${file}: ${fileProblem(err)}`);
      }
    });
    if (values.json) {
      console.log(JSON.stringify(results, null, 2));
      return 0;
    }
    const f = (x: number | null) => (x === null ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(4));
    for (const { file, metrics: m } of results) {
      console.log(`${file}
  sequences ${m.sequences}  vocabulary ${m.vocabulary}  toolsUsed ${m.toolsUsed}  meanLength ${f(m.meanLength)}  writeShare ${f(m.writeShare)}
  uniqueSequences ${m.uniqueSequences}  uniqueToolSets ${m.uniqueToolSets}
  ngrams ${(['1', '2', '3'] as const).map((n) => `${n}: ${m.ngrams[n].unique}/${m.ngrams[n].total} ttr ${f(m.ngrams[n].ttr)}`).join('  ')}
  entropy ${f(m.entropy)}  entropyNorm ${f(m.entropyNorm)}  meanPairwiseWed ${f(m.meanPairwiseWed)}`);
    }
    return 0;
  },
});
