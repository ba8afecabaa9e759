import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type {
  CallResult,
  Db,
  EnvAssertion,
  Environment,
  EnvironmentOptions,
  Requestor,
  Tau2Domain,
} from '../data_model/types.js';
import { domainTools } from '../domains/registry.js';
import { bindKwargs } from '../py/call.js';
import { noAttribute, PyException, pyTypeError, pyValueError } from '../py/errors.js';
import { pyJsonDumps } from '../py/json.js';
import { loadModel } from '../py/load.js';
import { modelDump } from '../py/model.js';
import { fromPlain, toPlain } from '../py/plain.js';
import { dateText, dateTimeText, str } from '../py/repr.js';
import { updateModel } from '../py/update.js';
import {
  PyDate,
  PyDateTime,
  type PyDict,
  PyEnumMember,
  PyFloat,
  PyModel,
  PyTuple,
  type PyValue,
  typeName,
} from '../py/values.js';
import {
  DbState,
  DEFAULT_SEMANTICS,
  type DomainTools,
  type EnvContext,
  mutatesState,
  type Semantics,
  type ToolSide,
  type ToolState,
} from './toolkit.js';

// Each database is read and validated once per loaded domain; environments share its records copy-on-write.
const initial = new WeakMap<Tau2Domain, Map<string, PyModel>>();
function initialModel(domain: Tau2Domain, side: ToolSide): PyModel {
  let byFile = initial.get(domain);
  if (!byFile) {
    byFile = new Map();
    initial.set(domain, byFile);
  }
  let m = byFile.get(side.file);
  if (!m) {
    const text =
      side.file === 'db.json' && domain.dbText !== undefined
        ? domain.dbText
        : readFileSync(path.join(domain.dir, side.file), 'utf8');
    m = loadModel(side.model, text, side.file);
    byFile.set(side.file, m);
  }
  return m;
}

/** The domain's initial agent database as τ² validated it (shared: read-only). */
export function initialModelOf(domain: Tau2Domain): PyModel {
  return initialModel(domain, domainTools(domain.name).agent);
}

const plainViews = new WeakMap<Tau2Domain, Db>();
/** The domain's initial database as plain JSON (τ²'s dump of it), for TASTE's reading; shared and read-only. */
export function initialDb(domain: Tau2Domain): Db {
  let v = plainViews.get(domain);
  if (!v) {
    v = toPlain(initialModelOf(domain)) as Db;
    plainViews.set(domain, v);
  }
  return v;
}

/** τ²'s `Environment.to_json_str`: a str as is, anything else `json.dumps` of its `_process`ed form. */
export function toJsonStr(resp: PyValue): string {
  if (typeof resp === 'string') return resp;
  const process = (v: PyValue): PyValue => {
    if (v instanceof PyModel) return modelDump(v);
    if (v === null || typeof v === 'string' || v instanceof PyEnumMember) return v;
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyFloat) return str(v);
    if (Array.isArray(v)) return v.map(process);
    if (v instanceof PyTuple) return new PyTuple(v.items.map(process));
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, process(x)]));
    if (v instanceof PyDateTime) return dateTimeText(v, 'T');
    if (v instanceof PyDate) return dateText(v);
    throw new Error(`Unsupported type: ${typeName(v)}`);
  };
  return pyJsonDumps(process(resp), { defaultStr: true });
}

function seededHex(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 8);
}

class Tau2Environment implements Environment {
  readonly agent: ToolState;
  readonly user: ToolState | null;
  private readonly counters = new Map<string, number>();

  constructor(
    readonly domain: Tau2Domain,
    private readonly tools: DomainTools,
    readonly semantics: Semantics,
  ) {
    const ctx: EnvContext = {
      semantics,
      randomHex: (kind) => {
        const n = (this.counters.get(kind) ?? 0) + 1;
        this.counters.set(kind, n);
        return seededHex(`heldout:${kind}:${n}`);
      },
    };
    this.agent = tools.agent.state(new DbState(initialModel(domain, tools.agent)), ctx);
    this.user = tools.user ? tools.user.state(new DbState(initialModel(domain, tools.user)), ctx) : null;
    this.sync();
  }

  private sync(): void {
    if (this.tools.sync && this.user) this.tools.sync(this.agent, this.user);
  }

  private side(requestor: Requestor): { state: ToolState; def: ToolSide } | undefined {
    if (requestor === 'user')
      return this.user && this.tools.user ? { state: this.user, def: this.tools.user } : undefined;
    return { state: this.agent, def: this.tools.agent };
  }

  /** τ²'s `Environment.make_tool_call(tool_name, requestor=…, **kwargs)` (no `sync_tools`). */
  makeToolCall(name: string, requestor: Requestor, kwargs: PyDict): PyValue {
    if (kwargs.has('requestor'))
      throw pyTypeError(
        "tau2.environment.environment.Environment.make_tool_call() got multiple values for keyword argument 'requestor'",
      );
    for (const k of kwargs.keys())
      if (k === 'self' || k === 'tool_name')
        throw pyTypeError(`Environment.make_tool_call() got multiple values for argument '${k}'`);
    const side = this.side(requestor);
    if (!side) throw pyValueError('User tools not available');
    const { toolkit } = side.def;
    const def = Object.hasOwn(toolkit.tools, name) ? toolkit.tools[name] : undefined;
    if (!def) throw pyValueError(`Tool '${name}' not found.`);
    return def.run(side.state, bindKwargs(`${toolkit.className}.${name}`, def.params, kwargs));
  }

