/**
 * Declarative per-domain rules for the rule validator (DESIGN §11: dataflow, declared preconditions, the reads the
 * policy requires before a write, nothing after a terminal hand-off; plus once-per-entity writes). One file per
 * domain, `src/tau2/domains/<name>/rules.ts`, written by hand from the domain's policy and tool descriptions.
 */
export interface DomainRules {
  domain: string;
  /** Argument names the user can state in conversation (so no earlier call has to produce them). */
  userProvides: string[];
  /** Arguments the agent composes itself (e.g. a hand-off summary). */
  agentComposes?: string[];
  /** Argument names (or abstract facts) each tool's output reveals to later calls. */
  reveals: Record<string, string[]>;
  /** Per-tool requirements; a tool not listed needs only its required parameters. */
  tools: Record<string, ToolRule>;
  /** Abstract entities for once-per-entity writes: how many of each the user can name without a lookup. */
  entities?: Record<string, { userProvided: number }>;
  /** Where each rule comes from (policy sentences), for the report. */
  notes?: string[];
}

export interface ToolRule {
  /** Arguments/facts this call needs; default: the tool's required parameters. */
  needs?: string[];
  /** CNF of earlier calls: for each inner list, one of those tools must have been called before. */
  requiresEarlier?: string[][];
  /** No call may follow this one (a hand-off). */
  terminal?: boolean;
  /** At most this many calls per conversation. */
  maxCalls?: number;
  /** Calling it again with no WRITE in between is redundant (single-entity, static result). */
  noRepeatWithoutWrite?: boolean;
  entity?: EntityEffect;
  /** Policy source of the rule, shown in reasons. */
  why?: string;
}

export interface EntityEffect {
  kind: string;
  /** The call makes this many more entities known ('all': every entity of the user). */
  reveals?: number | 'all';
  /** The call creates this many new entities. */
  creates?: number;
  /** The call acts on one entity and may happen at most once per entity. */
  oncePerEntity?: boolean;
  /** The call ends an entity's life (no later write may act on it). */
  closes?: boolean;
  /** The call acts on an entity that must still be open. */
  requiresOpen?: boolean;
}
