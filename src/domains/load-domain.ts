import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Tau2Domain, Tau2Task, ToolSpec } from './types.js';

/**
 * Reads a τ² domain directory (`tools.json`, `db.json`, `tasks.json`, `policy.md` or `main_policy.md`). The domain
 * name is the directory's base name; its tools must have an implementation (see `createEnvironment`).
 */
export async function loadTau2Domain(dir: string, name = path.basename(path.resolve(dir))): Promise<Tau2Domain> {
  const read = (f: string) => readFile(path.join(dir, f), 'utf8');
  const readOptional = (f: string) => read(f).catch(() => undefined);
  const [toolsText, dbText, tasksText, policy, mainPolicy] = await Promise.all([
    read('tools.json'),
    read('db.json'),
    readOptional('tasks.json'),
    readOptional('policy.md'),
    readOptional('main_policy.md'),
  ]);
  const tools = JSON.parse(toolsText) as ToolSpec[];
  const tasks = tasksText ? (JSON.parse(tasksText) as Tau2Task[]) : [];
  return { name, dir, tools, policy: policy ?? mainPolicy ?? '', dbText, tasks };
}

/** True when the domain's `tools.json` says the tool changes the database (`mutates_state` or type WRITE). */
export function isWriteTool(domain: Pick<Tau2Domain, 'tools'>, name: string): boolean {
  const spec = domain.tools.find((t) => t.name === name);
  return spec !== undefined && (spec.mutates_state === true || spec.type === 'WRITE');
}

/** The tools as OpenAI function-calling schemas, as sent to an agent (assistant-side tools only). */
export function openAiToolSchemas(domain: Pick<Tau2Domain, 'tools'>) {
  return domain.tools
    .filter((t) => t.requestor !== 'user')
    .map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
}
