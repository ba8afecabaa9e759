import type { Command } from './command.js';

/**
 * Every CLI command by name, loaded lazily: a command loads only its own module (`heldout validate` never loads
 * Docker or Vitest), `heldout --help` loads them all. A part adds its command with one line here; the module
 * default-exports a `Command` whose `name` is the key.
 */
const modules: Record<string, () => Promise<{ default: Command }>> = {
  init: () => import('./commands/init.js'),
  validate: () => import('./commands/validate.js'),
  run: () => import('./commands/run.js'),
  demo: () => import('./commands/demo.js'),
  compare: () => import('./commands/compare.js'),
  view: () => import('./commands/view.js'),
  dev: () => import('./commands/dev.js'),
  freeze: () => import('./commands/freeze.js'),
  gc: () => import('./commands/gc.js'),
  'image build': () => import('./commands/image-build.js'),
  import: () => import('./commands/import.js'),
  'gen property': () => import('./commands/gen-property.js'),
  'taste coverage': () => import('./commands/taste-coverage.js'),
  'taste sample': () => import('./commands/taste-sample.js'),
  'taste cluster': () => import('./commands/taste-cluster.js'),
  'taste generate': () => import('./commands/taste-generate.js'),
};

export const commandNames = Object.keys(modules);

export async function loadCommand(name: string): Promise<Command | undefined> {
  return modules[name] ? (await modules[name]()).default : undefined;
}

export async function commands(): Promise<Command[]> {
  return Promise.all(Object.values(modules).map(async (m) => (await m()).default));
}
