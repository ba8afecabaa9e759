import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { goldFromTasks, readGoldFile } from './gold-sequences.js';
import { parseTau2Json } from './tasks-json.js';
import { readToolsFile } from './tool-spec.js';
import type { GoldSequence, Tau2Domain, Tau2Task } from './types.js';

/** τ²'s telecom policy as its environment gives it to the agent: the main policy and the tech-support manual. */
function combinedPolicy(main: string | undefined, manual: string | undefined): string | undefined {
  if (main === undefined) return undefined;
  if (manual === undefined) return main;
  return `<main_policy>\n${main}\n</main_policy>\n<tech_support_policy>\n${manual}\n</tech_support_policy>`;
}

/**
 * Reads a τ² domain directory: tools.json (required), tasks.json (as Python reads it: `2.0` stays a float),
 * gold_sequences.json (else the tasks' gold calls; one of the two is required), the policy (policy.md, or telecom's
 * main_policy.md and tech_support_manual.md, joined as τ²'s environment joins them) and db.json when there is one (the kit's environment reads its other database files itself). The
 * domain's name is the directory's base name, the key of its kit in the registry. Throws naming the directory when a
 * required file is missing.
 */
export function loadDomain(dir: string, name?: string): Tau2Domain {
  const root = path.resolve(dir);
  const file = (f: string) => path.join(root, f);
  const read = (f: string) => (existsSync(file(f)) ? readFileSync(file(f), 'utf8') : undefined);
  if (!existsSync(file('tools.json'))) throw new Error(`${root}: no tools.json`);
  const tools = readToolsFile(file('tools.json'));
  const tasksText = read('tasks.json');
  const tasks = tasksText === undefined ? [] : (parseTau2Json(tasksText) as Tau2Task[]);
  let gold: GoldSequence[];
  if (existsSync(file('gold_sequences.json'))) gold = readGoldFile(file('gold_sequences.json'));
  else if (tasks.length > 0) gold = goldFromTasks(tasks);
  else throw new Error(`${root}: neither gold_sequences.json nor tasks.json`);
  const policy = read('policy.md') ?? combinedPolicy(read('main_policy.md'), read('tech_support_manual.md')) ?? '';
  return { name: name ?? path.basename(root), dir: root, tools, policy, dbText: read('db.json'), tasks, gold };
}
