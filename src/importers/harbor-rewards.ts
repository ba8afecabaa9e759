/**
 * Which reward keys a Harbor verifier writes, and which of them are the score. Harbor reads
 * /logs/verifier/reward.json (its numbers; other values dropped), merging reward.txt's number in as `reward` where
 * the JSON has none, else reward.txt alone (key `reward`). The keys are only known from the verifier's source: a key
 * is a quoted name followed by `:` and no string or boolean on a line that names reward.json, or within two lines of
 * one (the dict a `json.dump(…, open('…/reward.json'))` call writes).
 */
export interface RewardKeys {
  /** The score: `reward` when the verifier writes it (in reward.json or reward.txt), else every key it writes. */
  keys: string[];
  /** The other numbers reward.json holds: recorded with the trial, never scored. */
  recorded: string[];
  /** Where the keys were read: `file:line` of each line they came from. */
  evidence: string[];
  /** True when some verifier file names reward.json but no key could be read from it. */
  unreadJson: boolean;
  /** True when some verifier file names reward.txt. */
  writesTxt: boolean;
}

// A value that opens with a quote (an f-string too), a boolean or a list is no reward: Harbor drops it.
const KEY = /\\?["']([A-Za-z_][\w.-]*)\\?["']\s*:\s*(\\?f?["']|True\b|False\b|true\b|false\b|\[)?/g;

/** The reward keys written by the verifier files given (relative path → text); `reward` when none are named. */
export function rewardKeys(files: { path: string; text: string }[]): RewardKeys {
  const found: string[] = [];
  const evidence: string[] = [];
  let unreadJson = false;
  let writesTxt = false;
  for (const f of files) {
    const lines = f.text.split('\n');
    let read = false;
    let mentions = false;
    lines.forEach((line, i) => {
      if (line.includes('reward.txt')) writesTxt = true;
      if (!line.includes('reward.json')) return;
      mentions = true;
      for (let j = Math.max(0, i - 2); j <= Math.min(lines.length - 1, i + 2); j++) {
        for (const m of lines[j]!.matchAll(KEY)) {
          read = true;
          if (m[2] !== undefined) continue;
          if (!found.includes(m[1]!)) found.push(m[1]!);
          const at = `${f.path}:${j + 1}`;
          if (!evidence.includes(at)) evidence.push(at);
        }
      }
    });
    if (mentions && !read) unreadJson = true;
  }
  const keys = found.includes('reward') || writesTxt || found.length === 0 ? ['reward'] : found;
  return { keys, recorded: found.filter((k) => !keys.includes(k)), evidence, unreadJson, writesTxt };
}

/** A dimension id for a reward key (lower-case slug), distinct from the ones already taken. */
export function dimensionId(key: string, taken: Set<string>): string {
  const base =
    key
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+|-+$/g, '') || 'reward';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** Equal maxima summing to exactly 100 (the last takes the rounding). */
export function equalMaxima(n: number): number[] {
  const each = 100 / n;
  const out = Array.from({ length: n }, () => each);
  out[n - 1] = 100 - each * (n - 1);
  return out;
}
