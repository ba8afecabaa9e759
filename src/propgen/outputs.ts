import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Execution } from '../sandbox/index.js';
import type { Outputs } from './types.js';

/** Read access to an output directory; paths that escape it read as missing. */
export function outputsOf(outputDir: string, execution: Execution): Outputs {
  const file = (rel: string): string | null => {
    const root = path.resolve(outputDir);
    const p = path.resolve(root, rel);
    if (!p.startsWith(root + path.sep)) return null;
    return existsSync(p) && statSync(p).isFile() ? p : null;
  };
  const readText = (rel: string) => {
    const p = file(rel);
    return p ? readFileSync(p, 'utf8') : null;
  };
  return {
    execution,
    outputDir,
    exists: (rel) => file(rel) !== null,
    readText,
    readJson<T>(rel: string): T | null {
      const text = readText(rel);
      if (text === null) return null;
      try {
        return JSON.parse(text) as T;
      } catch {
        return null;
      }
    },
  };
}
