/** What an importer wrote. */
export interface ImportResult {
  /** The commission directory (absolute). */
  outDir: string;
  /** The commission's id. */
  id: string;
  /** Every file written, relative to `outDir`, sorted. */
  files: string[];
  /** What could not be mapped (also written to `IMPORT-NOTES.md`). */
  notes: string[];
  /** Every source file and what it became (IMPORT-NOTES' per-file table), when the importer accounts for them. */
  sources?: { file: string; became: string }[];
}

/** What every importer takes besides its source and output directories. */
export interface ImportOptions {
  /** Replace an existing non-empty output directory (default: refuse). */
  overwrite?: boolean;
}

/** Thrown when a foreign package is incomplete or unreadable; `missing` names every piece that is absent. */
export class ImportError extends Error {
  constructor(
    readonly source: string,
    readonly missing: string[],
  ) {
    super(`cannot import ${source}:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
    this.name = 'ImportError';
  }
}
