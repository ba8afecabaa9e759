import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { EpisodeResult } from '../../src/tau2/index.js';
import { plainJson } from '../../src/tau2/index.js';
import { repoRoot, tau2Dir } from './data.js';

/** τ²-bench's reference code (v1.0.1) beside the checkout, and its shims (see its README). */
export const referenceDir = path.join(tau2Dir, 'reference');

/** Why τ²'s reference cannot run here (no python3, no pydantic), or null when it can. */
export function referenceUnavailable(): string | null {
  const r = spawnSync('python3', ['-c', 'import pydantic, sys; sys.exit(0 if pydantic.VERSION >= "2" else 3)'], {
    encoding: 'utf8',
  });
  if (r.error) return `python3 is not available (${r.error.message})`;
  if (r.status === 3) return 'pydantic 2 is not installed for python3';
  if (r.status !== 0) return `python3 cannot import pydantic: ${(r.stderr || '').trim().split('\n').at(-1)}`;
  return null;
}

export interface RefCall {
  name: string;
  /** The arguments as JSON text (Python's json.loads reads them; heldout's pyJsonParse the same). */
  args: string;
  requestor?: 'assistant' | 'user';
}

export interface RefRequest {
  domain: string;
  initial_state?: unknown;
  calls: RefCall[];
  assertions?: unknown[];
  /** Also recompute the hash with τ²'s own get_db_hash(). */
  verify?: boolean;
}

/** A trajectory message as τ²'s data model has it. */
export interface RefMessage {
  role: 'assistant' | 'user' | 'tool';
  content?: string | null;
  tool_calls?: { id: string; name: string; arguments: unknown; requestor: 'assistant' | 'user' }[];
  id?: string;
  requestor?: 'assistant' | 'user';
  error?: boolean;
}

export interface RefReward {
  reward: number;
  db_match: boolean | null;
  env_assertions: boolean[];
  action: number;
  communicate: number;
  driver_error?: string;
}

export interface RefResult {
  id: number;
  init_error?: string;
  driver_error?: string;
  results?: { error: boolean; content: string; changed: Record<string, string | null> }[];
  hash?: string;
  user_hash?: string | null;
  verified?: boolean;
  assertions?: (boolean | string)[];
}

/**
 * One long-lived Python process running τ²'s own code (test/tau2/tau2_driver.py): requests are written as they
 * come and answered in order, so the Python side works while heldout's side runs the same trajectories.
 */
export class Tau2Reference {
  private readonly child: ChildProcess;
  private readonly waiting: ((r: any) => void)[] = [];
  private readonly dataDir = mkdtempSync(path.join(tmpdir(), 'tau2-data-'));
  private next = 0;
  private stderr = '';

  constructor() {
    this.child = spawn('python3', [path.join(repoRoot, 'test/tau2/tau2_driver.py')], {
      env: {
        ...process.env,
        PYTHONPATH: path.join(referenceDir, 'shims'),
        TAU2_DATA_DIR: this.dataDir,
        HELDOUT_TAU2_DATA: tau2Dir,
        PYTHONWARNINGS: 'ignore',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.waiting.shift()?.(JSON.parse(line)));
    this.child.on('close', (code) => {
      for (const w of this.waiting.splice(0))
        w({ id: -1, driver_error: `τ² driver exited (${code}): ${this.stderr.slice(-1500)}` });
    });
  }

  /** τ²'s reward of a trajectory (its own evaluators over the task's reward basis). */
  reward(domain: string, task: unknown, messages: RefMessage[]): Promise<RefReward> {
    return this.send({ op: 'reward', domain, task, messages }) as Promise<RefReward>;
  }

  /** The records τ²'s gold replay of a task changes, the gold calls it refuses, and the texts of `keys` after it. */
  gold(
    domain: string,
    task: unknown,
    keys: string[] = [],
  ): Promise<{
    changed: Record<string, string | null>;
    refused: string[];
    texts: Record<string, string | null>;
    driver_error?: string;
  }> {
    return this.send({ op: 'gold', domain, task, keys }) as never;
  }

  /** Sends one trajectory; resolves with τ²'s answer for it. */
  run(req: RefRequest): Promise<RefResult> {
    return this.send(req) as Promise<RefResult>;
  }

  private send(req: object): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      // Floats stay floats: a task's `2.0` must reach τ² as Python's float.
      this.child.stdin!.write(`${plainJson({ id, ...req })}\n`);
    });
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    await new Promise((r) => (this.child.exitCode === null ? this.child.once('close', r) : r(null)));
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** An episode's trajectory in τ²'s message model (the tool messages' error flags from the calls). */
export function tau2Messages(episode: Pick<EpisodeResult, 'messages' | 'toolCalls'>): RefMessage[] {
  const failed = new Set(episode.toolCalls.filter((c) => !c.ok).map((c) => c.id));
  return episode.messages.map((m) => {
    if (m.role === 'tool')
      return {
        role: 'tool',
        id: m.toolCallId,
        content: m.content,
        requestor: m.requestor ?? 'assistant',
        error: failed.has(m.toolCallId ?? ''),
      };
    const requestor = m.role === 'user' ? 'user' : 'assistant';
    return {
      role: m.role,
      content: m.content || null,
      ...(m.toolCalls?.length
        ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, requestor })) }
        : {}),
    } as RefMessage;
  });
}
