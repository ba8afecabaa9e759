import path from 'node:path';
import { UsageError } from './command.js';
import { requireDirectory } from './errors.js';

/**
 * `--delivery` values as the plugin's `{ label: dir }` map: `dir` (labelled by its base name) or `label=dir`.
 * Every directory must exist, and labels must differ (reports tell deliveries apart by them).
 */
export function deliveryMap(values: string[], command: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const value of values) {
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)=(.+)$/.exec(value);
    const dir = m ? m[2]! : value;
    const label = m ? m[1]! : path.basename(path.resolve(dir));
    requireDirectory(dir, `${command}: --delivery`, "give the delivery's directory (label=dir to name it)");
    if (Object.hasOwn(map, label))
      throw new UsageError(`${command}: two deliveries are labelled ${label}; name them apart with label=dir`);
    map[label] = dir;
  }
  return map;
}
