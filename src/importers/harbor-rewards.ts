/**
 * Which reward keys a Harbor verifier writes. Harbor's contract is a flat JSON object of numbers in
 * /logs/verifier/reward.json (several keys: a multi-reward task), else one number in reward.txt (key `reward`).
 * The keys are only known from the verifier's source: a key is a quoted name followed by `:` on a line that names
 * reward.json, or within two lines of one (the dict a `json.dump(…, open('…/reward.json'))` call writes).
 */
export interface RewardKeys {
  keys: string[];
  /** Where the keys were read: `file:line` of each line they came from. */
  evidence: string[];
  /** True when some verifier file names reward.json but no key could be read from it. */
  unreadJson: boolean;
}

const KEY = /["']([A-Za-z_][\w.-]*)["']\s*:/g;

/** The reward keys written by the verifier files given (relative path → text); `reward` when none are named. */
export function rewardKeys(files: { path: string; text: string }[]): RewardKeys {
  const keys: string[] = [];
  const evidence: string[] = [];
  let unreadJson = false;
  for (const f of files) {
    const lines = f.text.split('\n');
    let found = false;
    let mentions = false;
    lines.forEach((line, i) => {
      if (!line.includes('reward.json')) return;
      mentions = true;
      for (let j = Math.max(0, i - 2); j <= Math.min(lines.length - 1, i + 2); j++) {
        for (const m of lines[j]!.matchAll(KEY)) {
          if (!keys.includes(m[1]!)) keys.push(m[1]!);
          found = true;
          const at = `${f.path}:${j + 1}`;
          if (!evidence.includes(at)) evidence.push(at);
        }
      }
    });
    if (mentions && !found) unreadJson = true;
  }
  return { keys: keys.length ? keys : ['reward'], evidence, unreadJson };
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
