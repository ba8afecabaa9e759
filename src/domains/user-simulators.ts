import OpenAI from 'openai';
import type { EpisodeMessage, Tau2Task, UserInstructions } from './types.js';

export const STOP = '###STOP###';
export const TRANSFER = '###TRANSFER###';
export const OUT_OF_SCOPE = '###OUT-OF-SCOPE###';

/** The simulated customer of an episode. */
export interface UserSimulator {
  /** The user's opening message. */
  start(task: Tau2Task): string | Promise<string>;
  /** The user's answer to the conversation so far (whose last message is the agent's); may carry a stop token. */
  reply(conversation: EpisodeMessage[], task: Tau2Task): string | Promise<string>;
}

function instructions(task: Tau2Task): UserInstructions | string {
  return task.user_scenario?.instructions ?? '';
}

/** The task's instructions as one text, in τ²'s order (used for the LLM user's system prompt). */
export function instructionText(task: Tau2Task): string {
  const i = instructions(task);
  if (typeof i === 'string') return i;
  const parts: [string, string | null | undefined][] = [
    ['Domain', i.domain],
    ['Reason for call', i.reason_for_call],
    ['Known info', i.known_info],
    ['Unknown info', i.unknown_info],
    ['Task instructions', i.task_instructions],
  ];
  const persona = task.user_scenario?.persona;
  const text = parts
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}:\n${v}`)
    .join('\n\n');
  return persona ? `Persona:\n${persona}\n\n${text}` : text;
}

export interface ScriptedUserOptions {
  /** Answers given, in order, to the agent's messages; after the last one the user ends with `###STOP###`. */
  replies?: string[];
}

/**
 * A deterministic offline user: opens with the task's `reason_for_call` and `known_info`, answers the agent's
 * messages with `replies` in order, then stops; answers `###TRANSFER###` once the agent has transferred.
 */
export function scriptedUser(options: ScriptedUserOptions = {}): UserSimulator {
  const replies = options.replies ?? [];
  return {
    start(task) {
      const i = instructions(task);
      if (typeof i === 'string') return i;
      return [i.reason_for_call, i.known_info].filter(Boolean).join('\n\n') || 'Hello.';
    },
    reply(conversation) {
      if (conversation.some((m) => m.toolCalls?.some((c) => c.name === 'transfer_to_human_agents'))) return TRANSFER;
      const answered = conversation.filter((m) => m.role === 'user').length - 1;
      return answered < replies.length ? replies[answered] : STOP;
    },
  };
}

export interface LlmUserOptions {
  baseURL: string;
  apiKey?: string;
  model: string;
  temperature?: number;
  /** The agent's greeting the simulator answers first (τ² opens every conversation with it). */
  greeting?: string;
}

/** τ²-style user-simulator guidelines; the task's instructions follow them in the system prompt. */
export const USER_GUIDELINES = `You are playing the role of a customer contacting a customer service representative.
Your goal is to simulate realistic customer interactions while following the specific scenario instructions below.

Core principles:
- Generate one message at a time, as a real customer would, in natural conversational language.
- Strictly follow the scenario instructions. Disclose information progressively: give only what the agent asks for.
- Never make up information that is not in the instructions. If asked for something you do not know, say so.
- Do not repeat the instructions verbatim; paraphrase them in your own words.
- You are the customer, not the agent: do not offer to perform actions yourself.

Ending the conversation:
- When the instruction goal is satisfied, reply with exactly '${STOP}' to end the conversation.
- If you have been transferred to another (human) agent, reply with exactly '${TRANSFER}'.
- If the scenario does not give you enough information to continue the conversation, reply with exactly
  '${OUT_OF_SCOPE}'.`;

/** The system prompt the LLM user simulator runs under. */
export function userSystemPrompt(task: Tau2Task): string {
  return `${USER_GUIDELINES}\n\n<scenario>\n${instructionText(task)}\n</scenario>`;
}

/**
 * A user simulated by a model behind an OpenAI-compatible endpoint (the gateway's `user` role). The agent's messages
 * are the simulator's `user` turns and its own past messages its `assistant` turns.
 */
export function llmUser(options: LlmUserOptions): UserSimulator {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey ?? 'unused', maxRetries: 1 });
  const greeting = options.greeting ?? 'Hi! How can I help you today?';
  const ask = async (task: Tau2Task, turns: { role: 'user' | 'assistant'; content: string }[]) => {
    const res = await client.chat.completions.create({
      model: options.model,
      temperature: options.temperature ?? 0,
      messages: [{ role: 'system', content: userSystemPrompt(task) }, ...turns],
    });
    const text = res.choices[0]?.message?.content?.trim();
    // An empty reply is a failed simulator, not a customer who is done: ending the episode there would grade it.
    if (!text) throw new Error('the user model answered with an empty message');
    return text;
  };
  return {
    start: (task) => ask(task, [{ role: 'user', content: greeting }]),
    reply(conversation, task) {
      const turns: { role: 'user' | 'assistant'; content: string }[] = [{ role: 'user', content: greeting }];
      for (const m of conversation) {
        if (m.role === 'user') turns.push({ role: 'assistant', content: m.content });
        else if (m.role === 'assistant' && m.content) turns.push({ role: 'user', content: m.content });
      }
      return ask(task, turns);
    },
  };
}
