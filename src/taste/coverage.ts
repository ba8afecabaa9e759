import type { CoverageMetrics, NgramStat, ToolRef } from './types.js';
import { typeMap, weightedEditDistance } from './wed.js';

function ngramStat(sequences: readonly (readonly string[])[], n: number): NgramStat {
  const seen = new Set<string>();
  let total = 0;
  for (const s of sequences) {
    for (let i = 0; i + n <= s.length; i++) {
      seen.add(JSON.stringify(s.slice(i, i + n)));
      total++;
    }
  }
  return { unique: seen.size, total, ttr: total === 0 ? null : seen.size / total };
}

/**
 * Coverage and difficulty metrics of a set of gold sequences, exactly as DESIGN §11 defines them. Empty sequences
 * count as sequences (and as pairs for WED); ratios over zero calls are null.
 */
export function coverageMetrics(sequences: readonly (readonly string[])[], tools: readonly ToolRef[]): CoverageMetrics {
  const types = typeMap(tools);
  const counts = new Map<string, number>();
  let calls = 0;
  let writes = 0;
  for (const s of sequences) {
    for (const t of s) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      calls++;
      if (types.get(t) === 'WRITE') writes++;
    }
  }
  let entropy = 0;
  for (const c of counts.values()) {
    const p = c / calls;
    entropy -= p * Math.log(p);
  }
  let wedSum = 0;
  let pairs = 0;
  for (let i = 0; i < sequences.length; i++) {
    for (let j = i + 1; j < sequences.length; j++) {
      wedSum += weightedEditDistance(sequences[i], sequences[j], types);
      pairs++;
    }
  }
  const vocabulary = tools.length;
  return {
    sequences: sequences.length,
    vocabulary,
    toolsUsed: counts.size,
    meanLength: sequences.length === 0 ? 0 : calls / sequences.length,
    writeShare: calls === 0 ? null : writes / calls,
    uniqueSequences: new Set(sequences.map((s) => JSON.stringify(s))).size,
    uniqueToolSets: new Set(sequences.map((s) => JSON.stringify([...new Set(s)].sort()))).size,
    ngrams: { '1': ngramStat(sequences, 1), '2': ngramStat(sequences, 2), '3': ngramStat(sequences, 3) },
    entropy,
    entropyNorm: vocabulary > 1 ? entropy / Math.log(vocabulary) : null,
    meanPairwiseWed: pairs === 0 ? null : wedSum / pairs,
  };
}
