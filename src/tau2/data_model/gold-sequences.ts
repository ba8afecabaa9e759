import { readFileSync } from 'node:fs';
import type { GoldSequence } from './types.js';

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

/** A gold_sequences.json or tasks.json file as gold sequences. */
export function readGoldFile(path: string): GoldSequence[] {
  return parseGold(JSON.parse(readFileSync(path, 'utf8')));
}
