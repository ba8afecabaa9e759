/**
 * The sandbox backends by name (Inspect-style: small protocols registered by name). A backend is its folder plus
 * one entry here; `BackendName` and `SandboxKind` (types.ts) are this object's keys, so the entry is all it takes.
 */
import { dockerBackend } from './docker/backend.js';
import { podmanBackend } from './podman/backend.js';
import { processBackend } from './process/backend.js';
import type { BackendOf } from './protocol.js';
import { swarmBackend } from './swarm/backend.js';

/** Checks at compile time that every key is its backend's `kind`. */
function registry<T extends { [K in keyof T]: BackendOf<string, K & string> }>(backends: T): T {
  return backends;
}

/** Every backend by name; the shared instances run on the default engine (DOCKER_HOST or the local socket). */
export const BACKENDS = registry({
  docker: dockerBackend,
  podman: podmanBackend,
  process: processBackend,
  swarm: swarmBackend,
});

type Name = keyof typeof BACKENDS;
type Registered = (typeof BACKENDS)[Name];

/** Every name a run may ask for: `auto`, then the registered backends in registry order. */
export const SANDBOX_KINDS: readonly ('auto' | Name)[] = ['auto', ...(Object.keys(BACKENDS) as Name[])];

/** True when `value` names a registered backend or is `auto`. */
export function isSandboxKind(value: unknown): value is 'auto' | Name {
  return typeof value === 'string' && (SANDBOX_KINDS as readonly string[]).includes(value);
}

/** `expected auto, docker, process or swarm, got <value>`: what a refused name is told. */
export function expectedSandbox(value: unknown): string {
  const known = SANDBOX_KINDS.map(String);
  return `expected ${known.slice(0, -1).join(', ')} or ${known.at(-1)}, got ${String(value)}`;
}

/** The registered backend called `name`; an unknown name throws with the list of known ones. */
export function backendFor(name: string): Registered {
  if (!Object.hasOwn(BACKENDS, name)) throw new Error(`sandbox: ${expectedSandbox(name)}`);
  return BACKENDS[name as Name];
}

/** Every registered backend, in registry order (what `heldout gc` sweeps). */
export function registeredBackends(): Registered[] {
  return Object.values(BACKENDS);
}
