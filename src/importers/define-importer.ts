import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { notesMarkdown, PackageDraft, writePackage } from './package-writer.js';
import { ImportError, type ImportOptions, type ImportResult } from './types.js';

/** What an importer's `build` is given: its source, where the package goes, its options and the draft to fill. */
export interface ImportContext<O extends ImportOptions = ImportOptions> {
  /** The source directory as the caller named it; `ImportError`s name it so. */
  source: string;
  /** The source directory, absolute; it exists and is a directory. */
  sourceDir: string;
  /** The commission directory to be written, absolute (nothing is written there before `build` returns). */
  outDir: string;
  options: O;
  /** The package being built; its notes become `IMPORT-NOTES.md`. */
  draft: PackageDraft;
}

/** What `build` hands back once the draft holds every file but `IMPORT-NOTES.md`. */
export interface BuiltPackage<X extends object = object> {
  /** The commission's id (as in its commission.yaml). */
  id: string;
  /** How `IMPORT-NOTES.md` names the source (default: the source directory's name). */
  sourceName?: string;
  /** Fields of the importer's own added to its result. */
  extra?: X;
  /** Markdown appended to `IMPORT-NOTES.md` after the notes (a table of every source file, say). */
  appendix?: string;
}

/** One kind of foreign package, as `defineImporter` takes it. */
export interface ImporterDefinition<O extends ImportOptions = ImportOptions, X extends object = object> {
  /** The `heldout import <kind>` name, written into `IMPORT-NOTES.md`. */
  kind: string;
  /** Fills the draft from the source; throws an `ImportError` naming every missing piece. */
  build(context: ImportContext<O>): BuiltPackage<X> | Promise<BuiltPackage<X>>;
}

/** Converts the foreign package at `source` into a commission package at `outDir`; see `defineImporter`. */
export type Importer<O extends ImportOptions = ImportOptions, X extends object = object> = (
  source: string,
  outDir: string,
  options?: O,
) => Promise<ImportResult & X>;

/**
 * Makes an importer from its `build`, doing what every importer shares: refusing a source that is not a
 * directory, then writing the draft with its `IMPORT-NOTES.md` (sorted, byte-identical on re-import; a non-empty
 * `outDir` only with `overwrite`, and then replaced whole).
 */
export function defineImporter<O extends ImportOptions = ImportOptions, X extends object = object>(
  definition: ImporterDefinition<O, X>,
): Importer<O, X> {
  return async (source, outDir, options = {} as O) => {
    const sourceDir = path.resolve(source);
    if (!existsSync(sourceDir) || !statSync(sourceDir).isDirectory())
      throw new ImportError(source, [`${source} is not a directory`]);
    const draft = new PackageDraft();
    const built = await definition.build({ source, sourceDir, outDir: path.resolve(outDir), options, draft });
    const sourceName = built.sourceName ?? path.basename(sourceDir);
    draft.put(
      'IMPORT-NOTES.md',
      notesMarkdown(definition.kind, sourceName, draft.notes, draft.sources, built.appendix),
    );
    return { ...writePackage(draft, outDir, built.id, options), ...built.extra } as ImportResult & X;
  };
}
