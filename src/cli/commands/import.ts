import { loadCommission } from '../../commission/index.js';
import { ImportError, type ImportResult, importAgentSwe, importHarbor } from '../../importers/index.js';
import { importTau2 } from '../../tau2/index.js';
import { defineCommand, UsageError } from '../command.js';
import { requireDirectory } from '../errors.js';
import { declareOptions, stringOption } from '../options.js';

const KINDS = ['agentswe', 'harbor', 'tau2'] as const;

export default defineCommand({
  name: 'import',
  summary: 'convert an AgentSWE task, a Harbor task or a τ²-bench domain into a commission package',
  help: `Usage: heldout import agentswe <task-dir> --out <commission-dir> [--profile <p>] [--lang <l>] [--product <checkout>]
                                [--entry <command>] [--force] [--json]
       heldout import harbor <task-dir> --out <commission-dir> [--entry <command>] [--force] [--json]
       heldout import tau2 <domain-dir> --out <commission-dir> [--force] [--json]

agentswe  an AgentSWE task directory, read by its contract: creation (builder_package/ + benchmark/), editing
          (tree/ with its language overlay) or optimization (benchmark/task_contract.json). The rubric's weighted
          dimensions (headings below the title, or its weight table) become judged dimensions; its zero-score rules
          become gates (exit, budgets, required and any-of artifacts) and a judged zero ceiling; its cap tables
          become ceilings; budgets come from task.json, the contract and 04's prose; the entry from the package's
          own interface (a package with none heldout can run is refused, with the reason). Truth files become each
          case's truth.json (the judge's reference, never staged); a harness fixture service becomes a case service.
          IMPORT-NOTES.md ends with what became of every source file (--json: sourceFiles).
harbor    a Harbor / Terminal-Bench task (task.toml, instruction.md or steps/, environment/, tests/, solution/):
          a harbor-family commission run as Harbor runs it (the agent in the task's container, then its verifier
          on the same state); the reward keys become dimensions; IMPORT-NOTES.md says what became of every file.
          A task using what heldout cannot run (a Windows or GPU environment, a separate verifier environment,
          collect hooks) is refused with the feature named.
tau2      a τ²-bench domain directory (when this build has the tool-agent domains). For airline and retail the
          import replays every task's gold calls and lists the ones the domain's tools refuse (as τ²'s do) in
          IMPORT-NOTES.md; --json adds them as goldRefusals.

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
  options: declareOptions({ string: ['out', 'entry', 'profile', 'lang', 'product'], boolean: ['force', 'json'] }),
  async run({ values, positionals }) {
    const [kind, dir, ...extra] = positionals;
    if (!kind || !(KINDS as readonly string[]).includes(kind))
      throw new UsageError(`import: name the kind first: ${KINDS.join(', ')}`);
    if (!dir) throw new UsageError(`import ${kind}: name the ${kind === 'tau2' ? 'domain' : 'task'} directory`);
    if (extra.length) throw new UsageError(`import ${kind}: unexpected arguments ${extra.join(' ')}`);
    const out = stringOption(values, 'out');
    if (out === undefined || out === '') throw new UsageError(`import ${kind}: --out <commission-dir> is required`);
    requireDirectory(dir, `import ${kind}:`, `name the ${kind === 'tau2' ? 'τ² domain' : 'task'} directory to import`);
    const json = values.json === true;
    const overwrite = values.force === true;
    const entry = stringOption(values, 'entry');
    if (values.entry !== undefined && kind === 'tau2')
      throw new UsageError('--entry applies to harbor and agentswe imports');
    const agentswe = {
      profile: stringOption(values, 'profile'),
      lang: stringOption(values, 'lang'),
      product: stringOption(values, 'product'),
    };
    for (const [k, v] of Object.entries(agentswe))
      if (v !== undefined && kind !== 'agentswe') throw new UsageError(`--${k} applies to agentswe imports only`);

    let result: ImportResult & { sourceFiles?: unknown[] };
    let goldRefusals: Awaited<ReturnType<typeof importTau2>>['goldRefusals'] = [];
    try {
      if (kind === 'agentswe') {
        const given = Object.fromEntries(Object.entries({ ...agentswe, entry }).filter(([, v]) => v !== undefined));
        result = await importAgentSwe(dir, out, { overwrite, ...given });
      } else if (kind === 'harbor')
        result = await importHarbor(dir, out, { overwrite, ...(entry !== undefined ? { entry } : {}) });
      else {
        const r = await importTau2(dir, out, { overwrite });
        result = { outDir: r.outDir, id: r.id, files: r.files, notes: r.notes };
        goldRefusals = r.goldRefusals;
      }
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      if (json) console.log(JSON.stringify({ ok: false, kind, source: dir, missing: err.missing }));
      else console.error(`heldout ${err.message}`);
      return 2;
    }

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
          ...(result.sources ? { sources: result.sources } : {}),
          ...(result.sourceFiles ? { sourceFiles: result.sourceFiles } : {}),
          ...(kind === 'tau2' ? { goldRefusals } : {}),
          ...(problem ? { invalid: problem } : {}),
        }),
      );
    } else {
      console.log(
        `imported ${kind} ${dir} → ${result.outDir} (${result.files.length} files, ${result.notes.length} notes in IMPORT-NOTES.md)`,
      );
      if (goldRefusals.length)
        console.log(
          `gold replay: ${goldRefusals.length} task(s) have gold calls the domain's tools refuse (${goldRefusals.map((g) => g.taskId).join(', ')}); see IMPORT-NOTES.md`,
        );
      if (problem) console.error(`heldout import: the result does not validate yet:\n${problem}`);
    }
    return problem === null ? 0 : 2;
  },
});
