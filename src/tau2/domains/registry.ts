import type { DomainTools } from '../environment/toolkit.js';
import { airline } from './airline/index.js';
import type { DomainKit } from './kit.js';
import { retail } from './retail/index.js';
import { telecom } from './telecom/index.js';

/** Every τ² domain heldout knows, by τ²'s name for it (the base name of its data directory). */
export const domainKits = { airline, retail, telecom } satisfies Record<string, DomainKit>;

/** The name of a known domain. */
export type DomainName = keyof typeof domainKits;

const known = Object.keys(domainKits) as DomainName[];

/** Names of the domains whose tools heldout executes (the tool-agent family, TASTE stage 3, the gold audit). */
export const executableDomains: readonly string[] = known.filter((n) => domainKits[n].tools !== undefined);

/** The kit of a known domain, or undefined. */
export function findKit(name: string): DomainKit | undefined {
  return Object.hasOwn(domainKits, name) ? domainKits[name as DomainName] : undefined;
}

/** The kit of `name`; an unknown name throws, listing the known ones. */
export function domainKit(name: string): DomainKit {
  const kit = findKit(name);
  if (!kit) throw new Error(`unknown τ² domain "${name}" (known: ${known.join(', ')})`);
  return kit;
}

/** The tools of `name`; a domain without them throws, listing the executable ones. */
export function domainTools(name: string): DomainTools {
  const tools = findKit(name)?.tools;
  if (!tools) throw new Error(`no tool implementation for domain "${name}" (have: ${executableDomains.join(', ')})`);
  return tools;
}
