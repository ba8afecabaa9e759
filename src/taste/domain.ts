import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Domain, GoldSequence, Tool, ToolType } from './types.js';

/** Group of a tool: the name prefix before the first underscore (DESIGN §11). */
export function toolGroup(name: string): string {
  const i = name.indexOf('_');
  return i < 0 ? name : name.slice(0, i);
}

/** Normalises a τ² tools.json row (group re-derived from the name when absent). */
export function normalizeTool(raw: any): Tool {
  if (!raw || typeof raw.name !== 'string') throw new Error(`tool without a name: ${JSON.stringify(raw)}`);
  const type = String(raw.type ?? 'READ').toUpperCase() as ToolType;
  return {
    name: raw.name,
    type,
    group: typeof raw.group === 'string' ? raw.group : toolGroup(raw.name),
    requestor: raw.requestor === 'user' ? 'user' : 'assistant',
    mutates_state: Boolean(raw.mutates_state ?? type === 'WRITE'),
    parameters: raw.parameters ?? { type: 'object', properties: {} },
    description: String(raw.description ?? ''),
  };
}

/** Gold sequences from a τ² tasks.json: `evaluation_criteria.actions[].name` in order. */
export function goldFromTasks(tasks: any[]): GoldSequence[] {
  return tasks.map((t, i) => ({
    task_id: String(t?.id ?? i),
    tools: (t?.evaluation_criteria?.actions ?? []).map((a: any) => String(a.name)),
    reward_basis: t?.evaluation_criteria?.reward_basis ?? null,
  }));
}

/** Accepts either a gold_sequences.json array or a τ² tasks.json array. */
export function parseGold(json: unknown): GoldSequence[] {
  if (!Array.isArray(json)) throw new Error('gold file: expected a JSON array');
  const looksLikeTasks = json.some((x: any) => x && typeof x === 'object' && 'evaluation_criteria' in x);
  if (looksLikeTasks) return goldFromTasks(json);
  return json.map((g: any, i) => {
    if (!g || !Array.isArray(g.tools)) throw new Error(`gold file: entry ${i} has no tools array`);
    return { task_id: String(g.task_id ?? i), tools: g.tools.map(String), reward_basis: g.reward_basis ?? null };
  });
}

export function readGoldFile(path: string): GoldSequence[] {
  return parseGold(JSON.parse(readFileSync(path, 'utf8')));
}

export function readToolsFile(path: string): Tool[] {
  const raw = JSON.parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(raw)) throw new Error(`${path}: expected a JSON array of tools`);
  return raw.map(normalizeTool);
}

/**
 * Loads a τ²-style domain directory: tools.json (required), gold_sequences.json or else tasks.json, the policy
 * (policy.md, or main_policy.md for telecom), and db.json. A TOML database is kept as raw text: stages 1–2 never use it.
 */
export function loadDomain(dir: string): Domain {
  const root = resolve(dir);
  const toolsPath = join(root, 'tools.json');
  if (!existsSync(toolsPath)) throw new Error(`${root}: no tools.json`);
  const tools = readToolsFile(toolsPath);
  const tasksPath = join(root, 'tasks.json');
  const tasks = existsSync(tasksPath) ? (JSON.parse(readFileSync(tasksPath, 'utf8')) as unknown[]) : [];
  const goldPath = join(root, 'gold_sequences.json');
  let gold: GoldSequence[];
  if (existsSync(goldPath)) gold = readGoldFile(goldPath);
  else if (tasks.length > 0) gold = goldFromTasks(tasks as any[]);
  else throw new Error(`${root}: neither gold_sequences.json nor tasks.json`);
  const policyFile = ['policy.md', 'main_policy.md'].map((f) => join(root, f)).find((p) => existsSync(p));
  const policy = policyFile ? readFileSync(policyFile, 'utf8') : '';
  let db: unknown = null;
  if (existsSync(join(root, 'db.json'))) db = JSON.parse(readFileSync(join(root, 'db.json'), 'utf8'));
  else if (existsSync(join(root, 'db.toml'))) db = { toml: readFileSync(join(root, 'db.toml'), 'utf8') };
  return { name: basename(root), dir: root, tools, gold, tasks, policy, db };
}
