import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const dataDir = path.resolve(repoRoot, '../shared/data');
export const dbAnalytics = path.join(dataDir, 'agentswe/tasks/creation/database-analytics');
export const fixtures = path.join(repoRoot, 'fixtures/importers');
export const hasData = existsSync(dbAnalytics);

export const tmp = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `heldout-import-${prefix}-`));

/** Every file under `dir` with its bytes, keyed by relative path. */
export function snapshot(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      if (statSync(p).isDirectory()) walk(p, rel);
      else out.set(rel, readFileSync(p));
    }
  };
  walk(dir, '');
  return out;
}
