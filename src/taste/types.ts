/** Tool type as τ²-bench declares it; GENERIC counts as READ wherever a type is compared. */
export type ToolType = 'READ' | 'WRITE' | 'GENERIC';

/** One tool of a domain (τ² `tools.json` row). `group` is the name prefix before the first underscore. */
export interface Tool {
  name: string;
  type: ToolType;
  group: string;
  requestor: 'assistant' | 'user';
  mutates_state: boolean;
  parameters: { type?: string; properties?: Record<string, unknown>; required?: string[] } & Record<string, unknown>;
  description: string;
}

/** The minimal tool shape distances and metrics need; group is derived from the name. */
export interface ToolRef {
  name: string;
  type: ToolType | string;
}

/** One original task's gold tool-call sequence. */
export interface GoldSequence {
  task_id: string;
  tools: string[];
  reward_basis: string[] | null;
}

/** A TASTE domain as loaded from disk. */
export interface Domain {
  name: string;
  dir: string;
  tools: Tool[];
  gold: GoldSequence[];
  /** The raw τ² tasks.json (empty array when absent). */
  tasks: unknown[];
  policy: string;
  /** Parsed db.json; for telecom the TOML is kept as text under `{ toml }` (stages 1–2 never read it). */
  db: unknown;
}

/** What every validator answers for one tool sequence. */
export interface Validation {
  plausible: boolean;
  /** 0-based indices of the calls whose requirements are not met (empty when plausible). */
  problematicIndices: number[];
  reason: string;
}

/** Judges tool sequences. Implementations must be deterministic for the rule validator; the LLM one is not. */
export interface Validator {
  validate(seq: string[]): Promise<Validation>;
}

export interface NgramStat {
  unique: number;
  total: number;
  ttr: number | null;
}

/** DESIGN §11 coverage metrics, field names fixed by the spec and `heldout taste coverage --json`. */
export interface CoverageMetrics {
  sequences: number;
  vocabulary: number;
  toolsUsed: number;
  meanLength: number;
  writeShare: number | null;
  uniqueSequences: number;
  uniqueToolSets: number;
  ngrams: { '1': NgramStat; '2': NgramStat; '3': NgramStat };
  entropy: number;
  entropyNorm: number | null;
  meanPairwiseWed: number | null;
}
