import OpenAI from 'openai';
import {
  type AgentFunction,
  type GoldAction,
  llmUser,
  type OpenAiTool,
  plainJson,
  runEpisode,
  type Tau2Domain,
  type Tau2Task,
} from '../../tau2/index.js';
import { Rng } from '../prng.js';
import type { Verifier } from './validate.js';

/** A model endpoint for the generator (instantiation, rewrite) or the hinted agent. */
export interface ModelConfig {
  baseURL?: string;
  apiKey?: string;
  model: string;
}

/**
 * The generator model from HELDOUT_GENERATOR_BASE_URL / _API_KEY / _MODEL, else OPENAI_BASE_URL / _API_KEY / _MODEL;
 * undefined when no model and endpoint are configured (the offline path).
 */
export function generatorModel(env: NodeJS.ProcessEnv = process.env): ModelConfig | undefined {
  const baseURL = env.HELDOUT_GENERATOR_BASE_URL || env.OPENAI_BASE_URL || undefined;
  const apiKey = env.HELDOUT_GENERATOR_API_KEY || env.OPENAI_API_KEY || undefined;
  const model = env.HELDOUT_GENERATOR_MODEL || env.OPENAI_MODEL || undefined;
  return model && (baseURL || apiKey) ? { baseURL, apiKey, model } : undefined;
}

export interface HintCall {
  name: string;
  /** The gold arguments left in the hint; removed ones are listed in `removed`. */
  arguments: Record<string, unknown>;
  removed: string[];
}

/**
 * The hinted verifier's hint (pure, seeded): the gold calls shuffled, with `share` (default 30 %) of all their
 * arguments removed — round(share × total) arguments chosen uniformly, every other argument kept verbatim.
 */
export function buildHint(actions: GoldAction[], seed: number | string = 0, share = 0.3): HintCall[] {
  const rng = new Rng(`${seed}:hint`);
  const calls = rng.shuffle(actions.map((a) => ({ name: a.name, args: { ...(a.arguments ?? {}) } })));
  const slots: [number, string][] = [];
  calls.forEach((c, k) => {
    for (const key of Object.keys(c.args)) slots.push([k, key]);
  });
  const drop = Math.round(share * slots.length);
  const removed = calls.map(() => [] as string[]);
  for (const [k, key] of rng.shuffle(slots).slice(0, drop)) {
    delete calls[k].args[key];
    removed[k].push(key);
  }
  return calls.map((c, k) => ({ name: c.name, arguments: c.args, removed: removed[k].sort() }));
}

/** The hint as the text the hinted agent reads in its system prompt. */
export function hintText(hint: HintCall[]): string {
  const lines = hint.map(
    (h) =>
      // plainJson: a gold `2.0` is shown as one, so the hinted model sends the float the gold's DB state needs.
      `- ${h.name}(${plainJson(h.arguments)})${h.removed.length ? ` — find out: ${h.removed.join(', ')}` : ''}`,
  );
  return `These tool calls (in no particular order; some arguments left out) are believed to solve the customer's request. Use them as a hint, fill in what is missing from the conversation and the tools, and follow the policy.\n${lines.join('\n')}`;
}

/** A model-backed tool agent (OpenAI chat completions with function calling) whose system prompt carries `extra`. */
export function modelAgent(config: ModelConfig, extra = ''): AgentFunction {
  const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey ?? 'unused', maxRetries: 1 });
  const history: any[] = [];
  let tools: OpenAiTool[] = [];
  let awaiting = 0;
  const ask = async () => {
    const res = await client.chat.completions.create({ model: config.model, messages: history, tools, temperature: 0 });
    const m = res.choices[0]?.message;
    const calls = (m?.tool_calls ?? []).filter((c: any) => c.type === 'function') as any[];
    history.push({ role: 'assistant', content: m?.content ?? '', ...(calls.length ? { tool_calls: calls } : {}) });
    if (!calls.length) return { type: 'message' as const, content: m?.content ?? '' };
    awaiting = calls.length;
    return {
      type: 'tool_calls' as const,
      calls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments || '{}' })),
    };
  };
  return async (msg: any) => {
    if (msg.type === 'start') {
      tools = msg.tools;
      history.push({ role: 'system', content: `${msg.policy}\n\n${extra}`.trim() });
      return undefined;
    }
    if (msg.type === 'user') {
      history.push({ role: 'user', content: msg.content });
      return ask();
    }
    if (msg.type === 'tool_result') {
      history.push({ role: 'tool', tool_call_id: msg.id, content: msg.content });
      return --awaiting === 0 ? ask() : undefined;
    }
    return undefined;
  };
}

/**
 * The model-backed hinted verifier (DESIGN §11): an agent given the hint must reach reward 1.0 with the LLM-simulated
 * user, in one of `attempts` (default 2) episodes; the best reward is returned.
 */
export function hintedVerifier(
  agent: ModelConfig,
  user: ModelConfig = agent,
  attempts = 2,
  seed: number | string = 0,
): Verifier {
  return async (task: Tau2Task, domain: Tau2Domain) => {
    const hint = hintText(buildHint(task.evaluation_criteria?.actions ?? [], `${seed}:${task.id}`));
    let best = 0;
    let detail = '';
    for (let k = 0; k < attempts && best < 1; k++) {
      const ep = await runEpisode({
        task,
        domain,
        agent: modelAgent(agent, hint),
        user: llmUser({ baseURL: user.baseURL ?? 'https://api.openai.com/v1', apiKey: user.apiKey, model: user.model }),
      });
      if (ep.reward >= best) {
        best = ep.reward;
        detail = ep.info.termination;
      }
    }
    return { reward: best, detail };
  };
}
