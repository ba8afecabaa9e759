import { createHash, type Hash } from 'node:crypto';
import type { Param } from '../py/call.js';
import { jsonString, pyJsonDumps, strCompare } from '../py/json.js';
import { type ModelSpec, modelDump } from '../py/model.js';
import { toPlain } from '../py/plain.js';
import { deepCopy, PyModel, type PyValue } from '../py/values.js';

/**
 * A τ² toolkit as heldout ports it: each tool (and each other method a task may call by name, like an
 * initialization action or an assertion) is its signature and a function of the toolkit's state, written line by
 * line after τ²'s Python with the operators of `py/`.
 */

/** τ²'s `ToolType`; a WRITE tool mutates state (is replayed by the reward) unless `mutates` says otherwise. */
export type ToolType = 'read' | 'write' | 'generic' | 'think';

export interface ToolDef<S> {
  params: readonly Param[];
  type: ToolType;
  mutates?: boolean;
  /** The method's body: keyword arguments already bound (absent optional ones missing), returns its Python value. */
  run(self: S, args: ReadonlyMap<string, PyValue>): PyValue;
}

export interface ToolkitDef<S> {
  /** τ²'s class name, which Python's call errors name (`RetailTools.get_item_details() …`). */
  className: string;
  tools: Readonly<Record<string, ToolDef<S>>>;
  /** Methods that are not tools, reachable by name from a task (`initialization_actions`, `env_assertions`). */
  functions?: Readonly<Record<string, ToolDef<S>>>;
}

/** A method signature: `'limit?'` is a parameter with a default. */
export function params(...names: string[]): Param[] {
  return names.map((n) => (n.endsWith('?') ? { name: n.slice(0, -1), optional: true } : { name: n }));
}

/** A tool: its type, its parameters and its body. */
export function tool<S>(type: ToolType, names: string[], run: ToolDef<S>['run'], mutates?: boolean): ToolDef<S> {
  return { type, params: params(...names), run, mutates };
}

/** Whether τ²'s evaluator replays the tool (`mutates_state`, inferred from the type as τ²'s `is_tool` does). */
export const mutatesState = (def: ToolDef<unknown>) => def.mutates ?? def.type === 'write';

const isTable = (v: PyValue): v is Map<string, PyValue> =>
  v instanceof Map && [...v.values()].every((x) => x instanceof PyModel);

/**
 * One toolkit's database (`self.db`), copy-on-write per record: a table (a dict of models) starts as a copy of the
 * shared initial table whose records are shared, and `own` gives a tool the environment's private copy of the record
 * it is about to read or change. Records nobody owns are never changed, so their texts are cached across
 * environments for the hash. Anything else (telecom's small lists) is copied whole at the start.
 */
export class DbState {
  db: PyModel;
  private readonly owned = new Set<PyValue>();

  constructor(private readonly initial: PyModel) {
    const f: Record<string, PyValue> = {};
    for (const n of initial.cls.fieldNames) {
      const v = initial.f[n] as PyValue;
      f[n] = isTable(v) ? new Map(v) : deepCopy(v);
    }
    this.db = new PyModel(initial.cls, f);
  }

  /** The table field `name` of the database (a dict of records). */
  table(name: string): Map<string, PyValue> {
    return this.db.f[name] as Map<string, PyValue>;
  }

  /** `self.db.<table>[key]` of a record that exists, as this environment's own copy. */
  own(table: string, key: string): PyModel {
    const t = this.table(table);
    const r = t.get(key) as PyModel;
    if (this.owned.has(r)) return r;
    const copy = deepCopy(r);
    t.set(key, copy);
    this.owned.add(copy);
    return copy;
  }

  /** Marks a record a tool created (it is this environment's). */
  adopt(record: PyValue): void {
    this.owned.add(record);
  }

  /**
   * τ²'s `get_db_hash()`: sha256 of `json.dumps(db.model_dump(), sort_keys=True, default=str)`. Memoised by the
   * state's difference from the shared initial database (`stateKey`): that difference fixes the whole text, and an
   * evaluation hashes the same state several times (the gold replay, the trajectory's replay, k trials).
   */
  hash(): string {
    const key = this.stateKey();
    let memo = hashMemo.get(this.initial);
    const hit = key === undefined ? undefined : memo?.get(key);
    if (hit !== undefined) return hit;
    const h = createHash('sha256');
    writeSorted(h, this.db, this.owned, this.initial);
    const hex = h.digest('hex');
    if (key === undefined) return hex;
    if (!memo) {
      memo = new Map();
      hashMemo.set(this.initial, memo);
    }
    // Oldest first out: a run hashes a task's states close together.
    if (memo.size >= HASH_MEMO_SIZE) memo.delete(memo.keys().next().value as string);
    memo.set(key, hex);
    return hex;
  }

