import { availableParallelism } from 'node:os';
import Tinypool from 'tinypool';
import type { ToolRef } from './types.js';
import { substitutionCost, typeMap } from './wed.js';
import { wedRowsKernel } from './wed-kernel.js';

/** A condensed symmetric distance matrix: entry (i, j), i < j, at `condensedIndex(n, i, j)`. */
export interface DistanceMatrix {
  n: number;
  data: Float64Array;
}

export function condensedIndex(n: number, i: number, j: number): number {
  if (i > j) [i, j] = [j, i];
  return n * i - (i * (i + 1)) / 2 + j - i - 1;
}

/** Distance between items i and j (0 on the diagonal). */
export function distance(m: DistanceMatrix, i: number, j: number): number {
  return i === j ? 0 : m.data[condensedIndex(m.n, i, j)];
}

/** Sequences as the kernel reads them: tool ids back to back, offsets, and the substitution costs in hundredths. */
export interface EncodedSequences {
  codes: Int32Array;
  offsets: Int32Array;
  sub: Int32Array;
  nTools: number;
}

/** Encodes sequences for the kernel (shared: in SharedArrayBuffers, for workers); the bench feeds C the same. */
export function encodeSequences(
  sequences: readonly (readonly string[])[],
  tools: readonly ToolRef[],
  shared = false,
): EncodedSequences {
  const ids = new Map<string, number>();
  for (const t of tools) if (!ids.has(t.name)) ids.set(t.name, ids.size);
  let total = 0;
  for (const s of sequences) {
    total += s.length;
    for (const t of s) if (!ids.has(t)) ids.set(t, ids.size);
  }
  const nTools = ids.size;
  const alloc = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  const codes = new Int32Array(alloc(Math.max(1, total) * 4));
  const offsets = new Int32Array(alloc((sequences.length + 1) * 4));
  let k = 0;
  sequences.forEach((s, i) => {
    offsets[i] = k;
    for (const t of s) codes[k++] = ids.get(t)!;
  });
  offsets[sequences.length] = k;
  const names = [...ids.keys()];
  const types = typeMap(tools);
  const sub = new Int32Array(alloc(Math.max(1, nTools * nTools) * 4));
  for (let a = 0; a < nTools; a++) {
    for (let b = 0; b < nTools; b++)
      sub[a * nTools + b] = Math.round(substitutionCost(names[a], names[b], types) * 100);
  }
  return { codes, offsets, sub, nTools };
}

/** Single-thread WED matrix; the reference the parallel path must equal bit for bit. */
export function wedMatrixSync(sequences: readonly (readonly string[])[], tools: readonly ToolRef[]): DistanceMatrix {
  const n = sequences.length;
  const e = encodeSequences(sequences, tools, false);
  const data = new Float64Array((n * (n - 1)) / 2);
  wedRowsKernel(e.codes, e.offsets, e.sub, e.nTools, 0, n, data);
  return { n, data };
}

let workerUrl: string | null = null;

/**
 * The worker is a data: URL module built from the kernel's own source text, so it needs no separate file: it runs the
 * same from src/ under Vitest (where only .ts exists) and from dist/.
 */
function workerSource(): string {
  if (workerUrl) return workerUrl;
  const src = `const wedRowsKernel = ${wedRowsKernel.toString()};
export default function run(t) {
  wedRowsKernel(t.codes, t.offsets, t.sub, t.nTools, t.rowStart, t.rowEnd, new Float64Array(t.out, t.byteOffset, t.length));
  return t.rowEnd - t.rowStart;
}
`;
  workerUrl = `data:text/javascript;base64,${Buffer.from(src).toString('base64')}`;
  return workerUrl;
}

export interface WedMatrixOptions {
  /** Worker threads; default: available parallelism. 1 (or a small input) computes in this thread. */
  threads?: number;
  /** Below this many pairs the matrix is computed in this thread (workers cost more than they save). */
  minPairsForWorkers?: number;
}

/** Splits rows into `parts` ranges with about the same number of pairs each. */
function rowRanges(n: number, parts: number): [number, number][] {
  const totalPairs = (n * (n - 1)) / 2;
  const ranges: [number, number][] = [];
  let start = 0;
  let acc = 0;
  for (let i = 0; i < n && ranges.length < parts - 1; i++) {
    acc += n - 1 - i;
    if (acc >= (totalPairs * (ranges.length + 1)) / parts) {
      ranges.push([start, i + 1]);
      start = i + 1;
    }
  }
  if (start < n) ranges.push([start, n]);
  return ranges;
}

/**
 * WED matrix across worker threads (tinypool) into a shared Float64Array; equal to `wedMatrixSync` exactly (same
 * kernel, same float operations, each entry written by exactly one worker).
 */
export async function wedMatrix(
  sequences: readonly (readonly string[])[],
  tools: readonly ToolRef[],
  options: WedMatrixOptions = {},
): Promise<DistanceMatrix> {
  const n = sequences.length;
  const pairs = (n * (n - 1)) / 2;
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  if (threads === 1 || pairs < (options.minPairsForWorkers ?? 50_000)) return wedMatrixSync(sequences, tools);
  const e = encodeSequences(sequences, tools, true);
  const out = new SharedArrayBuffer(pairs * 8);
  const pool = new Tinypool({ filename: workerSource(), minThreads: threads, maxThreads: threads });
  try {
    // More chunks than threads evens out row-length differences.
    const chunks = rowRanges(n, threads * 4);
    await Promise.all(
      chunks.map(([rowStart, rowEnd]) =>
        pool.run({
          codes: e.codes,
          offsets: e.offsets,
          sub: e.sub,
          nTools: e.nTools,
          rowStart,
          rowEnd,
          out,
          byteOffset: 0,
          length: pairs,
        }),
      ),
    );
  } finally {
    await pool.destroy();
  }
  return { n, data: new Float64Array(out) };
}
