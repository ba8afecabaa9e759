/**
 * What a Harbor verifier's run means (pure). Harbor reads /logs/verifier/reward.json (its numbers; reward.txt
 * merged in as `reward` where it has none) first, then reward.txt (one number, key `reward`), and ignores test.sh's
 * exit code. The score is the commission's score keys; the other numbers are recorded. heldout grades the delivery
 * only on a verifier that ran: one that wrote no reward, timed out, lacked its interpreter, or wrote a partial
 * reward while its own scripts reported a missing command, its test framework missing or no network, could not
 * judge the delivery, so the case is an infra-error carrying the verifier's output — never the delivery's 0.
 */

export type Rewards = Record<string, number>;

/** What the verifier left and how it ended. */
export interface VerifierRun {
  exitCode: number | null;
  timedOut: boolean;
  timeoutSeconds: number;
  /** test-stdout.txt (Harbor's redirect of test.sh's stdout and stderr) and anything the exec itself printed. */
  output: string;
  /** The verifier's other log files (a build.log its script redirected into), read only for missing pieces. */
  otherLogs?: string;
  rewardJson: string | null;
  rewardTxt: string | null;
  /** test.sh's `#!` interpreter when the image does not have it. */
  missingInterpreter: string | null;
}

export type Verdict =
  | { kind: 'reward'; rewards: Rewards; source: RewardSource; warnings: string[]; dropped: string[] }
  | { kind: 'infra'; reason: string };

/** The last lines of the verifier's output, for a reason or the evidence. */
export function outputTail(text: string, lines = 12, chars = 1500): string {
  const t = text.replace(/\r/g, '').trimEnd().split('\n').slice(-lines).join('\n');
  return (t.length > chars ? t.slice(-chars) : t) || '(no output)';
}

/** Where a verifier's rewards came from: Harbor merges reward.txt into a reward.json that has no `reward`. */
export type RewardSource = 'reward.json' | 'reward.txt' | 'reward.json + reward.txt';

/** reward.txt as Harbor reads it (Python's float() of the whole text); a string is why it is not a number. */
function parseRewardTxt(txt: string): number | string {
  const t = txt.trim();
  if (t === '') return 'reward.txt is empty';
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i.test(t))
    return `reward.txt is not a number: ${JSON.stringify(t.slice(0, 40))}`;
  const n = Number(t);
  return Number.isFinite(n) ? n : `reward.txt is not a finite number: ${t}`;
}

/**
 * Parses reward.json / reward.txt by Harbor's rules (its verifier.py): reward.json first, keeping its numbers and
 * dropping every other value (strings, booleans, lists); where it has no numeric `reward`, reward.txt's number is
 * merged in as `reward`. Else reward.txt alone. A string is why the files hold no reward; `dropped` names the keys
 * left out.
 */
