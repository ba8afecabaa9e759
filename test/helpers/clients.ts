// Real agent clients, pinned in test/clients.json and installed from the npm registry into a cache outside the
// repository (`.ci/install-clients`), so the conformance tests run them unmodified without making them dependencies.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PINNED: Record<string, { package: string; version: string }> = JSON.parse(
  readFileSync(new URL('../clients.json', import.meta.url), 'utf8'),
);

/** Where the clients are installed: `HELDOUT_CLIENTS_DIR`, else `~/.cache/heldout-clients`. */
export function clientsDir(): string {
  return process.env.HELDOUT_CLIENTS_DIR || join(homedir(), '.cache', 'heldout-clients');
}

/** A pinned client's install prefix, or why it is not there (the reason a test skips with). */
export function clientPrefix(name: string): { prefix: string; version: string } | { skip: string } {
  const pin = PINNED[name];
  if (!pin) throw new Error(`test/clients.json names no client ${name}`);
  const prefix = join(clientsDir(), name);
  const manifest = join(prefix, 'node_modules', pin.package, 'package.json');
  const why = `${pin.package}@${pin.version} is not installed in ${prefix} (run .ci/install-clients)`;
  if (!existsSync(manifest)) return { skip: why };
  const version = JSON.parse(readFileSync(manifest, 'utf8')).version;
  if (version !== pin.version) return { skip: `${why}; found ${version}` };
  return { prefix, version };
}

/** Imports a pinned client's package from its install prefix, or says why not. */
export async function importClient<T = any>(name: string): Promise<{ module: T; version: string } | { skip: string }> {
  const at = clientPrefix(name);
  if ('skip' in at) return at;
  const pkg = PINNED[name]!.package;
  const entry = createRequire(join(at.prefix, 'package.json')).resolve(pkg);
  return { module: (await import(pathToFileURL(entry).href)) as T, version: at.version };
}
