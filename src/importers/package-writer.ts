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
  /** Files written executable (0755); every other file is 0644. */
  readonly executable = new Set<string>();
  readonly notes: string[] = [];
  /** What became of each source file (relative path → what it became), for IMPORT-NOTES' per-file table. */
  readonly sources = new Map<string, string>();

  /** Sets one file (a later put of the same path replaces it); `rel` may use the platform's separator. */
  put(rel: string, content: string | Buffer, options: { executable?: boolean } = {}): void {
    const key = rel.split(path.sep).join('/');
    this.files.set(key, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    if (options.executable) this.executable.add(key);
    else this.executable.delete(key);
  }

  /** Copies every file under `srcDir` to `destRel`, in sorted order, keeping exec bits; returns the names copied. */
  copyTree(srcDir: string, destRel: string): string[] {
    const names = listTree(srcDir);
    for (const n of names) {
      const p = path.join(srcDir, n);
      this.put(`${destRel}/${n}`, readFileSync(p), { executable: (statSync(p).mode & 0o111) !== 0 });
    }
    return names;
  }

  /** Records what became of one source file (a later call for the same file replaces it). */
  account(sourceRel: string, became: string): void {
    this.sources.set(sourceRel, became);
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

/**
 * The `IMPORT-NOTES.md` text: where the package came from, every unmapped piece in the order found, then the
 * per-file table of `PackageDraft.account` (if any) and an importer's own appendix.
 */
export function notesMarkdown(
  kind: string,
  source: string,
  notes: string[],
  sources: ReadonlyMap<string, string> = new Map(),
  appendix?: string,
): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const table = sources.size
    ? [
        '## Every source file',
        '',
        '| file | what it became |',
        '| --- | --- |',
        ...[...sources.keys()].sort().map((f) => `| \`${cell(f)}\` | ${cell(sources.get(f)!)} |`),
        '',
      ]
    : [];
  const lines = [
    `# Import notes`,
    '',
    `Imported by \`heldout import ${kind}\` from \`${source}\`.`,
    'Everything of the source package that heldout could not express, or expressed only approximately, is listed',
    'here; nothing was dropped silently.',
    '',
    ...(notes.length ? notes.map((n) => `- ${n.replace(/\n/g, '\n  ')}`) : ['- (nothing: every part mapped)']),
    '',
    ...table,
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
    writeFileSync(p, draft.files.get(rel)!, { mode: draft.executable.has(rel) ? 0o755 : 0o644 });
  }
  return {
    outDir,
    id,
    files,
    notes: [...draft.notes],
    ...(draft.sources.size
      ? { sources: [...draft.sources.keys()].sort().map((file) => ({ file, became: draft.sources.get(file)! })) }
      : {}),
  };
}
