import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type CheckItem, importTypeScript } from '../commission/index.js';
import type { Execution } from '../sandbox/index.js';
import { sandboxTempDir } from '../util/index.js';
import { getPath, jsonEqual, show } from './json-path.js';
import { formatSchemaErrors, validateJsonSchema } from './json-schema.js';
import { copyOutputs, insideDir, readOutputFile } from './outputs.js';

/** A check's verdict: `score` is the share in [0, 1] of its points; `evidence` says what was expected vs found. */
export interface CheckResult {
  score: number;
  evidence: string;
}

/** What an evaluator command returns. `outputDir` is where its writes to `{output}` landed (reward.txt/json). */
export interface CommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  outputDir?: string;
}

/**
 * Runs an evaluator command (a `command` check, the μ_reg regression suite) in a sandbox the caller owns.
 * `mounts` maps placeholders to host directories: `{output}` (writable, a copy of the case outputs) and `{tree}`
 * (the patched starter tree); the runner substitutes the paths where it mounts them.
 */
export type CommandRunner = (
  command: string,
  options: { mounts: { output: string; tree?: string }; timeoutSeconds: number; image?: string },
) => Promise<CommandResult>;

/** What a `function` check module receives. */
export interface CheckFunctionContext {
  caseId: string;
  split: 'dev' | 'heldout';
  /** The case's input.md text. */
  input: string;
  truth: Record<string, unknown> | null;
  outputDir: string;
  readJson(relPath: string): unknown;
  readText(relPath: string): string;
  execution: Execution | null;
}

export interface CheckContext {
  caseId: string;
  split: 'dev' | 'heldout';
  input: string;
  truth: Record<string, unknown> | null;
  outputDir: string;
  execution: Execution | null;
  /** The commission's checks/ directory, for `function` checks. */
  checksDir: string | null;
  /** The patched starter tree of an editing case, mounted at `{tree}` for commands. */
  treeDir?: string | null;
  runCommand?: CommandRunner;
}

/** A fault of the evaluator's own setup (missing truth path, check module, runner): never the delivery's fault. */
export class CheckSetupError extends Error {
  override name = 'CheckSetupError';
}

/** Substitutes `{name}` placeholders; unknown ones are left as they are. */
export function resolvePlaceholders(command: string, values: Record<string, string | undefined>): string {
  return command.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
}

class OutputError extends Error {}

function readOutput(outputDir: string, rel: string): string {
  const read = readOutputFile(outputDir, rel);
  if (!read.ok) throw new OutputError(read.reason);
  return read.bytes.toString('utf8');
}

function readOutputJson(outputDir: string, rel: string): unknown {
  const text = readOutput(outputDir, rel);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new OutputError(`${rel} is not valid JSON (${(err as Error).message})`);
  }
}

function expectedOf(
  item: { expected: { value: unknown } | { truth: string } },
  truth: Record<string, unknown> | null,
): unknown {
  if ('value' in item.expected) return item.expected.value;
  const p = item.expected.truth;
  if (!truth) throw new CheckSetupError(`the case has no truth.json (needed for truth path ${p})`);
  const got = getPath(truth, p);
  if (!got.found) throw new CheckSetupError(`truth.json has no path ${p}`);
  return got.value;
}

function valueAt(outputDir: string, file: string, dotted: string): unknown {
  const got = getPath(readOutputJson(outputDir, file), dotted);
  if (!got.found) throw new OutputError(`${file} has no ${dotted || '(root)'}`);
  return got.value;
}

const loc = (file: string, p: string) => (p ? `${file}:${p}` : file);

/**
 * Runs one deterministic check item against a case's outputs. Resolves to a score in [0, 1] with evidence; a
 * missing or unreadable output scores 0. Rejects with `CheckSetupError` only for faults of the evaluator's setup.
 */
export async function runCheck(item: CheckItem, ctx: CheckContext): Promise<CheckResult> {
  try {
    return await runCheckInner(item, ctx);
  } catch (err) {
    if (err instanceof OutputError) return { score: 0, evidence: err.message };
    throw err;
  }
}

