import { readFileSync } from 'node:fs';
import { pyJsonParse } from '../py/json.js';
import { plainJson, toPlain } from '../py/plain.js';
import type { Tau2Task } from './types.js';

/**
 * τ² task JSON as Python's `json.load` reads it, made plain, except that an integral float keeps its box (`PyFloat`):
 * telecom's `"gb_amount": 2.0` is a float to τ² (its texts say "2.0 GB"), which `JSON.parse` would make an int.
 */
export function parseTau2Json(text: string): unknown {
  return toPlain(pyJsonParse(text), { keepFloats: true });
}

/** A tasks.json file (an array of τ² tasks). */
export function readTasksFile(path: string): Tau2Task[] {
  const tasks = parseTau2Json(readFileSync(path, 'utf8'));
  if (!Array.isArray(tasks)) throw new Error(`${path}: expected a JSON array of tasks`);
  return tasks as Tau2Task[];
}

/** A task (or any plain value) as JSON text that keeps its floats (`2.0`), indented like `JSON.stringify(v, null, n)`. */
export const tau2JsonText = (value: unknown, indent?: number) => plainJson(value, indent);
