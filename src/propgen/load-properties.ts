import { existsSync } from 'node:fs';
import path from 'node:path';
import { importTypeScript } from '../commission/index.js';
import type { PropertiesDecl } from './types.js';
import { ZOD3, zodMajor } from './zod-arbitrary.js';

/** Thrown when a commission has no usable `properties.ts`. */
export class PropertiesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PropertiesError';
  }
}

/**
 * Imports a commission's property declaration (default `<dir>/properties.ts`) and checks its shape; rejects with a
 * `PropertiesError` that says what is missing.
 */
export async function loadProperties(commissionDir: string, file?: string): Promise<PropertiesDecl> {
  const p = path.resolve(file ?? path.join(commissionDir, 'properties.ts'));
  if (!existsSync(p)) throw new PropertiesError(`${p}: no property declaration (properties.ts)`);
  let mod: { default?: unknown };
  try {
    mod = (await importTypeScript(p)) as { default?: unknown };
  } catch (err) {
    throw new PropertiesError(`${p}: cannot be imported: ${(err as Error).message}`);
  }
  const d = mod.default as Partial<PropertiesDecl> | undefined;
  const problems: string[] = [];
  if (!d || typeof d !== 'object') problems.push('must `export default defineProperties({...})`');
  else {
    if (!d.input || typeof (d.input as { safeParse?: unknown }).safeParse !== 'function')
      problems.push('input: a zod schema is required');
    else if (zodMajor(d.input) === 3) problems.push(ZOD3);
    if (typeof d.render !== 'function') problems.push('render: a function (input) => files is required');
    if (!Array.isArray(d.properties)) problems.push('properties: an array is required');
    const ids = [...(d.properties ?? []), ...(d.metamorphic ?? [])].map((x) => x.id);
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) problems.push(`duplicate property id ${dup}`);
    for (const id of ids)
      if (!/^[a-z0-9][a-z0-9-]*$/.test(id))
        problems.push(`property id ${JSON.stringify(id)}: use lower-case letters, digits and "-"`);
  }
  if (problems.length) throw new PropertiesError(`${p}: ${problems.join('; ')}`);
  return d as PropertiesDecl;
}