  call(name: string, args: unknown, requestor: Requestor = 'assistant'): CallResult {
    let resp: PyValue;
    let failed: string | undefined;
    try {
      const kwargs = fromPlain(args ?? {});
      if (!(kwargs instanceof Map))
        throw pyTypeError(
          `tau2.environment.environment.Environment.make_tool_call() argument after ** must be a mapping, not ${typeName(kwargs)}`,
        );
      resp = this.makeToolCall(name, requestor, kwargs);
      this.sync();
    } catch (err) {
      if (!(err instanceof PyException)) throw err;
      failed = err.text;
      resp = `Error: ${err.text}`;
    }
    const content = toJsonStr(resp);
    if (failed !== undefined) return { ok: false, content, error: failed };
    return { ok: true, content, result: toPlain(resp) };
  }

  goldCall(name: string, args: unknown, requestor: Requestor = 'assistant'): string | undefined {
    try {
      const kwargs = fromPlain(args ?? {});
      if (!(kwargs instanceof Map)) throw pyTypeError('argument after ** must be a mapping');
      this.makeToolCall(name, requestor, kwargs);
      return undefined;
    } catch (err) {
      if (!(err instanceof PyException)) throw err;
      return err.text;
    }
  }

  runFunction(envType: Requestor, funcName: string, args: unknown): PyValue {
    const side = this.side(envType);
    if (!side) throw noAttribute('NoneType', funcName);
    const { toolkit } = side.def;
    const def =
      (Object.hasOwn(toolkit.tools, funcName) ? toolkit.tools[funcName] : undefined) ??
      (toolkit.functions && Object.hasOwn(toolkit.functions, funcName) ? toolkit.functions[funcName] : undefined);
    if (!def) throw noAttribute(toolkit.className, funcName);
    const kwargs = fromPlain(args ?? {}) as PyDict;
    const res = def.run(side.state, bindKwargs(`${toolkit.className}.${funcName}`, def.params, kwargs));
    this.sync();
    return res;
  }

  updateDb(side: Requestor, data: unknown): void {
    const state = side === 'user' ? this.user : this.agent;
    if (!state) throw noAttribute('NoneType', 'update_db');
    state.dbs.db = updateModel(state.dbs.db, fromPlain(data) as PyDict);
    // τ² 1.0.1's set_state then points the other toolkit at this database too (telecom's two become one).
    const other = side === 'user' ? this.agent : this.user;
    if (other) other.dbs.db = state.dbs.db;
  }

  hash(): string {
    return this.agent.dbs.hash();
  }

  userHash(): string | null {
    return this.user ? this.user.dbs.hash() : null;
  }

  changedRecords(): Record<string, string | null> {
    return { ...this.agent.dbs.changedRecords('db'), ...(this.user?.dbs.changedRecords('user_db') ?? {}) };
  }

  get db(): Db {
    return this.agent.dbs.plainView() as Db;
  }

  recordText(key: string): string | null {
    if (key === 'user_db') return this.user?.dbs.recordText(key, 'user_db') ?? null;
    return this.agent.dbs.recordText(key, 'db');
  }

  isWriteTool(name: string): boolean {
    for (const side of [this.tools.agent, this.tools.user]) {
      if (side && Object.hasOwn(side.toolkit.tools, name)) return mutatesState(side.toolkit.tools[name]);
    }
    return false;
  }

  hasTool(name: string): boolean {
    return [this.tools.agent, this.tools.user].some((s) => s && Object.hasOwn(s.toolkit.tools, name));
  }

  finishSetup(): void {
    this.sync();
  }
}

/**
 * A fresh τ² environment of `domain` (its own copy of the databases) with τ²'s `set_state` of `initialState`:
 * `initialization_data` merged into the agent's and user's databases, then `initialization_actions` run in order.
 * Throws when the domain has no tools, or when the initial state cannot be set (as τ² would).
 */
export function createEnvironment(domain: Tau2Domain, options: EnvironmentOptions = {}): Environment {
  const env = new Tau2Environment(domain, domainTools(domain.name), options.semantics ?? DEFAULT_SEMANTICS);
  const init = options.initialState;
  const data = init?.initialization_data;
  if (data?.agent_data) env.updateDb('assistant', data.agent_data);
  if (data?.user_data) env.updateDb('user', data.user_data);
  for (const action of init?.initialization_actions ?? []) {
    try {
      env.runFunction(action.env_type ?? 'assistant', action.func_name, action.arguments);
    } catch (err) {
      const why = err instanceof PyException ? `${err.type}: ${err.text}` : (err as Error).message;
      throw new Error(`initialization action ${action.func_name} failed: ${why}`);
    }
  }
  if ((init?.message_history ?? []).length > 0)
    throw new Error('initial_state.message_history is not supported: no τ² task here has one');
  env.finishSetup();
  return env;
}

/**
 * τ²'s `run_env_assertion(assertion, raise_assertion_error=False)`: runs the function (then `sync_tools`) and
 * compares its bool with `assert_value`. Throws the function's PyException, or τ²'s ValueError when it gives no bool.
 */
export function runEnvAssertion(env: Environment, a: EnvAssertion): boolean {
  const res = env.runFunction(a.env_type, a.func_name, a.arguments) as PyValue;
  if (typeof res !== 'boolean')
    throw pyValueError(`Function ${a.func_name} returned <class '${typeName(res)}'> instead of bool`);
  return res === (a.assert_value ?? true);
}
