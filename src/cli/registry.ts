import type { Command } from './command.js';

/**
 * Every CLI command, loaded lazily so `heldout --help` stays fast. A part adds its command by adding one line here
 * (the module default-exports a `Command`).
 */
const modules: (() => Promise<{ default: Command }>)[] = [
  () => import('./commands/validate.js'),
];

export async function commands(): Promise<Command[]> {
  return Promise.all(modules.map(async (m) => (await m()).default));
}
