import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { coverageMetrics, loadDomain } from '../../src/taste/index.js';

const data = path.resolve(import.meta.dirname, '../../../shared/data/tau2');

// An independent, deliberately plain reading of DESIGN §11's definitions (full DP table, float costs).
function refWed(a: string[], b: string[], types: Record<string, string>): number {
  const t = (x: string) => (types[x] === 'GENERIC' ? 'READ' : types[x]);
  const g = (x: string) => x.split('_')[0];
  const cost = (x: string, y: string) => (x === y ? 0 : t(x) !== t(y) ? 1 : g(x) === g(y) ? 0.33 : 0.66);
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    d.push([]);
    for (let j = 0; j <= b.length; j++) {
      if (i === 0) d[i].push(j);
      else if (j === 0) d[i].push(i);
      else d[i].push(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost(a[i - 1], b[j - 1])));
    }
  }
  return d[a.length][b.length];
}

function reference(seqs: string[][], tools: { name: string; type: string }[]) {
  const types = Object.fromEntries(tools.map((x) => [x.name, x.type]));
  const all = seqs.flat();
  const freq: Record<string, number> = {};
  for (const x of all) freq[x] = (freq[x] ?? 0) + 1;
  const entropy = -Object.values(freq).reduce((s, c) => s + (c / all.length) * Math.log(c / all.length), 0);
  const ngram = (n: number) => {
    const grams: string[] = [];
    for (const s of seqs) for (let i = 0; i + n <= s.length; i++) grams.push(s.slice(i, i + n).join('|'));
    return {
      unique: new Set(grams).size,
      total: grams.length,
      ttr: grams.length ? new Set(grams).size / grams.length : null,
    };
  };
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < seqs.length; i++)
    for (let j = i + 1; j < seqs.length; j++) {
      sum += refWed(seqs[i], seqs[j], types);
      pairs++;
    }
  return {
    sequences: seqs.length,
    vocabulary: tools.length,
    toolsUsed: Object.keys(freq).length,
    meanLength: all.length / seqs.length,
    writeShare: all.filter((x) => types[x] === 'WRITE').length / all.length,
    uniqueSequences: new Set(seqs.map((s) => s.join('|'))).size,
    uniqueToolSets: new Set(seqs.map((s) => [...new Set(s)].sort().join('|'))).size,
    ngrams: { '1': ngram(1), '2': ngram(2), '3': ngram(3) },
    entropy,
    entropyNorm: entropy / Math.log(tools.length),
    meanPairwiseWed: sum / pairs,
  };
}

describe('coverageMetrics on real τ² gold sequences', () => {
  for (const name of ['airline', 'retail']) {
    test(`${name}: every field equals an independent implementation`, () => {
      const d = loadDomain(path.join(data, name));
      const seqs = d.gold.map((g) => g.tools);
      const got = coverageMetrics(seqs, d.tools);
      const want = reference(seqs, d.tools);
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
      for (const key of ['sequences', 'vocabulary', 'toolsUsed', 'uniqueSequences', 'uniqueToolSets'] as const) {
        expect(got[key], key).toBe(want[key]);
      }
      expect(got.ngrams).toEqual(want.ngrams);
      for (const key of ['meanLength', 'writeShare', 'entropy', 'entropyNorm'] as const) {
        expect(got[key], key).toBeCloseTo(want[key], 12);
      }
      expect(Math.abs(got.meanPairwiseWed! - want.meanPairwiseWed)).toBeLessThan(1e-6);
      expect(got.sequences).toBe(name === 'airline' ? 50 : 114);
    });
  }

  test('empty input and empty sequences give nulls, not NaN', () => {
    const m = coverageMetrics([[], []], [{ name: 'a_b', type: 'READ' }]);
    expect(m.writeShare).toBeNull();
    expect(m.ngrams['1'].ttr).toBeNull();
    expect(m.meanPairwiseWed).toBe(0);
    expect(m.entropyNorm).toBeNull();
    expect(coverageMetrics([], []).meanPairwiseWed).toBeNull();
  });
});
