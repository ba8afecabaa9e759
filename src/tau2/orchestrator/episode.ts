import type { AgentFunction, AgentMessage, AgentSession } from '../agent/agent-protocol.js';
import { inProcessAgent } from '../agent/in-process-agent.js';
import { type SpawnAgentOptions, spawnAgent } from '../agent/spawn-agent.js';
import { openAiToolSchemas, openAiUserToolSchemas } from '../data_model/tool-spec.js';
import type {
  Environment,
  EpisodeMessage,
  RewardResult,
  Tau2Domain,
  Tau2Task,
  ToolCallRecord,
} from '../data_model/types.js';
import { createEnvironment } from '../environment/environment.js';
import type { Semantics } from '../environment/toolkit.js';
import { computeReward } from '../evaluator/reward.js';
import { OUT_OF_SCOPE, STOP, TRANSFER, type UserSimulator, type UserToolbox } from '../user/user-simulators.js';

export type Termination =
  | 'user_stop'
  | 'transfer'
  | 'out_of_scope'
  | 'max_steps'
  | 'too_many_errors'
  | 'agent_error'
  | 'user_error';

/** Terminations after which the final state is graded; any other scores 0, as in τ². */
const GRADED: ReadonlySet<Termination> = new Set(['user_stop', 'transfer', 'out_of_scope']);

export interface EpisodeOptions {
  task: Tau2Task;
  domain: Tau2Domain;
  /** A running session, an in-process agent function, or a command (argv) to spawn with the stdio protocol. */
  agent: AgentSession | AgentFunction | string[];
  user: UserSimulator;
  /** Agent replies plus user replies before the episode is cut; default 30. */
  maxSteps?: number;
  /** Tool errors tolerated; one more ends the episode; default 10. */
  maxErrors?: number;
  /** Extra fields merged into the `start` message (e.g. `oracle_actions` for the test oracle only). */
  startExtras?: Record<string, unknown>;
  /** For a spawned agent. */
  spawn?: SpawnAgentOptions;
  /** The tools' semantics (default τ²'s, `tau2@1.0.1`). */
  semantics?: Semantics;
}

export interface EpisodeResult {
  messages: EpisodeMessage[];
  toolCalls: ToolCallRecord[];
  /** 0 when the episode did not end by the user (max steps, too many errors, agent failure). */
  reward: number;
  rewardDetail: RewardResult;
  info: { termination: Termination; steps: number; errors: number; detail?: string };
}

function session(agent: EpisodeOptions['agent'], spawnOptions?: SpawnAgentOptions): AgentSession {
  if (Array.isArray(agent)) return spawnAgent(agent, spawnOptions);
  if (typeof agent === 'function') return inProcessAgent(agent);
  return agent;
}

function endedBy(text: string): Termination | undefined {
  if (text.includes(STOP)) return 'user_stop';
  if (text.includes(TRANSFER)) return 'transfer';
  if (text.includes(OUT_OF_SCOPE)) return 'out_of_scope';
  return undefined;
}

/** The user's tools on their device, run in the episode's environment and recorded in its trajectory. */
function userToolbox(
  domain: Tau2Domain,
  env: Environment,
  messages: EpisodeMessage[],
  toolCalls: ToolCallRecord[],
  onError: () => void,
): UserToolbox | undefined {
  const tools = openAiUserToolSchemas(domain);
  if (!tools.length) return undefined;
  return {
    tools,
    call(name, args) {
      const id = `user_call_${toolCalls.length}`;
      const r = env.call(name, args, 'user');
      messages.push({ role: 'user', content: '', toolCalls: [{ id, name, arguments: args }] });
      messages.push({ role: 'tool', content: r.content, toolCallId: id, name, requestor: 'user' });
      toolCalls.push(
        r.ok
          ? { id, name, arguments: args, requestor: 'user', ok: true, content: r.content, result: r.result }
          : { id, name, arguments: args, requestor: 'user', ok: false, content: r.content, error: r.error },
      );
      if (!r.ok) onError();
      return { ok: r.ok, content: r.content };
    },
  };
}

/**
 * Runs one τ²-style episode: the user opens, the agent answers with messages or tool calls (executed on a fresh
 * environment of the task's initial state, with τ²'s semantics), the user may run tools on their device (telecom),
 * until the user stops or a limit is hit; then grades the final state as τ²'s evaluator does. The agent session is
 * always closed.
 */
export async function runEpisode(options: EpisodeOptions): Promise<EpisodeResult> {
  const { task, domain, user } = options;
  const maxSteps = options.maxSteps ?? 30;
  const maxErrors = options.maxErrors ?? 10;
  const env = createEnvironment(domain, { initialState: task.initial_state, semantics: options.semantics });
  const agent = session(options.agent, options.spawn);
  const messages: EpisodeMessage[] = [];
  const toolCalls: ToolCallRecord[] = [];
  let steps = 0;
  let errors = 0;
  const tools = userToolbox(domain, env, messages, toolCalls, () => errors++);
  let termination: Termination | undefined;
  let detail: string | undefined;

  const userSays = async (produce: () => string | Promise<string>): Promise<boolean> => {
    let text: string;
    try {
      text = await produce();
    } catch (err) {
      termination = 'user_error';
      detail = (err as Error).message;
      return false;
    }
    steps++;
    messages.push({ role: 'user', content: text });
    termination = endedBy(text);
    if (termination) return false;
    agent.send({ type: 'user', content: text });
    return true;
  };

  try {
    agent.send({ type: 'start', tools: openAiToolSchemas(domain), policy: domain.policy, ...options.startExtras });
    let going = await userSays(() => user.start(task, tools));
    while (going) {
      if (steps >= maxSteps) {
        termination = 'max_steps';
        break;
      }
      let reply: AgentMessage;
      try {
        reply = await agent.next();
      } catch (err) {
        termination = 'agent_error';
        detail = (err as Error).message;
        break;
      }
      steps++;
      if (reply.type === 'message') {
        messages.push({ role: 'assistant', content: reply.content });
        if (steps >= maxSteps) {
          termination = 'max_steps';
          break;
        }
        going = await userSays(() => user.reply(messages, task, tools));
        continue;
      }
      messages.push({
        role: 'assistant',
        content: '',
        toolCalls: reply.calls.map(({ rawArguments: _, ...made }) => made),
      });
      for (const call of reply.calls) {
        const r = env.call(call.name, call.rawArguments ?? call.arguments);
        const { rawArguments, ...made } = call;
        const record: ToolCallRecord = r.ok
          ? { ...made, ok: true, content: r.content, result: r.result }
          : { ...made, ok: false, content: r.content, error: r.error };
        // The reward replays exactly what ran; kept out of episode.json (`arguments` holds the same, floats boxed).
        if (rawArguments) Object.defineProperty(record, 'rawArguments', { value: rawArguments, enumerable: false });
        toolCalls.push(record);
        messages.push({ role: 'tool', content: r.content, toolCallId: call.id, name: call.name });
        agent.send({
          type: 'tool_result',
          id: call.id,
          name: call.name,
          content: r.content,
          ...(r.ok ? {} : { error: true }),
        });
        if (!r.ok) errors++;
      }
      if (errors > maxErrors) {
        termination = 'too_many_errors';
        break;
      }
    }
  } finally {
    await agent.close().catch(() => {});
  }

  const ended: Termination = termination ?? 'agent_error';
  const rewardDetail = computeReward({ domain, task, toolCalls, messages, semantics: options.semantics });
  const reward = GRADED.has(ended) ? rewardDetail.reward : 0;
  return { messages, toolCalls, reward, rewardDetail, info: { termination: ended, steps, errors, detail } };
}
