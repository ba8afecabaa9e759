import OpenAI from 'openai';
import { isWriteTool, type Tau2Domain, type Tau2Task, type UserInstructions } from '../../tau2/index.js';
import type { ModelConfig } from './hinted-verifier.js';

/** Adversarial strategies of the evolution step (DESIGN §11), one chosen per write action. */
export const STRATEGIES = ['misdirection', 'policy pressure', 'conversational adversity'] as const;

function client(config: ModelConfig) {
  return new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey ?? 'unused', maxRetries: 1 });
}

/** Parses a model's JSON answer (a code fence tolerated); null when it is not a JSON object. */
export function parseJsonObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  const body = text.replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, '');
  try {
    const v = JSON.parse(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function instructionsFrom(v: Record<string, unknown> | null, fallback: UserInstructions): UserInstructions | null {
  if (!v || typeof v.reason_for_call !== 'string' || typeof v.task_instructions !== 'string') return null;
  const str = (x: unknown, d: string | null | undefined) => (typeof x === 'string' && x.trim() ? x : (d ?? null));
  return {
    domain: fallback.domain,
    reason_for_call: v.reason_for_call,
    known_info: str(v.known_info, fallback.known_info),
    unknown_info: str(v.unknown_info, fallback.unknown_info),
    task_instructions: v.task_instructions,
  };
}

async function askJson(config: ModelConfig, system: string, user: string): Promise<Record<string, unknown> | null> {
  const res = await client(config).chat.completions.create({
    model: config.model,
    temperature: 0.7,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
  });
  return parseJsonObject(res.choices[0]?.message?.content);
}

const KEEP = `Keep every id, amount, date, flight, item and payment method exactly as given: the gold tool calls below must
stay the only correct solution. Answer with one JSON object {"reason_for_call","known_info","unknown_info","task_instructions"} and nothing else.`;

/**
 * LLM instantiation of scenario and instruction (when a generator model is configured): rewrites the templated user
 * instructions of a programmatically instantiated task into a verbose, natural scenario. Gold calls are untouched;
 * resolves to null when the model's answer is unusable (the caller keeps the templated task).
 */
export async function llmScenario(config: ModelConfig, task: Tau2Task, policy: string): Promise<Tau2Task | null> {
  const base = task.user_scenario.instructions as UserInstructions;
  const v = await askJson(
    config,
    `You write customer scenarios for a customer-service agent benchmark. Policy of the service:\n${policy.slice(0, 6000)}`,
    `Rewrite these user instructions as a realistic, verbose customer scenario with a motive and a personality.\n${KEEP}\n\nInstructions:\n${JSON.stringify(base, null, 2)}\n\nGold calls:\n${JSON.stringify(task.evaluation_criteria?.actions ?? [])}`,
  ).catch(() => null);
  const next = instructionsFrom(v, base);
  return next ? { ...task, user_scenario: { ...task.user_scenario, instructions: next } } : null;
}

/**
 * The evolution's instruction rewrite: one adversarial strategy per write action (round robin over STRATEGIES),
 * `retries` attempts (the lite rewrite on the last ones); null when every answer was unusable.
 */
export async function llmAdversarialRewrite(
  config: ModelConfig,
  domain: Tau2Domain,
  task: Tau2Task,
  retries = 3,
): Promise<Tau2Task | null> {
  const base = task.user_scenario.instructions as UserInstructions;
  const writes = (task.evaluation_criteria?.actions ?? []).filter((a) => isWriteTool(domain, a.name));
  const plan = writes.map((a, k) => `- ${a.name}: ${STRATEGIES[k % STRATEGIES.length]}`).join('\n');
  for (let attempt = 0; attempt <= retries; attempt++) {
    const lite = attempt > 0;
    const v = await askJson(
      config,
      'You make customer-service benchmark tasks harder without changing their correct solution.',
      `${lite ? 'Lightly rewrite' : 'Rewrite'} these user instructions so the user is harder to serve, using per write action:\n${plan}\n(misdirection: mention a similar but wrong entity first; policy pressure: push for something the policy forbids, then accept the allowed outcome; conversational adversity: withhold facts until asked, state a false fact then correct it, escalate.)\n${KEEP}\n\nInstructions:\n${JSON.stringify(base, null, 2)}\n\nGold calls:\n${JSON.stringify(task.evaluation_criteria?.actions ?? [])}`,
    ).catch(() => null);
    const next = instructionsFrom(v, base);
    if (next) return { ...task, user_scenario: { ...task.user_scenario, instructions: next } };
  }
  return null;
}
