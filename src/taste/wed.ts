import type { ToolRef } from './types.js';

/** Substitution costs of DESIGN §11. */
export const WED_COST = { same: 0, sameTypeAndGroup: 0.33, sameType: 0.66, differentType: 1, indel: 1 } as const;

function normType(t: string | undefined): string {
  const u = String(t ?? '').toUpperCase();
  return u === 'GENERIC' ? 'READ' : u;
}

function group(name: string): string {
  const i = name.indexOf('_');
  return i < 0 ? name : name.slice(0, i);
}

/** Substitution cost between two tool names; a tool missing from `types` has a type of its own. */
export function substitutionCost(a: string, b: string, types: Map<string, string>): number {
  if (a === b) return WED_COST.same;
  const ta = types.get(a) ?? `?${a}`;
  const tb = types.get(b) ?? `?${b}`;
  if (ta !== tb) return WED_COST.differentType;
  return group(a) === group(b) ? WED_COST.sameTypeAndGroup : WED_COST.sameType;
}

export function typeMap(tools: readonly ToolRef[]): Map<string, string> {
  return new Map(tools.map((t) => [t.name, normType(t.type)]));
}

/**
 * Weighted edit distance (DESIGN §11): Levenshtein with insertion/deletion 1 and a type/group-aware substitution.
 * Computed in integer hundredths (all costs are exact there) and returned as hundredths / 100, so it equals the
 * matrix kernel bit for bit. Symmetric, 0 only for equal sequences, at most max(|a|, |b|).
 */
export function weightedEditDistance(
  a: readonly string[],
  b: readonly string[],
  tools: readonly ToolRef[] | Map<string, string>,
): number {
  const types = tools instanceof Map ? tools : typeMap(tools);
  const m = b.length;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j * 100;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i * 100;
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1] + Math.round(substitutionCost(a[i - 1], b[j - 1], types) * 100);
      cur[j] = Math.min(sub, prev[j] + 100, cur[j - 1] + 100);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[m] / 100;
}
