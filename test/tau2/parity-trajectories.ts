import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Rng } from '../../src/taste/prng.js';
import { pyJsonDumps, pyJsonParse } from '../../src/tau2/py/json.js';
import { PyFloat, type PyValue } from '../../src/tau2/py/values.js';
import { tau2Dir } from './data.js';

/** One call of a trajectory: its arguments as the JSON text an agent would send. */
export interface TrajectoryCall {
  name: string;
  args: string;
  requestor: 'assistant' | 'user';
}

export interface Trajectory {
  label: string;
  initialState: unknown;
  calls: TrajectoryCall[];
  /** τ²'s env_assertions to run at the end (telecom). */
  assertions?: unknown[];
}

interface Action {
  name: string;
  arguments: Map<string, PyValue>;
  requestor: 'assistant' | 'user';
}

interface TaskInfo {
  id: string;
  initialState: unknown;
  actions: Action[];
  assertions: unknown[] | null;
}

/** The τ-BV tasks of a domain as Python's json.load reads them (a `2.0` stays a float). */
function tasksOf(domain: string): TaskInfo[] {
  const text = readFileSync(path.join(tau2Dir, domain, 'tasks.json'), 'utf8');
  const plain = JSON.parse(text) as any[];
  const exact = pyJsonParse(text) as Map<string, PyValue>[];
  return plain.map((t, k) => {
    const criteria = exact[k].get('evaluation_criteria') as Map<string, PyValue> | null;
    const actions = ((criteria?.get('actions') as Map<string, PyValue>[] | null) ?? []).map((a) => ({
      name: a.get('name') as string,
      arguments: (a.get('arguments') as Map<string, PyValue>) ?? new Map(),
      requestor: (a.get('requestor') as 'assistant' | 'user') ?? 'assistant',
    }));
    return {
      id: String(t.id),
      initialState: t.initial_state ?? null,
      actions,
      assertions: t.evaluation_criteria?.env_assertions ?? null,
    };
  });
}

const text = (args: Map<string, PyValue>) => pyJsonDumps(args);

/** Every task's gold actions as one trajectory (its env assertions at the end). */
export function goldTrajectories(domain: string): Trajectory[] {
  return tasksOf(domain).map((t) => ({
    label: `gold ${t.id}`,
    initialState: t.initialState,
    calls: t.actions.map((a) => ({ name: a.name, args: text(a.arguments), requestor: a.requestor })),
    assertions: t.assertions ?? undefined,
  }));
}

interface ToolInfo {
  name: string;
  requestor: 'assistant' | 'user';
  params: string[];
}

function toolsOf(domain: string): ToolInfo[] {
  const raw = JSON.parse(readFileSync(path.join(tau2Dir, domain, 'tools.json'), 'utf8')) as any[];
  return raw.map((t) => ({
    name: t.name,
    requestor: t.requestor === 'user' ? 'user' : 'assistant',
    params: Object.keys(t.parameters?.properties ?? {}),
  }));
}

const EXTRA_KEYS = ['product_id', 'user_id', 'notes', 'reason', 'id', 'order_id', 'confirm', 'amount'];

/**
 * Agent-like mistakes on one value: ids in another case or padded with spaces, numbers as floats or strings,
 * strings for numbers, a list reordered or cut, a nonexistent id, the wrong kind of value.
 */
