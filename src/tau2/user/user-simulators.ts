import OpenAI from 'openai';
import type { OpenAiTool } from '../agent/agent-protocol.js';
import type { EpisodeMessage, GoldAction, Tau2Task, UserInstructions } from '../data_model/types.js';
import { goldActions, requestorOf } from '../evaluator/gold-replay.js';
import { pyJsonParse } from '../py/json.js';
import { plainJson, toPlain } from '../py/plain.js';

export const STOP = '###STOP###';
export const TRANSFER = '###TRANSFER###';
export const OUT_OF_SCOPE = '###OUT-OF-SCOPE###';

/**
 * What the user can do on their own device (telecom): τ²'s user tools, run through the episode's environment, which
 * records each call in the trajectory and answers with τ²'s text.
 */
export interface UserToolbox {
  tools: OpenAiTool[];
  call(name: string, args: Record<string, unknown>): { ok: boolean; content: string };
}

/** The simulated customer of an episode. */
export interface UserSimulator {
  /** The user's opening message. */
  start(task: Tau2Task, tools?: UserToolbox): string | Promise<string>;
  /**
   * The user's answer to the conversation so far (whose last message is the agent's); may carry a stop token. With a
   * toolbox the user may first run tools on their device, as τ²'s user does.
   */
  reply(conversation: EpisodeMessage[], task: Tau2Task, tools?: UserToolbox): string | Promise<string>;
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

const named = (text: string, tool: string) => new RegExp(`(^|[^A-Za-z0-9_])${tool}([^A-Za-z0-9_]|$)`).test(text);

/**
 * A deterministic offline user: opens with the task's `reason_for_call` and `known_info`, answers the agent's
 * messages with `replies` in order, then stops; answers `###TRANSFER###` once the agent has transferred. On a domain
 * where the user has tools (telecom), it does what the agent asks by name: the task's next user-side gold actions
 * that the agent's last message names, in gold order with their gold arguments, and answers with what they showed.
 */
export function scriptedUser(options: ScriptedUserOptions = {}): UserSimulator {
  const replies = options.replies ?? [];
  let done = 0;
  let answered = 0;
  return {
    start(task) {
      const i = instructions(task);
      if (typeof i === 'string') return i;
      return [i.reason_for_call, i.known_info].filter(Boolean).join('\n\n') || 'Hello.';
    },
    reply(conversation, task, tools) {
      if (conversation.some((m) => m.toolCalls?.some((c) => c.name === 'transfer_to_human_agents'))) return TRANSFER;
      const last = [...conversation].reverse().find((m) => m.role === 'assistant' && m.content)?.content ?? '';
      const mine: GoldAction[] = goldActions(task).filter((a) => requestorOf(a) === 'user');
      const shown: string[] = [];
      while (tools && done < mine.length && named(last, mine[done].name)) {
        const a = mine[done++];
        shown.push(tools.call(a.name, a.arguments ?? {}).content);
      }
      if (shown.length) return `I did that on my phone. It shows:\n${shown.join('\n')}`;
      return answered < replies.length ? replies[answered++] : STOP;
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

/** What the LLM user is told when it has tools on its own device (telecom). */
export const USER_TOOL_GUIDELINES = `You have tools to operate your own phone. Use them when the agent asks you to check or change
something on your device, and base what you tell the agent on what the tools show. Never make up a tool's result.`;

/** The system prompt the LLM user simulator runs under. */
export function userSystemPrompt(task: Tau2Task, withTools = false): string {
  const guidelines = withTools ? `${USER_GUIDELINES}\n\n${USER_TOOL_GUIDELINES}` : USER_GUIDELINES;
  return `${guidelines}\n\n<scenario>\n${instructionText(task)}\n</scenario>`;
}

/**
 * A user simulated by a model behind an OpenAI-compatible endpoint (the gateway's `user` role). The agent's messages
 * are the simulator's `user` turns and its own past messages its `assistant` turns.
 */
export function llmUser(options: LlmUserOptions): UserSimulator {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey ?? 'unused', maxRetries: 1 });
  const greeting = options.greeting ?? 'Hi! How can I help you today?';
  type Turn = Record<string, unknown>;
  const ask = async (task: Tau2Task, turns: Turn[], tools?: UserToolbox) => {
    const history: Turn[] = [
      { role: 'system', content: userSystemPrompt(task, Boolean(tools?.tools.length)) },
      ...turns,
    ];
    // τ²'s user may run several device tools before it answers; each round's results go back to the model.
    for (let round = 0; round < 10; round++) {
      const res = await client.chat.completions.create({
        model: options.model,
        temperature: options.temperature ?? 0,
        messages: history as never,
        ...(tools?.tools.length ? { tools: tools.tools } : {}),
      });
      const m = res.choices[0]?.message;
      const calls = (m?.tool_calls ?? []).filter((c: any) => c.type === 'function') as any[];
      if (tools && calls.length) {
        history.push({ role: 'assistant', content: m?.content ?? '', tool_calls: calls });
        for (const c of calls) {
          let args: Record<string, unknown> = {};
          try {
            // Read as Python reads it: the user's `2.0` stays a float through the call and the reward's replay.
            args = toPlain(pyJsonParse(c.function.arguments || '{}'), { keepFloats: true }) as Record<string, unknown>;
          } catch {
            args = {};
          }
          history.push({ role: 'tool', tool_call_id: c.id, content: tools.call(c.function.name, args).content });
        }
        continue;
      }
      const text = m?.content?.trim();
      // An empty reply is a failed simulator, not a customer who is done: ending the episode there would grade it.
      if (!text) throw new Error('the user model answered with an empty message');
      return text;
    }
    throw new Error('the user model kept calling tools without answering');
  };
  return {
    start: (task, tools) => ask(task, [{ role: 'user', content: greeting }], tools),
    reply(conversation, task, tools) {
      const turns: Turn[] = [{ role: 'user', content: greeting }];
      for (const m of conversation) {
        if (m.role === 'user' && m.toolCalls?.length)
          turns.push({
            role: 'assistant',
            content: m.content,
            tool_calls: m.toolCalls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: plainJson(c.arguments) },
            })),
          });
        else if (m.role === 'tool' && m.requestor === 'user')
          turns.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
        else if (m.role === 'user' && m.content) turns.push({ role: 'assistant', content: m.content });
        else if (m.role === 'assistant' && m.content) turns.push({ role: 'user', content: m.content });
      }
      return ask(task, turns, tools);
    },
  };
}
