import {
  createEnvironment,
  type Environment,
  findKit,
  goldEnvironment,
  initialDb,
  pyJsonDumps,
  pyJsonParse,
  type Tau2Domain,
  type Tau2Task,
} from '../../tau2/index.js';
import { Rng } from '../prng.js';

/** One decoy record added to a task's initial state. */
export interface Decoy {
  /** The kit's entity kind ('reservation', 'order'). */
  kind: string;
  id: string;
  /** The true entity it imitates. */
  near: string;
  owner: string;
  how: string;
}

export interface DecoyResult {
  task: Tau2Task;
  decoys: Decoy[];
}

/** An entity record as decoys see it: its owner, the rest is the kit's. */
type Owned = { user_id: string };

/** Entity ids the gold calls name (any string argument, at any depth). */
function goldStrings(task: Tau2Task): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const a of task.evaluation_criteria?.actions ?? []) walk(a.arguments);
  return out;
}

/**
 * Difficulty evolution by decoys (DESIGN §11): for up to `max` entities the gold writes act on, a plausible but
 * wrong twin owned by the same user, made by the domain's kit (airline: the same trip a day or two later; retail:
 * the same order with one item in a sibling variant), merged into `initial_state`. Gold calls and arguments are
 * untouched. Returns the base task unchanged (no decoys) when nothing fits or the domain has no stage 3.
 */
export function addDecoys(domain: Tau2Domain, task: Tau2Task, seed: number | string = 0, max = 2): DecoyResult {
  const synthesis = findKit(domain.name)?.synthesis;
  if (!synthesis?.decoys) return { task, decoys: [] };
  const { entity, decoys: maker } = synthesis;
  const base = initialDb(domain);
  const records: Record<string, Owned> = base[entity.table];
  const rng = new Rng(`${seed}:decoys:${task.id}`);
  const named = goldStrings(task);
  const actions = task.evaluation_criteria?.actions ?? [];
  const decoys: Decoy[] = [];
  const agentData: Record<string, Record<string, unknown>> = { users: {} };
  const freshId = () => {
    for (;;) {
      const id = maker.newId(rng);
      if (!Object.hasOwn(records, id) && !maker.reserved?.(id) && !named.has(id)) return id;
    }
  };
  const targets = [...new Set(actions.map((a) => a.arguments?.[entity.idArg]).filter((id) => records[id]))];
  const owned: Record<string, string[]> = {};
  for (const id of targets.slice(0, max)) {
    const r = records[id];
    const did = freshId();
    const { record, how } = maker.twin(base, r, did, rng, named);
    agentData[entity.table] ??= {};
    agentData[entity.table][did] = record;
    owned[r.user_id] ??= [...base.users[r.user_id][entity.table]];
    owned[r.user_id].push(did);
    decoys.push({ kind: entity.kind, id: did, near: id, owner: r.user_id, how });
  }
  for (const [u, list] of Object.entries(owned)) agentData.users[u] = { [entity.table]: list };
  if (!decoys.length) return { task, decoys };
  const evolved: Tau2Task = structuredClone(task);
  evolved.initial_state = {
    ...(evolved.initial_state ?? {}),
    initialization_data: { agent_data: agentData, user_data: null },
  };
  return { task: evolved, decoys };
}

/** The environment after replaying the gold calls of `task` the τ² way (throws on a tool error). */
function goldFinal(domain: Tau2Domain, task: Tau2Task) {
  const { env, refused } = goldEnvironment(domain, task);
  if (refused.length) throw new Error(`${refused[0].name}: ${refused[0].error}`);
  return env;
}

/** A user record's τ² text without the given ids in its list of `table` records (exact: floats stay floats). */
const withoutIds = (text: string, table: string, ids: ReadonlySet<string>) => {
  const user = pyJsonParse(text) as Map<string, unknown>;
  user.set(
    table,
    (user.get(table) as string[]).filter((x) => !ids.has(x)),
  );
  return pyJsonDumps(user as never, { sortKeys: true });
};

/**
 * Proves decoys do not change the gold outcome, in τ²'s own terms: no gold call names a decoy id, and after the gold
 * replay (τ² semantics) every record of the evolved task's database has the τ² text it has after the base task's
 * replay, except the decoys themselves (untouched since the start) and their owners' lists of them.
 */
export function decoysPreserveGold(
  domain: Tau2Domain,
  base: Tau2Task,
  evolved: Tau2Task,
  decoys: Decoy[],
): { ok: boolean; reason?: string } {
  const synthesis = findKit(domain.name)?.synthesis;
  const table = synthesis?.decoys ? synthesis.entity.table : undefined;
  if (table === undefined) return { ok: false, reason: `domain ${domain.name} makes no decoys` };
  const named = goldStrings(evolved);
  const hit = decoys.find((d) => named.has(d.id));
  if (hit) return { ok: false, reason: `a gold call names decoy ${hit.id}` };
  let before: Environment;
  let after: Environment;
  try {
    before = goldFinal(domain, base);
    after = goldFinal(domain, evolved);
  } catch (err) {
    return { ok: false, reason: `gold fails: ${(err as Error).message}` };
  }
  const start = createEnvironment(domain, { initialState: evolved.initial_state });
  const decoyKeys = new Set(decoys.map((d) => `${table}/${d.id}`));
  const ids = new Set(decoys.map((d) => d.id));
  const owners = new Set(decoys.map((d) => `users/${d.owner}`));
  const keys = new Set([...Object.keys(before.changedRecords()), ...Object.keys(after.changedRecords())]);
  for (const key of keys) {
    const a = after.recordText(key);
    const b = before.recordText(key);
    if (decoyKeys.has(key)) {
      if (a === null || a !== start.recordText(key))
        return { ok: false, reason: `the gold replay changes decoy ${key}` };
    } else if (owners.has(key)) {
      if (a === null || b === null || withoutIds(a, table, ids) !== b)
        return { ok: false, reason: `the gold final state of ${key} differs beyond its decoys` };
    } else if (a !== b) return { ok: false, reason: `the gold final state of ${key} differs` };
  }
  return { ok: true };
}
