/**
 * The tool-agent family's case run (DESIGN §1, §5): the delivery's entry command runs in the ordinary sandbox
 * under a stdio bridge that connects to a Unix socket the evaluator owns; the accepted connection is the agent
 * session of a τ² episode (tools, database, user simulator and reward stay on the evaluator's side). The episode is
 * written to `episode.json` in the case's output directory, which the commission's rubric then grades
 * (`json-equals` on `reward` = 1, so pass^k over trials is τ-bench's).
 */

import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CaseRef } from '../../../commission/index.js';
import type { SandboxBackend, SandboxSpec } from '../../../sandbox/index.js';
import {
  AgentProtocolError,
  type AgentSession,
  type EpisodeResult,
  llmUser,
  loadDomain,
  parseTau2Json,
  plainJson,
  replayGold,
  runEpisode,
  scriptedUser,
  streamAgent,
  type Tau2Domain,
  type Tau2Task,
  type UserSimulator,
} from '../../../tau2/index.js';
import { shQuote } from '../../../util/index.js';
import { stoppedGrade } from '../../grading-context.js';
import type { CaseRun, CaseRunContext } from '../types.js';
import { writeBridge } from './bridge.js';

/** Where the episode directory (bridge + socket, nothing else) appears inside a docker sandbox. */
export const EPISODE_MOUNT = '/episode';
export const EPISODE_FILE = 'episode.json';
export const ORACLE_HINTS_WARNING =
  'toolAgent.oracleHints is on: the gold actions were sent to the agent (a test-harness run, not an evaluation)';

/** What `episode.json` holds. */
export interface EpisodeRecord {
  reward: number;
  rewardDetail: EpisodeResult['rewardDetail'];
  messages: EpisodeResult['messages'];
  toolCalls: EpisodeResult['toolCalls'];
  info: EpisodeResult['info'] & {
    taskId: string;
    domain: string;
    user: 'scripted' | 'llm';
    oracleHints: boolean;
    /** The semantics the domain's tools ran under (`toolAgent.semantics`). */
    semantics: string;
    /** What the sandbox was given beyond the ordinary delivery/case/output mounts: the bridge and its socket. */
    bridge: {
      command: string;
      mounts: { hostPath: string; containerPath: string; readOnly: boolean; files: string[] }[];
    };
  };
}

const domains = new Map<string, Promise<Tau2Domain>>();
/** τ² domains are loaded once per process and directory. */
function domainAt(dir: string): Promise<Tau2Domain> {
  let d = domains.get(dir);
  if (!d) {
    d = Promise.resolve().then(() => loadDomain(dir));
    d.catch(() => domains.delete(dir));
    domains.set(dir, d);
  }
  return d;
}

/**
 * The τ² task of a case (its whole truth.json, read as Python reads it, so a `2.0` stays a float), or why there is
 * none.
 */
export function taskOf(caseRef: Pick<CaseRef, 'truth'> & Partial<Pick<CaseRef, 'dir'>>): Tau2Task | string {
  const file = caseRef.dir ? path.join(caseRef.dir, 'truth.json') : undefined;
  const exact = file && caseRef.truth && existsSync(file) ? parseTau2Json(readFileSync(file, 'utf8')) : null;
  const t = (exact ?? caseRef.truth) as Partial<Tau2Task> | null;
  if (!t) return 'the case has no truth.json (a tool-agent case needs the τ² task there)';
  if (t.id === undefined || !t.user_scenario) return 'truth.json is not a τ² task (no id or user_scenario)';
  return { ...t, id: String(t.id) } as Tau2Task;
}

/** The start-message fields that leak the gold to the test oracle; only sent under `toolAgent.oracleHints`. */
export function oracleHints(task: Tau2Task): Record<string, unknown> {
  return {
    oracle_actions: (task.evaluation_criteria?.actions ?? []).map((a) => ({
      name: a.name,
      arguments: a.arguments,
      requestor: a.requestor ?? 'assistant',
    })),
    oracle_communicate: task.evaluation_criteria?.communicate_info ?? [],
  };
}

