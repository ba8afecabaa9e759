/**
 * The importers by kind: `heldout import <kind>`, its usage error and its `--help` follow from this table. A new
 * kind is an importer made with `defineImporter` and one entry here (docs/extending.md).
 */
import { importAgentSwe } from './agentswe.js';
import { importHarbor } from './harbor.js';
import { importTau2 } from './tau2.js';
import type { ImportResult } from './types.js';

/** The options `heldout import` reads for a kind beyond `--out`, `--force` and `--json`. */
export type ImportFlag = 'entry' | 'profile' | 'lang' | 'product';

/** What the CLI hands an importer: the flags given (only those its entry takes) and `--force`. */
export type CliImportOptions = Partial<Record<ImportFlag, string>> & { overwrite: boolean };

/** An import as the CLI reports it: the result, the fields `--json` adds, and the lines printed after success. */
export interface RegisteredImport {
  result: ImportResult;
  json: Record<string, unknown>;
  lines: string[];
}

/** One kind of `heldout import`. */
export interface ImporterEntry {
  /** What the source directory is, as usage errors name it (`task`, `τ² domain`). */
  source: string;
  /** The usage after `heldout import <kind> ` (continuation lines indented as printed). */
  usage: string;
  /** The `--help` paragraph, one string per printed line. */
  help: readonly string[];
  /** The flags this kind takes. */
  flags: readonly ImportFlag[];
  /** Runs the import; throws an `ImportError` naming every missing piece. */
  run(source: string, outDir: string, options: CliImportOptions): Promise<RegisteredImport>;
}

const given = (o: CliImportOptions) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Every importer, keyed by its `heldout import` kind. */
export const IMPORTERS = {
  agentswe: {
    source: 'task',
    usage: `<task-dir> --out <commission-dir> [--profile <p>] [--lang <l>] [--product <checkout>]
                                [--entry <command>] [--force] [--json]`,
    help: [
      'an AgentSWE task directory, read by its contract: creation (builder_package/ + benchmark/), editing',
      "(tree/ with its language overlay) or optimization (benchmark/task_contract.json). The rubric's weighted",
      'dimensions (headings below the title, or its weight table) become judged dimensions; its zero-score rules',
      'become gates (exit, budgets, required and any-of artifacts) and a judged zero ceiling; its cap tables',
      "become ceilings; budgets come from task.json, the contract and 04's prose; the entry from the package's",
      'own interface (a package with none heldout can run is refused, with the reason). Truth files become each',
      "case's truth.json (the judge's reference, never staged); a harness fixture service becomes a case service.",
      'IMPORT-NOTES.md ends with what became of every source file (--json: sourceFiles).',
    ],
    flags: ['profile', 'lang', 'product', 'entry'],
    async run(source, outDir, options) {
      const result = await importAgentSwe(source, outDir, given(options));
      return { result, json: result.sourceFiles ? { sourceFiles: result.sourceFiles } : {}, lines: [] };
    },
  },
  harbor: {
    source: 'task',
    usage: '<task-dir> --out <commission-dir> [--entry <command>] [--force] [--json]',
    help: [
      'a Harbor / Terminal-Bench task (task.toml, instruction.md or steps/, environment/, tests/, solution/):',
      "a harbor-family commission run as Harbor runs it (the agent in the task's container, then its verifier",
      'on the same state); the reward keys become dimensions; IMPORT-NOTES.md says what became of every file.',
      'A task using what heldout cannot run (a Windows or GPU environment, a separate verifier environment,',
      'collect hooks) is refused with the feature named.',
    ],
    flags: ['entry'],
    async run(source, outDir, options) {
      const result = await importHarbor(source, outDir, given(options));
      return { result, json: result.sources ? { sources: result.sources } : {}, lines: [] };
    },
  },
  tau2: {
    source: 'τ² domain',
    usage: '<domain-dir> --out <commission-dir> [--force] [--json]',
    help: [
      'a τ²-bench domain directory (when this build has the tool-agent domains). For airline and retail the',
      "import replays every task's gold calls and lists the ones the domain's tools refuse (as τ²'s do) in",
      'IMPORT-NOTES.md; --json adds them as goldRefusals.',
    ],
    flags: [],
    async run(source, outDir, options) {
      const r = await importTau2(source, outDir, { overwrite: options.overwrite });
      const refused = r.goldRefusals;
      const lines = refused.length
        ? [
            `gold replay: ${refused.length} task(s) have gold calls the domain's tools refuse (${refused.map((g) => g.taskId).join(', ')}); see IMPORT-NOTES.md`,
          ]
        : [];
      return {
        result: { outDir: r.outDir, id: r.id, files: r.files, notes: r.notes },
        json: { goldRefusals: refused },
        lines,
      };
    },
  },
} as const satisfies Record<string, ImporterEntry>;

/** A kind `heldout import` knows, derived from the table's keys. */
export type ImporterKind = keyof typeof IMPORTERS;

/** The kinds, in the table's order. */
export const importerKinds = (): ImporterKind[] => Object.keys(IMPORTERS) as ImporterKind[];

/** The entry of a kind, or null for a name the table does not hold (the caller lists the known ones). */
export function importerFor(kind: string): ImporterEntry | null {
  return Object.hasOwn(IMPORTERS, kind) ? IMPORTERS[kind as ImporterKind] : null;
}
