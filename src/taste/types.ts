import type { ToolKind } from '../tau2/index.js';

/** The minimal tool shape distances and metrics need; group is derived from the name. */
export interface ToolRef {
  name: string;
  type: ToolKind | string;
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
