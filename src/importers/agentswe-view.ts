import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { listTree } from './source-files.js';

/**
 * A task directory as its runner stages it: the base files with the chosen overlays laid over them, file by file.
 * A profile overlay (`profiles/<p>/…`) mirrors the task directory; a language overlay (`lang/<l>/…`) mirrors the
 * editing tree (`tree/…`). The profile wins over the language, the language over the base, as AgentSWE's staging
 * applies them. Reads the file system; every listing is sorted.
 */

/** One overlay that is applied: where it lives and which part of the task it mirrors. */
export interface Overlay {
  kind: 'profile' | 'lang';
  name: string;
  /** The overlay's directory, relative to the task directory (`profiles/lite-v1.1`, `lang/en-backtranslation`). */
  dir: string;
  /** The part of the task directory it mirrors ('' for the whole task, `tree` for a language overlay). */
  mirrors: string;
}

/** Where a logical file comes from. */
export interface Resolved {
  /** The physical file, relative to the task directory. */
  rel: string;
  abs: string;
  /** The overlay that supplied it, or null for the base file. */
  overlay: Overlay | null;
}

export class TaskView {
  constructor(
    readonly taskDir: string,
    /** In precedence order, the strongest first. */
    readonly overlays: Overlay[],
  ) {}

  private physical(overlay: Overlay, logical: string): string | null {
    if (overlay.mirrors === '') return `${overlay.dir}/${logical}`;
    const prefix = `${overlay.mirrors}/`;
    return logical.startsWith(prefix) ? `${overlay.dir}/${logical.slice(prefix.length)}` : null;
  }

  private isFile(rel: string): boolean {
    const abs = path.join(this.taskDir, rel);
    return existsSync(abs) && statSync(abs).isFile();
  }

  /** The file a logical path resolves to (an overlay's copy first), or null. */
  resolve(logical: string): Resolved | null {
    for (const o of this.overlays) {
      const rel = this.physical(o, logical);
      if (rel && this.isFile(rel)) return { rel, abs: path.join(this.taskDir, rel), overlay: o };
    }
    return this.isFile(logical) ? { rel: logical, abs: path.join(this.taskDir, logical), overlay: null } : null;
  }

  /** The base files an overlay's copy replaces (for the account of what became of every file). */
  superseded(logical: string): string[] {
    const hit = this.resolve(logical);
    if (!hit) return [];
    const all = [logical, ...this.overlays.map((o) => this.physical(o, logical)).filter((r): r is string => !!r)];
    return all.filter((r) => r !== hit.rel && this.isFile(r));
  }

  /** Logical paths of every file under a logical directory, from the base and every overlay, sorted. */
  list(logicalDir: string): string[] {
    const names = new Set(listTree(path.join(this.taskDir, logicalDir)));
    for (const o of this.overlays) {
      const rel = this.physical(o, logicalDir);
      if (rel) for (const n of listTree(path.join(this.taskDir, rel))) names.add(n);
    }
    return [...names].sort().map((n) => `${logicalDir}/${n}`);
  }

  /** Immediate subdirectory names of a logical directory, from the base and every overlay, sorted. */
  subdirs(logicalDir: string): string[] {
    const out = new Set<string>();
    for (const f of this.list(logicalDir)) {
      const rest = f.slice(logicalDir.length + 1);
      if (rest.includes('/')) out.add(rest.split('/')[0]!);
    }
    return [...out].sort();
  }
}
