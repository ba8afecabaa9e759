import { pyJsonParse } from '../py/json.js';
import { toPlain } from '../py/plain.js';
import type { PyDict, PyValue } from '../py/values.js';

/** An OpenAI function-calling tool schema, as sent to the agent in `start`. */
export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, any> };
}

/** Evaluator → agent, one JSON object per line on the agent's stdin (see PROTOCOL.md). */
export type EvaluatorMessage =
  | { type: 'start'; tools: OpenAiTool[]; policy: string; [extra: string]: unknown }
  | { type: 'user'; content: string }
  | { type: 'tool_result'; id: string; name: string; content: string; error?: boolean }
  | { type: 'end'; reason: string };

export interface AgentToolCall {
  id: string;
  name: string;
  arguments: Record<string, any>;
  /**
   * The arguments exactly as the agent's JSON had them, as Python reads JSON (`2.0` a float, keys in order), when
   * they came as text; the environment runs these, and the reward's replay runs them again. Never sent to anyone.
   */
  rawArguments?: PyDict;
}

/** Agent → evaluator, one JSON object per line on the agent's stdout. */
export type AgentMessage = { type: 'message'; content: string } | { type: 'tool_calls'; calls: AgentToolCall[] };

/** A running agent: the episode sends it messages and awaits its replies. */
export interface AgentSession {
  send(message: EvaluatorMessage): void;
  /** The agent's next reply; rejects when the agent exits, breaks the protocol or times out. */
  next(): Promise<AgentMessage>;
  close(): Promise<void>;
}

/** An in-process agent: called with each evaluator message, returns its reply when it has one. */
export type AgentFunction = (message: EvaluatorMessage) => AgentMessage | undefined | Promise<AgentMessage | undefined>;

export class AgentProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentProtocolError';
  }
}

/** Reads one line the agent wrote: JSON as Python reads it, so tool-call arguments keep their number types. */
export function parseAgentLine(line: string): AgentMessage {
  let v: PyValue;
  try {
    v = pyJsonParse(line);
  } catch {
    throw new AgentProtocolError(`agent wrote a line that is not JSON: ${line.slice(0, 200)}`);
  }
  return parseAgentMessage(v);
}

/**
 * Checks one decoded message against the protocol (a plain value, or a Python-read one from `parseAgentLine`).
 * Tool-call arguments must be a JSON object, or a JSON string holding one (as OpenAI's API gives them): τ² accepts
 * nothing else as a tool call's arguments.
 */
export function parseAgentMessage(value: unknown): AgentMessage {
  const v = (value instanceof Map ? toPlain(value as PyValue) : value) as any;
  if (v?.type === 'message' && typeof v.content === 'string') return { type: 'message', content: v.content };
  if (v?.type === 'tool_calls' && Array.isArray(v.calls) && v.calls.length > 0) {
    const exactCalls = value instanceof Map ? ((value.get('calls') as PyValue[]) ?? []) : [];
    const calls = v.calls.map((c: any, k: number) => {
      if (typeof c?.name !== 'string') throw new AgentProtocolError(`tool call ${k} has no name`);
      const exact = exactCalls[k] instanceof Map ? (exactCalls[k] as PyDict).get('arguments') : undefined;
      let raw: PyValue | undefined = exact instanceof Map ? exact : undefined;
      let args = c.arguments ?? {};
      if (typeof args === 'string') {
        try {
          raw = pyJsonParse(args || '{}');
        } catch {
          throw new AgentProtocolError(`tool call ${k} (${c.name}) has arguments that are not JSON`);
        }
      }
      // The record keeps a `2.0` a float (boxed), so the reward's replay and episode.json see what the agent sent.
      if (raw !== undefined) args = toPlain(raw, { keepFloats: true });
      if (args === null || typeof args !== 'object' || Array.isArray(args))
        throw new AgentProtocolError(`tool call ${k} (${c.name}) has arguments that are not a JSON object`);
      return {
        id: typeof c.id === 'string' && c.id ? c.id : `call_${k}`,
        name: c.name,
        arguments: args,
        ...(raw instanceof Map ? { rawArguments: raw } : {}),
      };
    });
    return { type: 'tool_calls', calls };
  }
  throw new AgentProtocolError(`not an agent message: ${JSON.stringify(v)?.slice(0, 200)}`);
}