  /**
   * What sets this database's τ² text apart from the initial one's, as one string: per field in order, a table's
   * records whose text differs from the initial record's (and the keys it lost), any other field's whole text.
   * Undefined when the database is no longer of the initial class. Equal keys mean equal texts, hence equal hashes.
   */
  private stateKey(): string | undefined {
    if (this.db.cls !== this.initial.cls) return undefined;
    const parts: string[] = [];
    for (const n of this.db.cls.fieldNames) {
      const v = this.db.f[n] as PyValue;
      const base = this.initial.f[n] as PyValue;
      if (!isTable(v) || !(base instanceof Map) || !isTable(base)) {
        parts.push(n, '=', pyJsonDumps(modelDump(v), { sortKeys: true, defaultStr: true }));
        continue;
      }
      parts.push(n, ':');
      for (const [k, r] of v) {
        const b = base.get(k);
        if (b === r) continue;
        const text = recordText(r, this.owned);
        if (b === undefined || text !== recordText(b, this.owned)) parts.push(k, text);
      }
      parts.push('-');
      for (const k of base.keys()) if (!v.has(k)) parts.push(k);
    }
    return JSON.stringify(parts);
  }

  /** The plain JSON view of the database (records nobody owns are converted once and shared: read only). */
  plainView(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const n of this.db.cls.fieldNames) {
      const v = this.db.f[n] as PyValue;
      if (!isTable(v)) {
        out[n] = toPlain(v);
        continue;
      }
      const table: Record<string, unknown> = {};
      for (const [k, r] of v) table[k] = this.owned.has(r) ? toPlain(r) : sharedPlain(r);
      out[n] = table;
    }
    return out;
  }

  /** The τ² text of the record `<table>/<key>` (see `changedRecords`), or null when there is none. */
  recordText(key: string, name: string): string | null {
    if (key === name) return pyJsonDumps(modelDump(this.db), { sortKeys: true, defaultStr: true });
    const cut = key.indexOf('/');
    const table = this.db.f[key.slice(0, cut)];
    if (!(table instanceof Map) || !table.has(key.slice(cut + 1))) return null;
    return recordText(table.get(key.slice(cut + 1)) as PyValue, this.owned);
  }

  /**
   * Every record whose τ² text (`json.dumps(model_dump(), sort_keys=True, default=str)`) differs from the initial
   * database's, as `<table>/<key>` (null: removed); a database that is not made of tables counts as one record,
   * `name`. For diffs and the differential test.
   */
  changedRecords(name: string): Record<string, string | null> {
    const out: Record<string, string | null> = {};
    const tables = this.db.cls.fieldNames.filter((n) => isTable(this.initial.f[n] as PyValue));
    if (!tables.length || this.db.cls !== this.initial.cls) {
      // A whole database is mutated in place: never from the cache of shared records.
      const now = pyJsonDumps(modelDump(this.db), { sortKeys: true, defaultStr: true });
      if (now !== recordText(this.initial, new Set())) out[name] = now;
      return out;
    }
    for (const t of tables) {
      const mine = this.db.f[t] as Map<string, PyValue>;
      const base = this.initial.f[t] as Map<string, PyValue>;
      for (const [k, v] of mine) {
        const b = base.get(k);
        if (b === v) continue;
        const text = recordText(v, this.owned);
        if (b === undefined || text !== recordText(b, this.owned)) out[`${t}/${k}`] = text;
      }
      for (const k of base.keys()) if (!mine.has(k)) out[`${t}/${k}`] = null;
    }
    return out;
  }
}

const sharedText = new WeakMap<object, string>();
// Per shared initial database: state key → τ² hash (see `DbState.hash`).
const hashMemo = new WeakMap<PyModel, Map<string, string>>();
const HASH_MEMO_SIZE = 512;
const sharedPlains = new WeakMap<object, unknown>();

function sharedPlain(r: PyValue): unknown {
  const hit = sharedPlains.get(r as object);
  if (hit !== undefined) return hit;
  const p = toPlain(r);
  sharedPlains.set(r as object, p);
  return p;
}

function recordText(r: PyValue, owned: ReadonlySet<PyValue>): string {
  const cacheable = !owned.has(r) && r !== null && typeof r === 'object';
  if (cacheable) {
    const hit = sharedText.get(r as object);
    if (hit !== undefined) return hit;
  }
  const text = pyJsonDumps(modelDump(r), { sortKeys: true, defaultStr: true });
  if (cacheable) sharedText.set(r as object, text);
  return text;
}