/** The bridge command and mount for an episode directory, as the given backend sees it. */
export function bridgeSpec(
  spec: SandboxSpec,
  backend: Pick<SandboxBackend, 'mountPoint'>,
  episodeDir: string,
): Pick<SandboxSpec, 'command' | 'mounts'> {
  const mount = { hostPath: episodeDir, containerPath: EPISODE_MOUNT, readOnly: true };
  const inside = backend.mountPoint(mount);
  return {
    command: `node ${shQuote(`${inside}/bridge.mjs`)} ${shQuote(`${inside}/agent.sock`)} -- ${shQuote(spec.command)}`,
    mounts: [...(spec.mounts ?? []), mount],
  };
}

/** A loopback TCP → Unix-socket relay so an HTTP client on the host reaches the gateway socket. */
async function loopbackRelay(socketPath: string): Promise<{ port: number; close(): Promise<void> }> {
  const conns = new Set<net.Socket>();
  const server = net.createServer((c) => {
    const u = net.connect(socketPath);
    conns.add(c).add(u);
    const drop = () => {
      c.destroy();
      u.destroy();
      conns.delete(c);
      conns.delete(u);
    };
    c.on('error', drop).on('close', drop);
    u.on('error', drop).on('close', drop);
    c.pipe(u).pipe(c);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of conns) c.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A session for an agent that never connected: every reply is that failure. */
function absentAgent(reason: string): AgentSession {
  return {
    send() {},
    next: () => Promise.reject(new AgentProtocolError(reason)),
    close: async () => {},
  };
}

/**
 * Runs one tool-agent case × trial: the delivery in the sandbox under the stdio bridge, a τ² episode against it on
 * the evaluator's side, then `episode.json` into the case's output directory. Resolves with the sandbox's
 * execution for the ordinary grading, or with an `unscored` / `infra-error` grade when no honest reward exists
 * (the LLM user has no model, or the user simulator failed). Never mounts anything of the case but its input:
 * the socket directory holds only the bridge and the socket.
 */
export async function runToolAgentTrial(input: CaseRunContext): Promise<CaseRun> {
  const { backend, spec, commission, caseRef, split, trial } = input;
  const stop = (status: 'unscored' | 'infra-error', reason: string): CaseRun => ({
    grade: stoppedGrade(caseRef, split, trial, status, reason),
  });
  const cfg = commission.config;
  const ta = cfg.toolAgent;
  if (!ta) return stop('infra-error', 'tool-agent commission without toolAgent');
  const task = taskOf(caseRef);
  if (typeof task === 'string') return stop('infra-error', task);
  const domainDir = path.resolve(commission.dir, ta.domain);
  let domain: Tau2Domain;
  try {
    domain = await domainAt(domainDir);
  } catch (err) {
    return stop('infra-error', `τ² domain ${domainDir}: ${(err as Error).message}`);
  }
  if (ta.goldReplay === 'strict') {
    const { refused } = replayGold(domain, task, ta.semantics);
    if (refused.length) {
      const list = refused.map((r) => `${r.actionId} ${r.name}${r.write ? ' (write)' : ''}: ${r.error}`).join('; ');
      return stop(
        'unscored',
        `toolAgent.goldReplay is strict and the domain refuses ${refused.length} gold call(s), so the gold state cannot be trusted: ${list}`,
      );
    }
  }

  let user: UserSimulator;
  let relay: Awaited<ReturnType<typeof loopbackRelay>> | null = null;
  if (ta.user === 'llm') {
    const role = input.gateway.roles.user;
    if (!role.baseURL || !role.model) {
      return stop(
        'unscored',
        'toolAgent.user is llm but the gateway has no model for its user role (set HELDOUT_USER_BASE_URL, HELDOUT_USER_API_KEY, HELDOUT_USER_MODEL or OPENAI_*): no reward without a user simulator',
      );
    }
    const reg = input.gateway.registerCase({
      caseId: `${input.caseKey}#user`,
      trial,
      role: 'user',
      budgets: { calls: ta.maxSteps + 1, tokens: null, wallSeconds: cfg.budgets.wallSeconds },
      ...(input.run ? { run: input.run } : {}),
    });
    relay = await loopbackRelay(input.gateway.socketPath);
    user = llmUser({ baseURL: `http://127.0.0.1:${relay.port}/v1`, apiKey: reg.token, model: role.model });
  } else {
    user = scriptedUser();
  }

  const episodeDir = mkdtempSync(path.join(os.tmpdir(), 'heldout-episode-'));
  const server = net.createServer();
  try {
    // The sandbox user (uid 65534) must traverse the directory, read the bridge and connect to the socket.
    chmodSync(episodeDir, 0o777);
    writeBridge(episodeDir);
    const socketPath = path.join(episodeDir, 'agent.sock');
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
    chmodSync(socketPath, 0o666);
    // What the sandbox can see of the evaluator: listed now, while the socket file exists.
    const mountedFiles = readdirSync(episodeDir).sort();
    const connected = new Promise<net.Socket>((resolve) => server.once('connection', resolve));

    const bridge = bridgeSpec(spec, backend, episodeDir);
    const running = backend.run({ ...spec, ...bridge });
    // A sandbox that fails to run (infra) rejects here, before any user-simulator call is spent.
    const socket = await Promise.race([connected, running.then(() => null)]);
    // One connection per episode: nobody else may attach to this agent's socket.
    server.close();

    const hints = ta.oracleHints;
    const episode = await runEpisode({
      task,
      domain,
      agent: socket
        ? streamAgent(socket, { replyTimeoutMs: cfg.budgets.wallSeconds * 1000 })
        : absentAgent('the agent never connected: the sandbox process exited before the bridge reached the socket'),
      user,
      maxSteps: ta.maxSteps,
      maxErrors: ta.maxErrors,
      startExtras: hints ? oracleHints(task) : undefined,
      semantics: ta.semantics,
    });
    // The bridge stops the agent within its grace after `end`; the sandbox's wall clock bounds the rest.
    const execution = await running;
    socket?.destroy();

    const record: EpisodeRecord = {
      reward: episode.reward,
      rewardDetail: episode.rewardDetail,
      messages: episode.messages,
      toolCalls: episode.toolCalls,
      info: {
        ...episode.info,
        taskId: task.id,
        domain: domain.name,
        user: ta.user,
        oracleHints: hints,
        semantics: ta.semantics,
        bridge: {
          command: bridge.command,
          mounts: (bridge.mounts ?? [])
            .filter((m) => m.hostPath === episodeDir)
            .map((m) => ({ ...m, files: mountedFiles })),
        },
      },
    };
    // The delivery may have left a symlink named episode.json in its output: replace it, never write through it.
    const episodeFile = path.join(spec.outputDir, EPISODE_FILE);
    rmSync(episodeFile, { force: true });
    writeFileSync(episodeFile, `${plainJson(record, 2)}\n`, { flag: 'wx' });

    // A reward_basis component this evaluator cannot score (NL_ASSERTION needs a judge) leaves no honest reward:
    // the product of the rest would overstate it.
    if (episode.rewardDetail.unscored.length > 0)
      return stop(
        'unscored',
        `reward_basis includes ${episode.rewardDetail.unscored.join(', ')}, which needs a judge heldout does not have here: no reward`,
      );
    if (episode.info.termination === 'user_error') {
      return stop(
        'unscored',
        `the user simulator failed: ${episode.info.detail ?? 'no detail'} (no reward without a user)`,
      );
    }
    const outputs = execution.outputs.includes(EPISODE_FILE) ? execution.outputs : [...execution.outputs, EPISODE_FILE];
    if (!hints) return { execution: { ...execution, outputs } };
    return {
      execution: {
        ...execution,
        outputs,
        stderr: `${execution.stderr}${execution.stderr.endsWith('\n') || !execution.stderr ? '' : '\n'}heldout: ${ORACLE_HINTS_WARNING}\n`,
        weakerIsolation: [...execution.weakerIsolation, ORACLE_HINTS_WARNING],
      },
    };
  } finally {
    server.close();
    await relay?.close();
    rmSync(episodeDir, { recursive: true, force: true });
  }
}