export function parseRewards(
  json: string | null,
  txt: string | null,
): { rewards: Rewards; source: RewardSource; dropped: string[] } | string | null {
  if (json !== null) {
    if (json.trim() === '') return 'reward.json is empty';
    let doc: unknown;
    try {
      doc = JSON.parse(json);
    } catch (err) {
      return `reward.json is not JSON (${(err as Error).message})`;
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return 'reward.json is not an object of rewards';
    const entries = Object.entries(doc as Record<string, unknown>);
    const numeric = entries.filter(([, v]) => typeof v === 'number' && Number.isFinite(v)) as [string, number][];
    const dropped = entries.filter(([, v]) => typeof v !== 'number' || !Number.isFinite(v)).map(([k]) => k);
    const rewards: Rewards = Object.fromEntries(numeric);
    let source: RewardSource = 'reward.json';
    if (!Object.hasOwn(rewards, 'reward') && txt !== null) {
      const n = parseRewardTxt(txt);
      if (typeof n === 'number') {
        rewards.reward = n;
        source = 'reward.json + reward.txt';
      }
    }
    if (Object.keys(rewards).length === 0)
      return entries.length === 0
        ? 'reward.json holds no reward'
        : `reward.json holds no number (${dropped.join(', ')} ${dropped.length === 1 ? 'is not a number' : 'are not numbers'}, and Harbor drops them)`;
    return { rewards, source, dropped };
  }
  if (txt !== null) {
    const n = parseRewardTxt(txt);
    return typeof n === 'number' ? { rewards: { reward: n }, source: 'reward.txt', dropped: [] } : n;
  }
  return null;
}

/**
 * The reward keys that are the score: the ones the commission declares (its rubric's), else `reward` when the
 * verifier wrote it, else every key it wrote (a multi-reward verifier). The other numbers are only recorded.
 */
export function scoreKeys(rewards: Rewards, declared: readonly string[]): string[] {
  if (declared.length) return [...declared];
  return Object.hasOwn(rewards, 'reward') ? ['reward'] : Object.keys(rewards);
}

/** True when every score key is at its full value (1 or more): what the oracle must reach to calibrate. */
export function fullScore(rewards: Rewards, declared: readonly string[]): boolean {
  const keys = scoreKeys(rewards, declared);
  return keys.length > 0 && keys.every((k) => Object.hasOwn(rewards, k) && rewards[k]! >= 1);
}

/** Why the score keys cannot be graded as a share of full marks (one absent, one outside [0, 1]), or null. */
export function scoreProblem(rewards: Rewards, declared: readonly string[], source: string): string | null {
  const keys = scoreKeys(rewards, declared);
  const absent = keys.filter((k) => !Object.hasOwn(rewards, k));
  if (absent.length)
    return `its ${source} has no ${absent.join(', ')} (the score this commission grades; it wrote ${JSON.stringify(rewards)})`;
  const out = keys.filter((k) => rewards[k]! < 0 || rewards[k]! > 1);
  if (out.length)
    return `its ${source} ${out.map((k) => `${k} = ${rewards[k]}`).join(', ')} is outside [0, 1], so it is no share of full marks (heldout never counts it as full or as 0)`;
  return null;
}

/** The pieces the verifier's own scripts report missing: commands, its test framework, the network. */
export function missingPieces(output: string): {
  commands: string[];
  files: string[];
  modules: string[];
  network: string[];
} {
  const commands = new Set<string>();
  const files = new Set<string>();
  const modules = new Set<string>();
  const network: string[] = [];
  for (const raw of output.replace(/\r/g, '').split('\n')) {
    const line = raw.trim();
    // bash: "/tests/test.sh: line 3: uvx: command not found"; dash: "/tests/test.sh: 3: uvx: not found".
    const cmd = /^\/tests\/\S+?: (?:line )?\d+: ([^:\s]+): (?:command )?not found$/.exec(line);
    if (cmd) commands.add(cmd[1]!);
    const file = /^\/tests\/\S+?: (?:line )?\d+: (\/\S+): No such file or directory$/.exec(line);
    if (file) files.add(file[1]!);
    const mod = /(?:^|: )No module named (pytest|pip)\b/.exec(line);
    if (mod) modules.add(mod[1]!);
    if (
      /Could not resolve host|Temporary failure (?:in name resolution|resolving)|Network is unreachable|Name or service not known|failed to lookup address|dns error|Failed to fetch https?:|Could not connect to \S+:(?:80|443)\b/i.test(
        line,
      ) &&
      network.length < 3
    )
      network.push(line.length > 160 ? `${line.slice(0, 157)}…` : line);
  }
  return { commands: [...commands], files: [...files], modules: [...modules], network };
}

function describe(p: ReturnType<typeof missingPieces>): string[] {
  const out: string[] = [];
  if (p.commands.length) out.push(`command${p.commands.length > 1 ? 's' : ''} not found: ${p.commands.join(', ')}`);
  if (p.modules.length) out.push(`python module${p.modules.length > 1 ? 's' : ''} missing: ${p.modules.join(', ')}`);
  if (p.network.length) out.push(`no network (${p.network.join(' | ')})`);
  if (p.files.length) out.push(`file${p.files.length > 1 ? 's' : ''} missing: ${p.files.join(', ')}`);
  return out;
}

/** The verdict on one verifier run, graded on the `declared` score keys (see `scoreKeys`); see the file comment. */
export function judgeVerifier(run: VerifierRun, declared: readonly string[] = []): Verdict {
  const tail = outputTail(run.output);
  if (run.timedOut)
    return {
      kind: 'infra',
      reason: `the verifier did not finish within its ${run.timeoutSeconds} s (Harbor: no reward); last output:\n${tail}`,
    };
  if (run.missingInterpreter)
    return {
      kind: 'infra',
      reason: `the verifier could not run: ${run.missingInterpreter} (the interpreter tests/test.sh names) is not in the image; last output:\n${tail}`,
    };
  const parsed = parseRewards(run.rewardJson, run.rewardTxt);
  const pieces = describe(missingPieces(`${run.output}\n${run.otherLogs ?? ''}`));
  if (parsed === null) {
    const why = pieces.length ? `: ${pieces.join('; ')}` : '';
    return {
      kind: 'infra',
      reason: `the verifier wrote no reward (no /logs/verifier/reward.json or reward.txt; test.sh exited ${run.exitCode ?? 'by a signal'})${why}; last output:\n${tail}`,
    };
  }
  if (typeof parsed === 'string')
    return { kind: 'infra', reason: `the verifier's reward is unreadable: ${parsed}; last output:\n${tail}` };
  const problem = scoreProblem(parsed.rewards, declared, parsed.source);
  if (problem)
    return { kind: 'infra', reason: `the verifier's reward cannot be graded: ${problem}; last output:\n${tail}` };
  if (!fullScore(parsed.rewards, declared)) {
    if (pieces.length)
      return {
        kind: 'infra',
        reason: `the verifier could not run: ${pieces.join('; ')} (its ${parsed.source} ${JSON.stringify(parsed.rewards)} does not judge the delivery); last output:\n${tail}`,
      };
    if (run.exitCode === 127)
      return {
        kind: 'infra',
        reason: `the verifier could not run: tests/test.sh exited 127 (a command it runs is missing); last output:\n${tail}`,
      };
  }
  return { kind: 'reward', rewards: parsed.rewards, source: parsed.source, warnings: pieces, dropped: parsed.dropped };
}

/** Harbor's `min_reward` gate: a number gates `reward`, an object gates each of its keys; a missing key fails. */
export function meetsMinReward(min: number | Record<string, number> | null, rewards: Rewards): boolean {
  if (min === null) return true;
  const at = (k: string) => (Object.hasOwn(rewards, k) ? rewards[k]! : Number.NEGATIVE_INFINITY);
  if (typeof min === 'number') return at('reward') >= min;
  return Object.entries(min).every(([k, v]) => at(k) >= v);
}

/**
 * A multi-step trial's reward from its steps' (in order; the steps not run have none): `mean` is the per-key mean
 * over the steps with a result, a key a step lacks counting 0; `final` is the last result.
 */
export function trialRewards(steps: Rewards[], strategy: 'mean' | 'final'): Rewards {
  if (steps.length === 0) return {};
  if (strategy === 'final') return { ...steps[steps.length - 1]! };
  const keys = [...new Set(steps.flatMap((s) => Object.keys(s)))];
  return Object.fromEntries(keys.map((k) => [k, steps.reduce((sum, s) => sum + (s[k] ?? 0), 0) / steps.length]));
}

/**
 * Resolves `${VAR}` / `${VAR:-default}` templates from `host`; never passes heldout's own HELDOUT_* / OPENAI_* /
 * ANTHROPIC_* (an evaluator's real Anthropic key is as secret as its OpenAI one).
 */
export function resolveTemplates(
  env: Record<string, string>,
  host: Record<string, string | undefined>,
): { env: Record<string, string>; missing: string[]; withheld: string[] } {
  const missing = new Set<string>();
  const withheld = new Set<string>();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    out[k] = v.replace(/\$\{([A-Za-z_]\w*)(?::-([^}]*))?\}/g, (_, name: string, def: string | undefined) => {
      const own = /^(HELDOUT_|OPENAI_|ANTHROPIC_)/.test(name);
      if (own) withheld.add(name);
      const value = own ? undefined : host[name];
      if (value !== undefined && value !== '') return value;
      if (def !== undefined) return def;
      if (value === undefined) missing.add(name);
      return value ?? '';
    });
  }
  return { env: out, missing: [...missing].sort(), withheld: [...withheld].sort() };
}
