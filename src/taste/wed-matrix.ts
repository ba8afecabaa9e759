import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ToolRef } from './types.js';
import { substitutionCost, typeMap } from './wed.js';
import { wedRowsKernel } from './wed-kernel.js';
import {
  SIMD_MAX_LENGTH,
  SIMD_MAX_TOOLS,
  type WasmApi,
  type WasmModule,
  wedRowsSimd,
  wedSimdModule,
} from './wed-simd.js';

const wasmApi = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
/** Atomics.waitAsync (Node ≥ 16), missing from the project's ES2023 lib. */
const waitAsync = (
  Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: unknown } }
).waitAsync;

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

const modules = new Map<number, WasmModule | null>();

/**
 * The compiled SIMD module for these sequences, or null when the scalar kernel must do (no WebAssembly SIMD in
 * this runtime, too many tools, or sequences long enough to overflow the i16 lanes). Compiled once per table count
 * and kept: V8 then keeps its optimised code, and a Module passes to workers without recompiling.
 */
function simdModuleFor(e: EncodedSequences): WasmModule | null {
  if (e.nTools > SIMD_MAX_TOOLS) return null;
  for (let i = 0; i + 1 < e.offsets.length; i++) if (e.offsets[i + 1] - e.offsets[i] > SIMD_MAX_LENGTH) return null;
  const tables = Math.max(1, Math.ceil(e.nTools / 16));
  if (!wasmApi) return null;
  if (!modules.has(tables)) {
    const bytes = wedSimdModule(tables);
    modules.set(tables, wasmApi.validate(bytes) ? new wasmApi.Module(bytes) : null);
  }
  return modules.get(tables) ?? null;
}

/** Single-thread WED matrix; the reference the parallel path must equal bit for bit. */
export function wedMatrixSync(sequences: readonly (readonly string[])[], tools: readonly ToolRef[]): DistanceMatrix {
  const n = sequences.length;
  const e = encodeSequences(sequences, tools, false);
  const data = new Float64Array((n * (n - 1)) / 2);
  const wasm = simdModuleFor(e);
  if (wasm) wedRowsSimd(e.codes, e.offsets, e.sub, e.nTools, wasm, Int32Array.of(0, n), null, data);
  else wedRowsKernel(e.codes, e.offsets, e.sub, e.nTools, 0, n, data);
  return { n, data };
}

/**
 * The worker: a CommonJS script evaluated from the kernels' own source text, so there is no worker file to locate
 * (it runs the same from src/ under Vitest and from dist/). Everything arrives in workerData at spawn, so a worker
 * needs no message from the calling thread, which is busy computing its own share meanwhile.
 */
export const wedWorkerSource = (): string => `'use strict';
const { workerData: d } = require('node:worker_threads');
const wedRowsKernel = ${wedRowsKernel.toString()};
const wedRowsSimd = ${wedRowsSimd.toString()};
const out = new Float64Array(d.out);
if (d.wasm) wedRowsSimd(d.codes, d.offsets, d.sub, d.nTools, d.wasm, d.bounds, d.claim, out);
else for (;;) {
  const c = Atomics.add(d.claim, 0, 1);
  if (c >= d.bounds.length - 1) break;
  wedRowsKernel(d.codes, d.offsets, d.sub, d.nTools, d.bounds[c], d.bounds[c + 1], out);
  Atomics.add(d.claim, 1, 1);
  Atomics.notify(d.claim, 1);
}
`;

/**
 * Workers only from 8M pairs (≈ 4,000 sequences; 2,000 take ≈ 30 ms on one core): a worker needs 30–60 ms to come
 * up, and under load (load average 11 on 2 cores) this thread + 1 worker was slower than this thread alone up to
 * ≈ 4,000 sequences (401 against 290 ms) and faster from ≈ 6,000 (608 against 701 ms).
 */
const DEFAULT_MIN_PAIRS = 8_000_000;

export interface WedMatrixOptions {
  /** Threads, the calling one included; default: available parallelism. 1 (or a small input) computes in this thread. */
  threads?: number;
  /** Below this many pairs the matrix is computed in this thread (starting a worker costs more than it saves). */
  minPairsForWorkers?: number;
}

/**
 * Chunk bounds over the rows, `parts` chunks of about the same work each: row i costs about (|a_i| + 1) times the
 * summed lengths of the sequences after it (its partners), not its pair count, since lengths vary 1 to 15 and more.
 */
function rowBounds(offsets: Int32Array, parts: number): Int32Array {
  const n = offsets.length - 1;
  const cost = new Float64Array(n);
  let suffix = 0;
  let total = 0;
  for (let i = n - 1; i >= 0; i--) {
    cost[i] = (offsets[i + 1] - offsets[i] + 1) * suffix;
    suffix += offsets[i + 1] - offsets[i] + 1;
    total += cost[i];
  }
  const bounds = [0];
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += cost[i];
    if (acc >= (total * bounds.length) / parts && bounds.length < parts && i + 1 < n) bounds.push(i + 1);
  }
  bounds.push(n);
  return Int32Array.from(bounds);
}

/**
 * WED matrix on this thread and `threads - 1` workers into a shared Float64Array; equal to `wedMatrixSync`
 * exactly (same kernel, each entry written by exactly one thread). The calling thread starts on the chunks at
 * once and the workers join as they come up (chunks are claimed atomically), so their start-up overlaps the work
 * and a worker that is not up when the work is done is simply stopped.
 */
export async function wedMatrix(
  sequences: readonly (readonly string[])[],
  tools: readonly ToolRef[],
  options: WedMatrixOptions = {},
): Promise<DistanceMatrix> {
  const n = sequences.length;
  const pairs = (n * (n - 1)) / 2;
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  if (threads === 1 || pairs < (options.minPairsForWorkers ?? DEFAULT_MIN_PAIRS))
    return wedMatrixSync(sequences, tools);
  const e = encodeSequences(sequences, tools, true);
  const wasm = simdModuleFor(e);
  const out = new SharedArrayBuffer(pairs * 8);
  const bounds = rowBounds(e.offsets, Math.min(n, 64 * threads));
  const chunks = bounds.length - 1;
  const claim = new Int32Array(new SharedArrayBuffer(8));
  const data = { ...e, wasm, bounds, claim, out };
  let settled = false;
  let fail: (err: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {});
  const workers = Array.from({ length: threads - 1 }, () => {
    const w = new Worker(wedWorkerSource(), { eval: true, workerData: data });
    w.on('error', (err) => fail(err));
    w.on('exit', (code) => {
      if (code !== 0 && !settled) fail(new Error(`WED matrix worker exited with code ${code}`));
    });
    return w;
  });
  try {
    const view = new Float64Array(out);
    if (wasm) wedRowsSimd(e.codes, e.offsets, e.sub, e.nTools, wasm, bounds, claim, view);
    else {
      for (let c = Atomics.add(claim, 0, 1); c < chunks; c = Atomics.add(claim, 0, 1)) {
        wedRowsKernel(e.codes, e.offsets, e.sub, e.nTools, bounds[c], bounds[c + 1], view);
        Atomics.add(claim, 1, 1);
      }
    }
    // Chunks a worker still holds: wait for them (or for the worker's failure).
    for (let seen = Atomics.load(claim, 1); seen < chunks; seen = Atomics.load(claim, 1)) {
      const w = waitAsync(claim, 1, seen);
      if (w.async) await Promise.race([w.value, failed]);
    }
    settled = true;
    return { n, data: view };
  } finally {
    settled = true;
    for (const w of workers) void w.terminate();
  }
}