async function runCheckInner(item: CheckItem, ctx: CheckContext): Promise<CheckResult> {
  switch (item.check) {
    case 'exists': {
      const p = insideDir(ctx.outputDir, item.file);
      const ok = p !== null && existsSync(p);
      return { score: ok ? 1 : 0, evidence: ok ? `${item.file} exists` : `${item.file} is missing` };
    }
    case 'json-equals': {
      const expected = expectedOf(item, ctx.truth);
      const found = valueAt(ctx.outputDir, item.file, item.path);
      const ok = jsonEqual(found, expected, item.loose);
      return {
        score: ok ? 1 : 0,
        evidence: `${loc(item.file, item.path)}: expected ${show(expected)}, found ${show(found)}`,
      };
    }
    case 'json-contains': {
      const expected = expectedOf(item, ctx.truth);
      const found = valueAt(ctx.outputDir, item.file, item.path);
      return containsScore(loc(item.file, item.path), expected, found);
    }
    case 'regex': {
      const text = readOutput(ctx.outputDir, item.file);
      let re: RegExp;
      try {
        re = new RegExp(item.pattern, item.flags);
      } catch (err) {
        throw new CheckSetupError(`invalid pattern /${item.pattern}/${item.flags}: ${(err as Error).message}`);
      }
      const m = re.exec(text);
      const ok = item.negate ? m === null : m !== null;
      const what = m ? `matched ${show(m[0], 60)}` : 'no match';
      return {
        score: ok ? 1 : 0,
        evidence: `${item.file} /${item.pattern}/${item.flags}${item.negate ? ' (must not match)' : ''}: ${what}`,
      };
    }
    case 'number': {
      const expected = Number(expectedOf(item, ctx.truth));
      if (!Number.isFinite(expected))
        throw new CheckSetupError(`expected value of ${loc(item.file, item.path)} is not a number`);
      const raw = valueAt(ctx.outputDir, item.file, item.path);
      const found =
        typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
      if (!Number.isFinite(found))
        return {
          score: 0,
          evidence: `${loc(item.file, item.path)}: expected ${expected}, found ${show(raw)} (not a number)`,
        };
      const ok = Math.abs(found - expected) <= item.tolerance;
      return {
        score: ok ? 1 : 0,
        evidence: `${loc(item.file, item.path)}: expected ${expected} ± ${item.tolerance}, found ${found}`,
      };
    }
    case 'schema': {
      const errors = validateJsonSchema(item.schema, readOutputJson(ctx.outputDir, item.file));
      if (errors.some((e) => e.path === '(schema)')) throw new CheckSetupError(formatSchemaErrors(errors));
      return {
        score: errors.length === 0 ? 1 : 0,
        evidence:
          errors.length === 0 ? `${item.file} satisfies the schema` : `${item.file}: ${formatSchemaErrors(errors)}`,
      };
    }
    case 'reward':
      return rewardScore(item.file, item.key, readOutputJson(ctx.outputDir, item.file));
    case 'command':
      return commandCheck(item, ctx);
    case 'function':
      return functionCheck(item, ctx);
  }
}

/**
 * A reward file's share of its points (Harbor's reward.json: a flat object of numbers). With `key`, that key's value;
 * without, `reward` when present, else the only key, else the mean of all keys. A value outside [0, 1] is the
 * evaluator's setup fault (`CheckSetupError`), never clamped into full marks or 0.
 */
export function rewardScore(file: string, key: string | undefined, doc: unknown): CheckResult {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    return { score: 0, evidence: `${file} is not an object of rewards (found ${show(doc)})` };
  const rewards = doc as Record<string, unknown>;
  const keys = Object.keys(rewards);
  let value: unknown;
  let what: string;
  if (key !== undefined) {
    if (!Object.hasOwn(rewards, key))
      return { score: 0, evidence: `${file} has no reward ${key} (keys: ${keys.join(', ') || 'none'})` };
    [value, what] = [rewards[key], key];
  } else if (Object.hasOwn(rewards, 'reward') || keys.length === 1) {
    what = Object.hasOwn(rewards, 'reward') ? 'reward' : keys[0]!;
    value = rewards[what];
  } else {
    const nums = keys.map((k) => rewards[k]);
    if (nums.length === 0 || !nums.every((n) => typeof n === 'number'))
      return { score: 0, evidence: `${file} holds no numeric rewards (found ${show(doc)})` };
    value = (nums as number[]).reduce((a, b) => a + b, 0) / nums.length;
    what = `mean of ${keys.join(', ')}`;
  }
  if (typeof value !== 'number' || !Number.isFinite(value))
    return { score: 0, evidence: `${file} ${what} is not a number (found ${show(value)})` };
  // A reward outside [0, 1] is on a scale heldout does not know (a count, a percentage): never clamped into marks.
  if (value < 0 || value > 1)
    throw new CheckSetupError(`${file} ${what} = ${value} is outside [0, 1]: no share of the points to grade`);
  return { score: value, evidence: `${file} ${what} = ${value}` };
}

function containsScore(where: string, expected: unknown, found: unknown): CheckResult {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (found === null || typeof found !== 'object' || Array.isArray(found)) {
      return { score: 0, evidence: `${where}: expected an object containing ${show(expected)}, found ${show(found)}` };
    }
    const keys = Object.keys(expected);
    const missing = keys.filter((k) => !jsonEqual((found as any)[k], (expected as any)[k], true));
    const score = keys.length === 0 ? 1 : (keys.length - missing.length) / keys.length;
    return {
      score,
      evidence: `${where}: ${keys.length - missing.length}/${keys.length} expected fields match${missing.length ? `; differing: ${missing.slice(0, 5).join(', ')}` : ''}`,
    };
  }
  const wanted = Array.isArray(expected) ? expected : [expected];
  if (wanted.length === 0) return { score: 1, evidence: `${where}: nothing expected` };
  const has = (e: unknown) => {
    if (typeof found === 'string')
      return typeof e === 'string' || typeof e === 'number'
        ? found.toLowerCase().includes(String(e).toLowerCase())
        : false;
    if (Array.isArray(found)) return found.some((f) => jsonEqual(f, e, true));
    return false;
  };
  if (typeof found !== 'string' && !Array.isArray(found)) {
    return {
      score: 0,
      evidence: `${where}: expected an array or string containing ${show(wanted)}, found ${show(found)}`,
    };
  }
  const missing = wanted.filter((e) => !has(e));
  const n = wanted.length - missing.length;
  return {
    score: n / wanted.length,
    evidence: `${where}: ${n}/${wanted.length} expected found${missing.length ? `; missing ${show(missing, 100)}` : ''}`,
  };
}

