import { loadCommission } from '../../commission/index.js';
import { IMPORTERS, ImportError, type ImportFlag, importerFor, importerKinds } from '../../importers/index.js';
import { defineCommand, UsageError } from '../command.js';
import { requireDirectory } from '../errors.js';
import { declareOptions, stringOption } from '../options.js';

const KINDS = importerKinds();
const FLAGS: ImportFlag[] = ['entry', 'profile', 'lang', 'product'];
const takers = (flag: ImportFlag) => KINDS.filter((k) => (IMPORTERS[k].flags as readonly string[]).includes(flag));

const usage = KINDS.map((k, i) => `${i === 0 ? 'Usage: ' : '       '}heldout import ${k} ${IMPORTERS[k].usage}`);
const kinds = KINDS.map((k) => IMPORTERS[k].help.map((line, i) => `${i === 0 ? k.padEnd(10) : ' '.repeat(10)}${line}`));

export default defineCommand({
  name: 'import',
  summary: 'convert an AgentSWE task, a Harbor task or a τ²-bench domain into a commission package',
  help: `${usage.join('\n')}

${kinds.map((lines) => lines.join('\n')).join('\n')}

The output is deterministic (importing twice gives identical files) and holds IMPORT-NOTES.md listing everything
that could not be mapped. The imported commission is validated before the command reports success.

Options:
  --out <dir>        the commission directory to write (must be empty or absent, unless --force)
  --force            replace a non-empty output directory
  --entry <command>  harbor: the delivery's launch command, run in the task's container (default: sh {delivery}/run.sh {input});
                     agentswe: the per-case command when the package's interface has none heldout can run (editing)
  --profile <p>      agentswe: apply profiles/<p>/ (default: the Lite profile of a Lite task; paper: none)
  --lang <l>         agentswe editing: apply lang/<l>/ over tree/ (default: the one task.json marks; as-run: none)
  --product <dir>    agentswe editing: a checkout of the pinned product; checked against the pin, becomes starter/
  --json             print one JSON document: {ok, kind, out, id, files, notes[, sources][, sourceFiles]} or
                     {ok: false, missing} (harbor: sources, agentswe: sourceFiles; every source file, what it became)

Exit: 0 imported and valid, 2 usage error, incomplete package or invalid result.`,
  options: declareOptions({ string: ['out', ...FLAGS], boolean: ['force', 'json'] }),
  async run({ values, positionals }) {
    const [kind, dir, ...extra] = positionals;
    const importer = kind ? importerFor(kind) : null;
    if (!kind || !importer) throw new UsageError(`import: name the kind first: ${KINDS.join(', ')}`);
    if (!dir)
      throw new UsageError(`import ${kind}: name the ${importer.source === 'task' ? 'task' : 'domain'} directory`);
    if (extra.length) throw new UsageError(`import ${kind}: unexpected arguments ${extra.join(' ')}`);
    const out = stringOption(values, 'out');
    if (out === undefined || out === '') throw new UsageError(`import ${kind}: --out <commission-dir> is required`);
    requireDirectory(dir, `import ${kind}:`, `name the ${importer.source} directory to import`);
    const json = values.json === true;
    const flags: Partial<Record<ImportFlag, string>> = {};
    for (const flag of FLAGS) {
      const v = stringOption(values, flag);
      if (v === undefined) continue;
      if (!importer.flags.includes(flag)) {
        const by = takers(flag);
        throw new UsageError(`--${flag} applies to ${by.join(' and ')} imports${by.length === 1 ? ' only' : ''}`);
      }
      flags[flag] = v;
    }

    let done: Awaited<ReturnType<typeof importer.run>>;
    try {
      done = await importer.run(dir, out, { ...flags, overwrite: values.force === true });
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      if (json) console.log(JSON.stringify({ ok: false, kind, source: dir, missing: err.missing }));
      else console.error(`heldout ${err.message}`);
      return 2;
    }
    const { result } = done;

    // An import is only done when heldout itself accepts the result.
    let problem: string | null = null;
    try {
      await loadCommission(result.outDir);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (json) {
      console.log(
        JSON.stringify({
          ok: problem === null,
          kind,
          out: result.outDir,
          id: result.id,
          files: result.files,
          notes: result.notes,
          ...done.json,
          ...(problem ? { invalid: problem } : {}),
        }),
      );
    } else {
      console.log(
        `imported ${kind} ${dir} → ${result.outDir} (${result.files.length} files, ${result.notes.length} notes in IMPORT-NOTES.md)`,
      );
      for (const line of done.lines) console.log(line);
      if (problem) console.error(`heldout import: the result does not validate yet:\n${problem}`);
    }
    return problem === null ? 0 : 2;
  },
});
