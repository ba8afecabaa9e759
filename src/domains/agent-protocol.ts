import { spawn } from 'node:child_process';
import { readAgentLines, replyQueue } from './reply-queue.js';

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

/** Checks one decoded line against the protocol; tool-call arguments given as a JSON string are decoded. */
export function parseAgentMessage(value: unknown): AgentMessage {
  const v = value as any;
  if (v?.type === 'message' && typeof v.content === 'string') return { type: 'message', content: v.content };
  if (v?.type === 'tool_calls' && Array.isArray(v.calls) && v.calls.length > 0) {
    const calls = v.calls.map((c: any, k: number) => {
      if (typeof c?.name !== 'string') throw new AgentProtocolError(`tool call ${k} has no name`);
      let args = c.arguments ?? {};
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args || '{}');
        } catch {
          throw new AgentProtocolError(`tool call ${k} (${c.name}) has arguments that are not JSON`);
        }
      }
      return { id: typeof c.id === 'string' && c.id ? c.id : `call_${k}`, name: c.name, arguments: args };
    });
    return { type: 'tool_calls', calls };
  }
  throw new AgentProtocolError(`not an agent message: ${JSON.stringify(value)?.slice(0, 200)}`);
}

/** Wraps an in-process agent function as a session (replies queue in order). */
export function inProcessAgent(fn: AgentFunction): AgentSession {
  const pending: Promise<AgentMessage | undefined>[] = [];
  return {
    send(message) {
      pending.push(Promise.resolve().then(() => fn(message)));
    },
    async next() {
      while (pending.length > 0) {
        const reply = await pending.shift();
        if (reply !== undefined) return parseAgentMessage(reply);
      }
      throw new AgentProtocolError('the agent gave no reply');
    },
    async close() {
      await Promise.allSettled(pending);
    },
  };
}

export interface SpawnAgentOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** How long one reply may take; default 120 s. */
  replyTimeoutMs?: number;
}

/**
 * Starts an agent process that speaks the JSON-lines protocol on stdin/stdout. stderr is kept (last 8 KiB) for
 * diagnostics. `close()` sends `end`, closes stdin and kills the process if it has not exited after a grace period.
 */
export function spawnAgent(command: string[], options: SpawnAgentOptions = {}): AgentSession & { stderr(): string } {
  const [file, ...args] = command;
  if (!file) throw new Error('spawnAgent: empty command');
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const timeoutMs = options.replyTimeoutMs ?? 120_000;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-8192);
  });
  let exited = false;
  let exitError: Error | undefined;
  const { push, next } = replyQueue(timeoutMs, () => exitError);
  const exit = new Promise<void>((resolve) => {
    child.on('close', (code, signal) => {
      exited = true;
      exitError = new AgentProtocolError(`agent exited (code ${code}, signal ${signal})`);
      push(
        new AgentProtocolError(
          `agent exited (code ${code}, signal ${signal})${stderr ? `: ${stderr.slice(-500)}` : ''}`,
        ),
      );
      resolve();
    });
    child.on('error', (err) => {
      exited = true;
      push(new AgentProtocolError(`agent could not start: ${err.message}`));
      resolve();
    });
  });
  readAgentLines(child.stdout, push);
  child.stdin.on('error', () => {});

  return {
    send(message) {
      if (!exited && child.stdin.writable) child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    next,
    async close() {
      if (!exited) {
        this.send({ type: 'end', reason: 'episode over' });
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
        await exit;
        clearTimeout(timer);
      }
    },
    stderr: () => stderr,
  };
}