// A table's keys in `sort_keys` order, cached per shared initial table: most states keep its key set.
const sortedKeys = new WeakMap<Map<string, PyValue>, string[]>();
function keysInOrder(v: Map<string, PyValue>, base: PyValue | undefined): string[] {
  if (base instanceof Map && base.size === v.size) {
    let cached = sortedKeys.get(base);
    if (!cached) {
      cached = [...base.keys()].sort(strCompare);
      sortedKeys.set(base, cached);
    }
    if (cached.every((k) => v.has(k))) return cached;
  }
  return [...v.keys()].sort(strCompare);
}

function writeSorted(h: Hash, db: PyModel, owned: ReadonlySet<PyValue>, initial: PyModel): void {
  const names = [...db.cls.fieldNames].sort(strCompare);
  h.update('{');
  names.forEach((n, k) => {
    if (k) h.update(', ');
    h.update(`${jsonString(n)}: `);
    const v = db.f[n] as PyValue;
    if (!isTable(v)) {
      h.update(pyJsonDumps(modelDump(v), { sortKeys: true, defaultStr: true }));
      return;
    }
    const keys = keysInOrder(v, db.cls === initial.cls ? (initial.f[n] as PyValue) : undefined);
    // The table's entries as UTF-8 bytes in one update: a shared record's bytes are encoded once per process.
    const bytes: Buffer[] = [];
    keys.forEach((key, j) => {
      if (j) bytes.push(COMMA);
      bytes.push(entryBytes(key, v.get(key) as PyValue, owned));
    });
    h.update('{');
    h.update(Buffer.concat(bytes));
    h.update('}');
  });
  h.update('}');
}

const COMMA = Buffer.from(', ');
const sharedBytes = new WeakMap<object, { key: string; bytes: Buffer }>();
/** `"key": <record text>` as UTF-8, cached for a record nobody owns (never changed, so its text is fixed). */
function entryBytes(key: string, r: PyValue, owned: ReadonlySet<PyValue>): Buffer {
  const cacheable = !owned.has(r) && r !== null && typeof r === 'object';
  const hit = cacheable ? sharedBytes.get(r as object) : undefined;
  if (hit && hit.key === key) return hit.bytes;
  const bytes = Buffer.from(`${jsonString(key)}: ${recordText(r, owned)}`);
  if (cacheable) sharedBytes.set(r as object, { key, bytes });
  return bytes;
}

/** The model class of a database, for the loader: the same spec validates db.json / db.toml. */
export type DbSpec = ModelSpec;

/** The named semantics an environment runs: τ²'s by default; a deviation is an opt-in named here. */
export const SEMANTICS = ['tau2@1.0.1', 'tau2@1.0.1+tau-bench-item-modify'] as const;
export type Semantics = (typeof SEMANTICS)[number];
export const DEFAULT_SEMANTICS: Semantics = 'tau2@1.0.1';

/** What a toolkit may ask of its environment besides its database. */
export interface EnvContext {
  readonly semantics: Semantics;
  /**
   * The next id of a kind τ² draws at random (telecom's `uuid4().hex[:8]` bill ids): 8 hex digits from a sequence
   * of the environment's own, so the same trajectory always ends in the same state.
   */
  randomHex(kind: string): string;
}

/** A toolkit's state: `self` of τ²'s toolkit class, over the environment's copy of its database. */
export class ToolState {
  constructor(
    readonly dbs: DbState,
    readonly ctx: EnvContext,
  ) {}
  /** `self.db`. */
  get db(): PyModel {
    return this.dbs.db;
  }
}

/** One side of a domain's environment: the assistant's tools, or the user's (telecom's phone). */
export interface ToolSide<S extends ToolState = ToolState> {
  toolkit: ToolkitDef<S>;
  /** τ²'s data model of the side's database. */
  model: ModelSpec;
  /** The file of the domain directory that holds it (`db.json`, `db.toml`, `user_db.toml`). */
  file: string;
  state(dbs: DbState, ctx: EnvContext): S;
}

/** A domain's executable part: τ²'s toolkits, and `sync_tools` when its environment has one. */
export interface DomainTools<S extends ToolState = ToolState, U extends ToolState = ToolState> {
  agent: ToolSide<S>;
  user?: ToolSide<U>;
  /** τ²'s `Environment.sync_tools()`, run after every response and every environment function. */
  sync?(agent: S, user: U): void;
}

/** Keeps a kit's own toolkit types while the registry holds every domain's alike. */
export function defineTools<S extends ToolState, U extends ToolState>(tools: DomainTools<S, U>): DomainTools {
  return tools as unknown as DomainTools;
}
