import type { Command } from './command.js';

/**
 * Every CLI command, loaded lazily so `heldout --help` stays fast. A part adds its command by adding one line here
 * (the module default-exports a `Command`).
 */
const modules: (() => Promise<{ default: Command }>)[] = [
  () => import('./commands/validate.js'),
  () => import('./commands/run.js'),
  () => import('./commands/demo.js'),
  () => import('./commands/dev.js'),
  () => import('./commands/freeze.js'),
  () => import('./commands/gc.js'),
  () => import('./commands/image-build.js'),
  () => import('./commands/import.js'),
  () => import('./commands/taste-coverage.js'),
  () => import('./commands/taste-sample.js'),
  () => import('./commands/taste-cluster.js'),
];

export async function commands(): Promise<Command[]> {
  return Promise.all(modules.map(async (m) => (await m()).default));
}
