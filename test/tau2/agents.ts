import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentFunction, Tau2Task } from '../../src/tau2/index.js';
import { repoRoot } from './data.js';

export const agentsDir = path.join(repoRoot, 'fixtures/agents');

/** Loads an example agent's factory from fixtures/agents (plain .mjs, no types). */
export async function agentFactory(file: string, factory: string): Promise<() => AgentFunction> {
  const mod: Record<string, unknown> = await import(pathToFileURL(path.join(agentsDir, file)).href);
  return mod[factory] as () => AgentFunction;
}

/** The start-message fields the harness passes to the test oracle only. */
export function oracleExtras(task: Tau2Task) {
  return {
    oracle_actions: (task.evaluation_criteria?.actions ?? []).map((a) => ({
      name: a.name,
      arguments: a.arguments,
      requestor: a.requestor ?? 'assistant',
    })),
    oracle_communicate: task.evaluation_criteria?.communicate_info ?? [],
  };
}