function perturbValue(v: PyValue, rng: Rng, depth = 0): PyValue {
  const pick = <T>(xs: T[]) => xs[rng.int(xs.length)];
  if (typeof v === 'string') {
    const numeric = /^-?\d+(\.\d+)?$/.test(v.trim());
    return pick<() => PyValue>([
      () => v.toLowerCase(),
      () => v.toUpperCase(),
      () => ` ${v}`,
      () => `${v} `,
      () => (v.length > 1 ? v.slice(0, -1) + (v.at(-1) === 'X' ? 'Y' : 'X') : `${v}0`),
      () => v.replace(/[_#-]/, ''),
      () => (numeric ? (v.includes('.') ? new PyFloat(Number(v)) : Number.parseInt(v, 10)) : `${v}1`),
      () => [v],
      () => null,
      () => '',
      () => v.charAt(0).toUpperCase() + v.slice(1).toLowerCase(),
    ])();
  }
  if (typeof v === 'number') {
    return pick<() => PyValue>([
      () => new PyFloat(v),
      () => String(v),
      () => `${v}.0`,
      () => ` ${v} `,
      () => new PyFloat(v + 0.5),
      () => v + 1,
      () => -v,
      () => true,
      () => null,
      () => [v],
    ])();
  }
  if (v instanceof PyFloat) {
    return pick<() => PyValue>([
      () => Math.trunc(v.v),
      () => String(v.v),
      () => new PyFloat(v.v + 0.25),
      () => new PyFloat(-v.v),
      () => `${v.v}`,
    ])();
  }
  if (typeof v === 'boolean') return pick<PyValue>([!v, String(v), v ? 1 : 0, null]);
  if (v === null) return pick<PyValue>(['', 0, []]);
  if (Array.isArray(v)) {
    if (depth > 1 || v.length === 0) return pick<PyValue>([[], null, 'x']);
    return pick<() => PyValue>([
      () => rng.shuffle(v),
      () => [...v].reverse(),
      () => v.slice(1),
      () => [...v, v[0]],
      () => [],
      () => v.map((x, k) => (k === rng.int(v.length) ? perturbValue(x, rng, depth + 1) : x)),
      () => (typeof v[0] === 'string' ? v.join(',') : v[0]),
      () => v.map((x) => perturbValue(x, rng, depth + 1)),
    ])();
  }
  if (v instanceof Map) return perturbArgs(v, rng, depth + 1);
  return v;
}

/** One or two mistakes in a call's arguments: a key dropped or added, a value perturbed (at any depth). */
export function perturbArgs(args: Map<string, PyValue>, rng: Rng, depth = 0): Map<string, PyValue> {
  const out = new Map(args);
  const n = 1 + rng.int(2);
  for (let k = 0; k < n; k++) {
    const keys = [...out.keys()];
    const r = rng.int(10);
    if (r === 0 && keys.length) out.delete(keys[rng.int(keys.length)]);
    else if (r === 1) out.set(EXTRA_KEYS[rng.int(EXTRA_KEYS.length)], keys.length ? (out.get(keys[0]) ?? 1) : 1);
    else if (keys.length) {
      const key = keys[rng.int(keys.length)];
      out.set(key, perturbValue(out.get(key) as PyValue, rng, depth));
    }
  }
  return out;
}

/**
 * `n` agent-like trajectories (seeded): each starts from a task's initial state and mixes that task's gold calls,
 * other tasks' gold calls, lookups of entities the gold names, and unknown or mistyped tools, a third of them
 * perturbed as agents get arguments wrong.
 */
export function agentLikeTrajectories(domain: string, n: number, seed: number | string): Trajectory[] {
  const tasks = tasksOf(domain);
  const tools = toolsOf(domain);
  const withActions = tasks.filter((t) => t.actions.length > 0);
  // Values the gold names, by argument name: the entities an agent looks up.
  const pool = new Map<string, PyValue[]>();
  for (const t of tasks)
    for (const a of t.actions) for (const [k, v] of a.arguments) pool.set(k, [...(pool.get(k) ?? []), v]);
  const rng = new Rng(`${seed}:parity:${domain}`);
  const out: Trajectory[] = [];
  for (let i = 0; i < n; i++) {
    const base = tasks[rng.int(tasks.length)];
    const length = 2 + rng.int(10);
    const calls: TrajectoryCall[] = [];
    let next = 0;
    for (let k = 0; k < length; k++) {
      const r = rng.int(20);
      let call: Action;
      if (r < 8 && next < base.actions.length) call = base.actions[next++];
      else if (r < 13) {
        const other = withActions[rng.int(withActions.length)];
        call = other.actions[rng.int(other.actions.length)];
      } else if (r < 19) {
        const tool = tools[rng.int(tools.length)];
        const args = new Map<string, PyValue>();
        for (const p of tool.params) {
          const values = pool.get(p);
          if (values?.length) args.set(p, values[rng.int(values.length)]);
        }
        call = { name: tool.name, arguments: args, requestor: tool.requestor };
      } else {
        const t = tools[rng.int(tools.length)];
        call = {
          name: rng.int(2) ? `${t.name}s` : 'get_weather',
          arguments: new Map([['q', 'x']]),
          requestor: t.requestor,
        };
      }
      let args = call.arguments;
      if (rng.int(3) === 0) args = perturbArgs(args, rng);
      const requestor = rng.int(25) === 0 ? (call.requestor === 'user' ? 'assistant' : 'user') : call.requestor;
      calls.push({ name: call.name, args: text(args), requestor });
    }
    out.push({
      label: `agent-like ${i} (task ${base.id})`,
      initialState: base.initialState,
      calls,
      assertions: base.assertions ?? undefined,
    });
  }
  return out;
}

/** A lone surrogate (Python's json.loads gives one for `"\ud800"`): pydantic refuses it where it parses a str. */
const LONE = '\ud800';

/** The variants of one argument value: a lone surrogate in it, and a number as the other kind of number. */
function edgeValues(v: PyValue): PyValue[] {
  const out: PyValue[] = [LONE];
  if (typeof v === 'string') out.push(`${v}${LONE}`);
  if (typeof v === 'number') out.push(new PyFloat(v));
  if (v instanceof PyFloat && Number.isInteger(v.v)) out.push(v.v);
  if (v instanceof PyFloat) out.push(new PyFloat(v.v + 0.5));
  return out;
}

/** The argument edits of one call: each top-level value's variants, and those of each field of a list's first dict. */
function edgeEdits(args: Map<string, PyValue>): { at: string; args: Map<string, PyValue> }[] {
  const out: { at: string; args: Map<string, PyValue> }[] = [];
  for (const [k, v] of args) {
    for (const e of edgeValues(v)) out.push({ at: k, args: new Map(args).set(k, e) });
    if (!Array.isArray(v) || !(v[0] instanceof Map)) continue;
    const first = v[0] as Map<string, PyValue>;
    for (const [f, x] of first)
      for (const e of edgeValues(x))
        out.push({ at: `${k}[0].${f}`, args: new Map(args).set(k, [new Map(first).set(f, e), ...v.slice(1)]) });
  }
  return out;
}

/**
 * Floats and lone surrogates where the gold has other values: for the first gold call of each tool, every argument
 * (and each field of a list's first record) as a lone surrogate, a string with one appended, an int as a float and an
 * integral float as an int, after the task's earlier gold calls. τ²'s pydantic models refuse a lone surrogate in a
 * non-str field with `string_unicode`; a float argument writes `2.0` where an int writes `2`.
 */
export function edgeTrajectories(domain: string): Trajectory[] {
  const out: Trajectory[] = [];
  const seen = new Set<string>();
  for (const t of tasksOf(domain)) {
    t.actions.forEach((a, k) => {
      if (seen.has(a.name)) return;
      seen.add(a.name);
      const before = t.actions
        .slice(0, k)
        .map((p) => ({ name: p.name, args: text(p.arguments), requestor: p.requestor }));
      for (const e of edgeEdits(a.arguments))
        out.push({
          label: `edge ${a.name}.${e.at} (task ${t.id})`,
          initialState: t.initialState,
          calls: [...before, { name: a.name, args: text(e.args), requestor: a.requestor }],
          assertions: t.assertions ?? undefined,
        });
    });
  }
  return out;
}
