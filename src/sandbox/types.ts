/**
 * The sandbox's public types: the protocol (`protocol.ts`) named by the registered backends. Their names are the
 * registry's keys, the way Vitest derives `BuiltinReporters` from `ReportersMap`: registering a backend extends them.
 */
import type { BackendOf, ExecutionOf } from './protocol.js';
import type { BACKENDS } from './registry.js';

export type {
  BuildRequest,
  BuiltImageRef,
  CleanupOptions,
  GatewayAttachment,
  Removed,
  RunOptions,
  SandboxLimits,
  SandboxSpec,
  ServiceReady,
  ServiceRecord,
  ServiceRelay,
  ServiceSpec,
  Turn,
} from './protocol.js';

/** The registered backends (`docker`, `process`, `swarm`: docker isolation scheduled as Swarm services). */
export type BackendName = keyof typeof BACKENDS;

/** What isolation an execution had (what reports show): `docker` or `process`. */
export type IsolationName = (typeof BACKENDS)[BackendName]['name'];

/** What a run asks for: a backend by name, or `auto` (the first that can run here, by `autoRank`). */
export type SandboxKind = 'auto' | BackendName;

/** What one execution did; gates are computed from it (DESIGN §4). */
export type Execution = ExecutionOf<IsolationName>;

/** A registered sandbox implementation. */
export type SandboxBackend = BackendOf<IsolationName, BackendName>;
