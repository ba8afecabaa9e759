import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { subdirs } from './source-files.js';
import { parseToml } from './toml.js';
import { asObject, asText } from './values.js';

/*
 * What is no Harbor task but names some: a registry package reference (`org/name@ref`), a registry file
 * (`registry.json`), a dataset manifest (`dataset.toml`) or a directory of tasks. Each is refused naming its tasks.
 */

/** Harbor's package reference `org/name@ref` (a tag, a revision or `sha256:` digest). */
/**
 * The directory Harbor's cache holds a package at (`~/.cache/harbor/tasks/packages/<org>/<name>/<digest>`, where
 * `harbor download --cache` puts it), for a reference by digest; null for a tag or revision (only the registry
 * resolves those) or a package not in the cache.
 */
export function cachedPackage(ref: string, home = os.homedir()): string | null {
  const m = /^([^/]+)\/([^@]+)@sha256:([0-9a-f]+)$/.exec(ref);
  if (!m) return null;
  const dir = path.join(home, '.cache/harbor/tasks/packages', m[1]!, m[2]!, m[3]!);
  return existsSync(path.join(dir, 'task.toml')) ? dir : null;
}

export const PACKAGE_REF = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*@[\w.:-]+$/;

/** The tasks a Harbor dataset manifest (dataset.toml) lists, as `org/name@ref`, or null when it cannot be read. */
function manifestTasks(file: string): string[] | null {
  try {
    const tasks = parseToml(readFileSync(file, 'utf8')).tasks;
    if (!Array.isArray(tasks)) return [];
    return tasks.flatMap((t) => {
      const o = asObject(t);
      const name = asText(o?.name);
      const ref = asText(o?.digest) ?? asText(o?.ref);
      return name ? [ref ? `${name}@${ref}` : name] : [];
    });
  } catch {
    return null;
  }
}

/** The task paths a registry lists (`path` of any entry, as Harbor's and the cookbook's registries have), as text. */
export function registryPaths(file: string): string {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const p = (v as Record<string, unknown>).path;
      if (typeof p === 'string') found.push(p);
      Object.values(v).forEach(walk);
    }
  };
  try {
    walk(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return '';
  }
  return found.length ? `: ${[...new Set(found)].join(', ')}` : '';
}

/**
 * Why a directory that is no task but a collection of them (a Harbor registry's `registry.json`, or task
 * directories below it) is refused, naming its tasks, or null for anything else: one commission is one task.
 */
export function datasetTasks(dir: string): string | null {
  if (existsSync(path.join(dir, 'task.toml')) || existsSync(path.join(dir, 'instruction.md'))) return null;
  if (existsSync(path.join(dir, 'dataset.toml'))) {
    const listed = manifestTasks(path.join(dir, 'dataset.toml'));
    return `a Harbor dataset manifest (dataset.toml), not a task: its tasks are registry packages heldout does not fetch; download each (harbor download <org/name@ref>) and import its directory${listed?.length ? `: ${listed.join(', ')}` : ''}`;
  }
  const below = subdirs(dir).filter((d) => existsSync(path.join(dir, d, 'task.toml')));
  const registry = existsSync(path.join(dir, 'registry.json'));
  if (!below.length && !registry) return null;
  const what = registry ? 'a Harbor registry (registry.json)' : 'a directory of Harbor tasks';
  const list = below.length ? `: ${below.join(', ')}` : '';
  return `${what}, not a task: import each task directory (heldout import harbor <dir>/<task>)${list}`;
}
