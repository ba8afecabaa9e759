import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDomain, type Tau2Domain } from '../../src/tau2/index.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const tau2Dir = path.resolve(repoRoot, '../shared/data/tau2');

const cache = new Map<string, Tau2Domain>();
/** The real τ² domain data, loaded once per test file. */
export async function domain(name: 'airline' | 'retail' | 'telecom'): Promise<Tau2Domain> {
  let d = cache.get(name);
  if (!d) {
    d = loadDomain(path.join(tau2Dir, name));
    cache.set(name, d);
  }
  return d;
}
