import { airlineTools } from './airline/tools.js';
import { checkArguments } from './arg-check.js';
import { hashJson, referenceHasher } from './canonical-json.js';
import { isWriteTool } from './load-domain.js';
import { retailTools } from './retail/tools.js';
import { ToolError } from './tool-error.js';
import type { CallResult, Db, InitialState, Tau2Domain, ToolImpl } from './types.js';

const TOOLSETS: Record<string, Record<string, ToolImpl>> = { airline: airlineTools, retail: retailTools };

// Hashing a multi-megabyte database costs tens of milliseconds; an environment nothing has written to has the
// domain's initial hash, computed once.
// An environment nothing has written to has the domain's initial hash; any other is hashed against the initial
// database, re-serialising only the records that differ from it.
const hashers = new WeakMap<Tau2Domain, { initial: string; hash: (db: Db) => string }>();
function hasher(domain: Tau2Domain) {
  let h = hashers.get(domain);
  if (h === undefined) {
    const reference = pristine(domain);
    h = { initial: hashJson(reference), hash: referenceHasher(reference) };
    hashers.set(domain, h);
  }
  return h;
}

// The domain's database parsed once, never handed out: every environment gets its own `jsonCopy` of it, which is
// about 2.5 times faster than parsing the text again (structuredClone is slower than parsing).
const pristines = new WeakMap<Tau2Domain, Db>();
function pristine(domain: Tau2Domain): Db {
  let db = pristines.get(domain);
  if (db === undefined) {
    db = JSON.parse(domain.dbText) as Db;
    pristines.set(domain, db);
  }
  return db;
}

/** A deep copy of parsed JSON, equal to parsing its text again (same key order; "__proto__" stays an own key). */
function jsonCopy(v: unknown): any {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = jsonCopy(v[i]);
    return a;
  }
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = jsonCopy((v as Record<string, unknown>)[k]);
    if (k === '__proto__')
      Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
    else o[k] = x;
  }
  return o;
}

/** A live domain database with its tools. */
export interface Environment {
  readonly domain: Tau2Domain;
  readonly db: Db;
  /** Runs one tool; a refusal or a malformed call is `{ ok: false, error }`, never a throw. */
  call(name: string, args: unknown): CallResult;
  /** sha256 of the canonical (key-sorted) JSON of the database. */
  hash(): string;
  isWriteTool(name: string): boolean;
}

export interface EnvironmentOptions {
  initialState?: InitialState | null;
}

/** Names of the domains whose tools are implemented here. */
export const implementedDomains = Object.keys(TOOLSETS);

function deepMerge(target: Record<string, any>, patch: Record<string, any>) {
  for (const [k, v] of Object.entries(patch)) {
    const t = target[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && t && typeof t === 'object' && !Array.isArray(t))
      deepMerge(t, v);
    else target[k] = structuredClone(v);
  }
}

/**
 * A fresh environment over `db` (a private copy; default: the domain's own database). `initialState` follows τ²:
 * `initialization_data.agent_data` is deep-merged into the database, then `initialization_actions` run in order.
 * Throws when the domain has no implementation or an initialization action fails.
 */
export function createEnvironment(domain: Tau2Domain, db?: Db, options: EnvironmentOptions = {}): Environment {
  const tools = TOOLSETS[domain.name];
  if (!tools)
    throw new Error(`no tool implementation for domain "${domain.name}" (have: ${implementedDomains.join(', ')})`);
  // Parsed on first use: an episode whose agent never calls a tool never pays for it.
  let parsed: Db | undefined = db === undefined ? undefined : structuredClone(db);
  const state = (): Db => {
    if (parsed === undefined) parsed = jsonCopy(pristine(domain)) as Db;
    return parsed;
  };
  let clean = db === undefined;
  const specs = new Map(domain.tools.map((t) => [t.name, t]));

  const call = (name: string, args: unknown): CallResult => {
    const spec = specs.get(name);
    const impl = tools[name];
    if (!spec || !impl) return { ok: false, error: `Tool '${name}' not found.` };
    const problem = checkArguments(spec, args ?? {});
    if (problem) return { ok: false, error: `${name}: ${problem}` };
    try {
      if (isWriteTool(domain, name)) clean = false;
      const result = impl(state(), (args ?? {}) as Record<string, any>);
      // A copy, so that nobody holding the result can reach into the database.
      return { ok: true, result: result === undefined ? null : structuredClone(result) };
    } catch (err) {
      if (err instanceof ToolError) return { ok: false, error: err.message };
      return { ok: false, error: `${name} failed: ${(err as Error)?.message ?? String(err)}` };
    }
  };

  const init = options.initialState;
  const agentData = init?.initialization_data?.agent_data;
  if (agentData) {
    clean = false;
    deepMerge(state(), agentData);
  }
  for (const action of init?.initialization_actions ?? []) {
    if (action.env_type === 'user')
      throw new Error(`user-side initialization action ${action.func_name} is not supported`);
    const r = call(action.func_name, action.arguments);
    if (!r.ok) throw new Error(`initialization action ${action.func_name} failed: ${r.error}`);
  }

  return {
    domain,
    get db() {
      // Whoever holds the database may change it: hash it for real from now on.
      clean = false;
      return state();
    },
    call,
    hash: () => (clean ? hasher(domain).initial : hasher(domain).hash(state())),
    isWriteTool: (name) => isWriteTool(domain, name),
  };
}
