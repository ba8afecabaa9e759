import { readFileSync } from 'node:fs';
import type { Tau2Domain, ToolKind, ToolSpec } from './types.js';

/** Group of a tool: the name prefix before the first underscore (DESIGN §11). */
export function toolGroup(name: string): string {
  const i = name.indexOf('_');
  return i < 0 ? name : name.slice(0, i);
}

/** Normalises a τ² tools.json row (group re-derived from the name when absent); throws on a row without a name. */
export function normalizeTool(raw: any): ToolSpec {
  if (!raw || typeof raw.name !== 'string') throw new Error(`tool without a name: ${JSON.stringify(raw)}`);
  const type = String(raw.type ?? 'READ').toUpperCase() as ToolKind;
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

/** A tools.json file, normalised. */
export function readToolsFile(path: string): ToolSpec[] {
  const raw = JSON.parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(raw)) throw new Error(`${path}: expected a JSON array of tools`);
  return raw.map(normalizeTool);
}

/** True when the domain's `tools.json` says the tool changes the database (`mutates_state` or type WRITE). */
export function isWriteTool(domain: Pick<Tau2Domain, 'tools'>, name: string): boolean {
  const spec = domain.tools.find((t) => t.name === name);
  return spec !== undefined && (spec.mutates_state === true || spec.type === 'WRITE');
}

const schemas = (tools: ToolSpec[]) =>
  tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));

/** The tools as OpenAI function-calling schemas, as sent to an agent (assistant-side tools only). */
export function openAiToolSchemas(domain: Pick<Tau2Domain, 'tools'>) {
  return schemas(domain.tools.filter((t) => t.requestor !== 'user'));
}

/** The user's tools (telecom's phone) as OpenAI function-calling schemas, for the user simulator. */
export function openAiUserToolSchemas(domain: Pick<Tau2Domain, 'tools'>) {
  return schemas(domain.tools.filter((t) => t.requestor === 'user'));
}