async function commandCheck(item: Extract<CheckItem, { check: 'command' }>, ctx: CheckContext): Promise<CheckResult> {
  if (!ctx.runCommand)
    throw new CheckSetupError('a command check needs a command runner (none was given to the grader)');
  // The command may write into {output}: give it a copy so the case's own outputs stay as the delivery left them.
  const scratch = sandboxTempDir('heldout-check-');
  try {
    // A reward file is the verifier's to write: one the delivery left in its outputs is not carried over.
    copyOutputs(ctx.outputDir, scratch, item.score === 'reward' ? REWARD_FILES : undefined);
    const mounts = { output: scratch, ...(ctx.treeDir ? { tree: ctx.treeDir } : {}) };
    const r = await ctx.runCommand(item.run, { mounts, timeoutSeconds: item.timeoutSeconds, image: item.image });
    const tail = lastLines(`${r.stdout}\n${r.stderr}`, 3);
    if (item.score === 'exit') {
      return {
        score: r.exitCode === 0 ? 1 : 0,
        evidence: `\`${item.run}\` exited ${r.exitCode ?? 'by a signal'}${tail ? `: ${tail}` : ''}`,
      };
    }
    const reward = readReward(r.outputDir ?? scratch);
    if (reward === null)
      return { score: 0, evidence: `\`${item.run}\` (exit ${r.exitCode}) wrote no readable reward.txt or reward.json` };
    return { score: Math.min(1, Math.max(0, reward)), evidence: `\`${item.run}\` reward ${reward}` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const REWARD_FILES: ReadonlySet<string> = new Set(['reward.txt', 'reward.json']);

/** A reward from `reward.txt` (a number) or `reward.json` (`{reward}`), or null. */
export function readReward(dir: string): number | null {
  const txt = path.join(dir, 'reward.txt');
  if (existsSync(txt)) {
    const s = readFileSync(txt, 'utf8').trim();
    const n = s === '' ? Number.NaN : Number(s);
    if (Number.isFinite(n)) return n;
  }
  const json = path.join(dir, 'reward.json');
  if (existsSync(json)) {
    try {
      const n = Number((JSON.parse(readFileSync(json, 'utf8')) as { reward?: unknown }).reward);
      if (Number.isFinite(n)) return n;
    } catch {
      return null;
    }
  }
  return null;
}

const moduleCache = new Map<string, Promise<unknown>>();

async function functionCheck(item: Extract<CheckItem, { check: 'function' }>, ctx: CheckContext): Promise<CheckResult> {
  if (!ctx.checksDir) throw new CheckSetupError(`checks/${item.module}: the commission has no checks/ directory`);
  const file = path.join(ctx.checksDir, item.module);
  if (!existsSync(file)) throw new CheckSetupError(`checks/${item.module} not found`);
  let loading = moduleCache.get(file);
  if (!loading) {
    loading = importTypeScript(file);
    moduleCache.set(file, loading);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await loading) as Record<string, unknown>;
  } catch (err) {
    moduleCache.delete(file);
    throw new CheckSetupError(`checks/${item.module} cannot be imported: ${(err as Error).message}`);
  }
  const fn = mod[item.export];
  if (typeof fn !== 'function')
    throw new CheckSetupError(`checks/${item.module} has no function export ${item.export}`);
  const fctx: CheckFunctionContext = {
    caseId: ctx.caseId,
    split: ctx.split,
    input: ctx.input,
    truth: ctx.truth,
    outputDir: ctx.outputDir,
    readJson: (rel) => readOutputJson(ctx.outputDir, rel),
    readText: (rel) => readOutput(ctx.outputDir, rel),
    execution: ctx.execution,
  };
  let out: unknown;
  try {
    out = await fn(fctx);
  } catch (err) {
    // The function read an output that is missing or broken: that is the delivery's fault.
    if (err instanceof OutputError) return { score: 0, evidence: err.message };
    throw new CheckSetupError(`checks/${item.module} threw: ${(err as Error).message}`);
  }
  const o = out as { score?: unknown; evidence?: unknown } | null;
  const score = typeof o?.score === 'boolean' ? Number(o.score) : Number(o?.score);
  if (!Number.isFinite(score)) throw new CheckSetupError(`checks/${item.module} returned no numeric score`);
  return {
    score: Math.min(1, Math.max(0, score)),
    evidence: String(o?.evidence ?? '') || `checks/${item.module}: ${score}`,
  };
}

/** The last `n` non-empty lines of a command's output on one line (` | `), at most 300 characters. */
export function lastLines(text: string, n: number): string {
  return text.trim().split('\n').filter(Boolean).slice(-n).join(' | ').slice(0, 300);
}
