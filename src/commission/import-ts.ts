import { pathToFileURL } from 'node:url';

/**
 * Imports a TypeScript module (`commission.ts`, `checks/*.ts`) from plain Node: through Vite's module runner when
 * Node cannot strip types itself. Vite is a peer of heldout, so this adds no dependency.
 */
export async function importTypeScript(file: string): Promise<unknown> {
  const { runnerImport } = await import('vite');
  const { module } = await runnerImport(pathToFileURL(file).href, { configFile: false, logLevel: 'silent' });
  return module;
}
