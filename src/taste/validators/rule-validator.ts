import { type DomainRules, domainKit, type Tau2Domain, type ToolRule, type ToolSpec } from '../../tau2/index.js';
import type { Validation, Validator } from '../types.js';

interface EntityState {
  known: number;
  closed: number;
}

/**
 * Deterministic validator over declarative domain rules. Each call is checked against what the calls before it
 * established; a call whose requirements are not met is a problematic index. Unknown tool names are problematic.
 */
export class RuleValidator implements Validator {
  private readonly toolByName: Map<string, ToolSpec>;
  private readonly userArgs: Set<string>;
  private readonly cache = new Map<string, Validation>();

  constructor(
    readonly tools: readonly ToolSpec[],
    readonly rules: DomainRules,
  ) {
    this.toolByName = new Map(tools.map((t) => [t.name, t]));
    this.userArgs = new Set([...rules.userProvides, ...(rules.agentComposes ?? [])]);
  }

  async validate(seq: string[]): Promise<Validation> {
    return this.check(seq);
  }

  /** Synchronous form (the validator does no I/O); results are memoised per sequence. */
  check(seq: readonly string[]): Validation {
    const key = seq.join('\u0000');
    const hit = this.cache.get(key);
    if (hit) return { ...hit, problematicIndices: [...hit.problematicIndices] };
    const result = this.judge(seq);
    if (this.cache.size < 200_000) this.cache.set(key, result);
    return { ...result, problematicIndices: [...result.problematicIndices] };
  }

  private judge(seq: readonly string[]): Validation {
    const { rules } = this;
    const available = new Set(this.userArgs);
    const called = new Map<string, number>();
    const lastWriteAt = { index: -1 };
    const lastCallAt = new Map<string, number>();
    const entities = new Map<string, EntityState>();
    for (const [kind, e] of Object.entries(rules.entities ?? {}))
      entities.set(kind, { known: e.userProvided, closed: 0 });
    const perEntityCalls = new Map<string, number>();
    const problems: number[] = [];
    const reasons: string[] = [];
    let terminalAt = -1;
    const flag = (i: number, why: string) => {
      if (problems[problems.length - 1] !== i) problems.push(i);
      if (reasons.length < 6) reasons.push(`#${i} ${seq[i]}: ${why}`);
    };
    seq.forEach((name, i) => {
      const tool = this.toolByName.get(name);
      if (!tool) {
        flag(i, 'unknown tool');
        return;
      }
      const rule: ToolRule = rules.tools[name] ?? {};
      if (terminalAt >= 0) flag(i, `called after the hand-off ${seq[terminalAt]} (#${terminalAt})`);
      const needs = rule.needs ?? tool.parameters.required ?? [];
      const missing = needs.filter((a) => !available.has(a));
      if (missing.length > 0)
        flag(i, `needs ${missing.join(', ')}, which neither the user nor an earlier call provides`);
      for (const group of rule.requiresEarlier ?? []) {
        if (!group.some((t) => (called.get(t) ?? 0) > 0)) {
          flag(i, `requires an earlier ${group.join(' or ')}${rule.why ? ` (${rule.why})` : ''}`);
        }
      }
      const count = (called.get(name) ?? 0) + 1;
      if (rule.maxCalls !== undefined && count > rule.maxCalls)
        flag(i, `at most ${rule.maxCalls} call(s) per conversation`);
      if (rule.noRepeatWithoutWrite && lastCallAt.has(name) && lastCallAt.get(name)! > lastWriteAt.index) {
        flag(i, 'repeats an earlier identical lookup with no change in between');
      }
      const eff = rule.entity;
      if (eff) {
        const st = entities.get(eff.kind) ?? { known: 0, closed: 0 };
        entities.set(eff.kind, st);
        if (eff.oncePerEntity) {
          const k = `${name}:${eff.kind}`;
          const n = (perEntityCalls.get(k) ?? 0) + 1;
          perEntityCalls.set(k, n);
          if (n > st.known) flag(i, `once per ${eff.kind}, and only ${st.known} ${eff.kind}(s) are known`);
        }
        if ((eff.requiresOpen || eff.closes) && st.known - st.closed < 1) flag(i, `no open ${eff.kind} left to act on`);
        if (eff.closes) st.closed++;
        if (eff.reveals === 'all') st.known = Number.POSITIVE_INFINITY;
        else if (eff.reveals) st.known += eff.reveals;
        if (eff.creates) st.known += eff.creates;
      }
      for (const a of rules.reveals[name] ?? []) available.add(a);
      called.set(name, count);
      lastCallAt.set(name, i);
      if (tool.type === 'WRITE') lastWriteAt.index = i;
      if (rule.terminal && terminalAt < 0) terminalAt = i;
    });
    if (seq.length === 0) return { plausible: false, problematicIndices: [], reason: 'empty sequence' };
    return problems.length === 0
      ? { plausible: true, problematicIndices: [], reason: 'all rules hold' }
      : { plausible: false, problematicIndices: problems, reason: reasons.join('; ') };
  }
}

/**
 * The rule validator for a loaded domain: its kit's rules unless `rules` is given (an unknown domain throws, naming
 * the known ones); throws too when the rules name a tool the domain does not have.
 */
export function ruleValidator(domain: Pick<Tau2Domain, 'name' | 'tools'>, rules?: DomainRules): RuleValidator {
  const r = rules ?? domainKit(domain.name).rules;
  const unknown = Object.keys(r.tools).filter((t) => !domain.tools.some((x) => x.name === t));
  if (unknown.length > 0) throw new Error(`rules for ${r.domain} name unknown tools: ${unknown.join(', ')}`);
  return new RuleValidator(domain.tools, r);
}
