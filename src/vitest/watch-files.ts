import { existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Directories a change in which cannot change a case's grade: dependencies, VCS data, caches. */
const SKIP = new Set(['node_modules', '.git', '__pycache__', '.heldout', '.venv', '.pytest_cache']);

/** At most this many files are watched per directory: a delivery with a vendored tree still gets a watcher. */
export const WATCH_LIMIT = 5000;

/**
 * The files of the directories a commission's suite depends on (the package with its cases, rubric, checks and
 * starter; each delivery; evaluator-owned held-out cases elsewhere), for Vite's watcher: a change to any of them
 * reruns the suite in watch mode. Links are not followed; a directory that does not exist gives nothing.
 */
export function watchedFiles(dirs: string[], limit = WATCH_LIMIT): string[] {
  const out: string[] = [];
  for (const root of dirs) {
    if (!existsSync(root)) continue;
    let n = 0;
    const walk = (d: string) => {
      for (const name of readdirSync(d).sort()) {
        if (n >= limit) return;
        if (SKIP.has(name)) continue;
        const p = path.join(d, name);
        const st = lstatSync(p);
        if (st.isDirectory()) walk(p);
        else if (st.isFile()) {
          out.push(p);
          n++;
        }
      }
    };
    walk(root);
  }
  return out;
}
