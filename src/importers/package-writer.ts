import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { listTree } from './source-files.js';
import { ImportError, type ImportOptions, type ImportResult } from './types.js';

/**
 * An in-memory commission package: every file by its relative path. Importers fill it, then `writePackage` writes
 * it in sorted order, so two imports of the same source give byte-identical trees (no timestamps, stable keys).
 */
export class PackageDraft {
  readonly files = new Map<string, Buffer>();
  readonly notes: string[] = [];

  /** Sets one file (a later put of the same path replaces it); `rel` may use the platform's separator. */
  put(rel: string, content: string | Buffer): void {
    this.files.set(rel.split(path.sep).join('/'), typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  }

  /** Copies every file under `srcDir` to `destRel`, in sorted order; returns the relative names copied. */
  copyTree(srcDir: string, destRel: string): string[] {
    const names = listTree(srcDir);
    for (const n of names) this.put(`${destRel}/${n}`, readFileSync(path.join(srcDir, n)));
    return names;
  }

  /** Records something the import could not map; the notes become IMPORT-NOTES.md, in the order noted. */
  note(text: string): void {
    this.notes.push(text);
  }
}

/** YAML with the key order the objects were built in, no line folding (so long rubric texts stay verbatim). */
export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** The `IMPORT-NOTES.md` text: where the package came from, every unmapped piece in the order found, an appendix. */
export function notesMarkdown(kind: string, source: string, notes: string[], appendix?: string): string {
  const lines = [
    `# Import notes`,
    '',
    `Imported by \`heldout import ${kind}\` from \`${source}\`.`,
    'Everything of the source package that heldout could not express, or expressed only approximately, is listed',
    'here; nothing was dropped silently.',
    '',
    ...(notes.length ? notes.map((n) => `- ${n.replace(/\n/g, '\n  ')}`) : ['- (nothing: every part mapped)']),
    '',
    ...(appendix ? [appendix] : []),
  ];
  return lines.join('\n');
}

/**
 * Writes the draft into `outDir`. Refuses a non-empty `outDir` unless `overwrite`, then removes it first, so no
 * stale file of an earlier import survives.
 */
export function writePackage(draft: PackageDraft, outDirArg: string, id: string, options: ImportOptions): ImportResult {
  const outDir = path.resolve(outDirArg);
  if (existsSync(outDir)) {
    if (!statSync(outDir).isDirectory())
      throw new ImportError(outDirArg, [`the output ${outDirArg} exists and is not a directory`]);
    if (readdirSync(outDir).length > 0) {
      if (!options.overwrite)
        throw new ImportError(outDirArg, [
          `the output directory ${outDirArg} is not empty (pass overwrite / --force to replace it)`,
        ]);
      rmSync(outDir, { recursive: true, force: true });
    }
  }
  mkdirSync(outDir, { recursive: true });
  const files = [...draft.files.keys()].sort();
  for (const rel of files) {
    const p = path.join(outDir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, draft.files.get(rel)!);
  }
  return { outDir, id, files, notes: [...draft.notes] };
}
