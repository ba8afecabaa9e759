import {
  createEnvironment,
  type DomainKit,
  findKit,
  type InitialState,
  initialDb,
  type ScenarioNotes,
  type TaskCriteria,
  type Tau2Domain,
  type Tau2Task,
  Unfit,
  type WalkContext,
} from '../../tau2/index.js';
import { Rng } from '../prng.js';
import { scenarioFromNotes } from './templates.js';
import type { InstantiateOptions, InstantiateOutcome } from './types.js';
import { EntityWalk } from './walk.js';

function emptyNotes(): ScenarioNotes {
  return { known: [], unknown: [], intents: [], communicate: [], purpose: [] };
}

/**
 * Programmatic instantiation of a medoid tool sequence (the offline path of DESIGN §11 stage 3): tries seeded
 * subjects (users) one after another; for each, walks the sequence on a fresh environment, keeping for every call
 * the first candidate argument set that executes without a tool error, so later calls see earlier results. Gives up
 * after `maxRetries` subjects with the most frequent reason. Deterministic for a seed.
 */
export function instantiateSequence(
  domain: Tau2Domain,
  sequence: string[],
  options: InstantiateOptions = {},
): InstantiateOutcome {
  const kit = findKit(domain.name);
  const synthesis = kit?.synthesis;
  if (!kit || !synthesis)
    return { ok: false, reason: `no programmatic instantiator for domain ${domain.name}`, attempts: 0 };
  if (sequence.length === 0) return { ok: false, reason: 'empty sequence', attempts: 0 };
  const known = new Set(domain.tools.map((t) => t.name));
  const unknownTool = sequence.find((t) => !known.has(t));
  if (unknownTool) return { ok: false, reason: `tool ${unknownTool} is not in the domain`, attempts: 0 };
  const base = initialDb(domain);
  const limit = synthesis.walk.impossible?.(base, sequence);
  if (limit) return { ok: false, reason: limit, attempts: 0 };
  const rng = new Rng(`${options.seed ?? 0}:instantiate:${sequence.join(',')}`);
  // The user's own tools (telecom) are the user's calls in the gold, as τ² records them.
  const requestor = (name: string) => domain.tools.find((t) => t.name === name)?.requestor ?? 'assistant';
  const maxRetries = options.maxRetries ?? 12;
  const subjects = synthesis.walk.subjects(base, sequence, rng).slice(0, maxRetries);
  if (!subjects.length) return { ok: false, reason: 'no entity in the database fits the sequence', attempts: 0 };
  const reasons = new Map<string, number>();
  let attempts = 0;
  for (const subject of subjects) {
    attempts++;
    const initialState = synthesis.initialState?.(base, subject, sequence) ?? null;
    const fresh = () => createEnvironment(domain, { initialState });
    const ctx: WalkContext = {
      domain,
      env: fresh(),
      base,
      rng: rng.fork(subject),
      sequence,
      calls: [],
      notes: emptyNotes(),
    };
    try {
      const walk = new EntityWalk(synthesis, ctx, subject);
      for (let i = 0; i < sequence.length; i++) {
        const tried: string[] = [];
        let done = false;
        for (const args of walk.candidates(i).slice(0, 40)) {
          const r = ctx.env.call(sequence[i], args, requestor(sequence[i]));
          if (!r.ok) {
            tried.push(r.error);
            continue;
          }
          ctx.calls.push({ name: sequence[i], arguments: args, result: r.result });
          walk.accept(i, args, r.result);
          done = true;
          break;
        }
        if (!done) throw new Unfit(sequence[i], i, `every candidate failed (${tried[0] ?? 'no candidate'})`);
      }
      walk.finish();
      const criteria = synthesis.criteria?.(walk, fresh);
      return {
        ok: true,
        task: assembleTask(kit, ctx, subject, options.id ?? 'generated', { initialState, criteria, requestor }),
        subject,
        attempts,
      };
    } catch (err) {
      if (!(err instanceof Unfit)) throw err;
      // Group reasons by tool and cause, without entity ids, so the report names the real obstacle.
      const key = err.message.replace(/user \S+/g, 'user').replace(/\b[A-Z0-9]{6}\b/g, 'X');
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
  }
  const [reason] = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0];
  return { ok: false, reason, attempts };
}

function assembleTask(
  kit: DomainKit,
  ctx: WalkContext,
  subject: string,
  id: string,
  how: {
    initialState: InitialState | null;
    criteria?: TaskCriteria;
    requestor: (name: string) => 'assistant' | 'user';
  },
): Tau2Task {
  const writes = ctx.calls.filter((c) => ctx.env.isWriteTool(c.name)).length;
  const communicate = [...new Set(ctx.notes.communicate.filter((s) => s.trim() !== ''))];
  const uncompared = new Set(how.criteria?.uncompared ?? []);
  return {
    id,
    description: {
      purpose: `Generated (TASTE stage 3) from the sequence ${ctx.sequence.join(' → ')}: ${
        [...new Set(ctx.notes.purpose)].join(', ') || 'information requests'
      } for ${subject}.`,
      relevant_policies: null,
      notes: `${ctx.calls.length} gold calls, ${writes} of them writes.`,
    },
    user_scenario: { persona: null, instructions: scenarioFromNotes(kit, ctx.notes) },
    initial_state: how.initialState,
    evaluation_criteria: {
      actions: ctx.calls.map((c, k) => ({
        action_id: `${id}_${k}`,
        requestor: how.requestor(c.name),
        name: c.name,
        arguments: c.arguments,
        compare_args: uncompared.has(c.name) ? [] : null,
      })),
      communicate_info: communicate,
      nl_assertions: null,
      ...(how.criteria?.env_assertions ? { env_assertions: how.criteria.env_assertions } : {}),
      reward_basis: how.criteria?.reward_basis ?? (communicate.length ? ['DB', 'COMMUNICATE'] : ['DB']),
    },
  };
}
