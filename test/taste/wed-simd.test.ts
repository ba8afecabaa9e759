import { Worker } from 'node:worker_threads';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { ToolRef } from '../../src/taste/index.js';
import { encodeSequences, wedMatrix, wedMatrixSync, weightedEditDistance } from '../../src/taste/index.js';
import { wedRowsKernel } from '../../src/taste/wed-kernel.js';
import { wedWorkerSource } from '../../src/taste/wed-matrix.js';
import { SIMD_MAX_LENGTH, type WasmApi, wedRowsSimd, wedSimdModule } from '../../src/taste/wed-simd.js';

const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

// Issue 24: the WebAssembly SIMD kernel must give exactly the textbook DP's numbers (weightedEditDistance: one DP
// row, Math.min of the three sums) and the scalar kernel's, for every tool count (1..16 tools use one swizzle table,
// 17..32 two, 33..48 three), empty and one-tool sequences, duplicates, tools missing from the tool list.
const TYPES = ['READ', 'WRITE', 'GENERIC', 'write', undefined];
const toolsArb = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom(...TYPES)), { minLength: 1, maxLength: 40 })
  .map((xs): ToolRef[] => xs.map(([g, type], k) => ({ name: `g${g}_t${k}`, type: type as string })));
const caseArb = toolsArb.chain((tools) => {
  const names = [...tools.map((t) => t.name), 'unlisted_tool'];
  const seq = fc.array(fc.constantFrom(...names), { maxLength: 15 });
  return fc
    .tuple(fc.array(seq, { minLength: 1, maxLength: 40 }), fc.nat())
    .map(([seqs, d]) => ({ tools, seqs: [...seqs, ...seqs.slice(0, d % (seqs.length + 1))] }));
});

const textbook = (seqs: string[][], tools: ToolRef[]) => {
  const n = seqs.length;
  const data = new Float64Array((n * (n - 1)) / 2);
  let k = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) data[k++] = weightedEditDistance(seqs[i], seqs[j], tools);
  return data;
};
const same = (a: Float64Array, b: Float64Array) => Buffer.from(a.buffer).equals(Buffer.from(b.buffer));

describe('WED matrix, SIMD kernel (issue 24)', () => {
  test('the hand-encoded module validates for 1 to 16 cost tables', () => {
    for (let t = 1; t <= 16; t++) expect(WebAssembly.validate(wedSimdModule(t))).toBe(true);
  });

  test.prop([caseArb], { numRuns: 60 })('wedMatrixSync equals the textbook DP entry for entry', ({ tools, seqs }) => {
    expect(same(wedMatrixSync(seqs, tools).data, textbook(seqs, tools))).toBe(true);
  });

  test.prop([caseArb, fc.array(fc.nat(), { maxLength: 6 })], { numRuns: 60 })(
    'the SIMD kernel equals the scalar kernel over any chunking of the rows',
    ({ tools, seqs }, cuts) => {
      const e = encodeSequences(seqs, tools);
      const n = seqs.length;
      const scalar = new Float64Array((n * (n - 1)) / 2);
      wedRowsKernel(e.codes, e.offsets, e.sub, e.nTools, 0, n, scalar);
      const bounds = Int32Array.from(new Set([0, ...cuts.map((c) => c % (n + 1)), n].sort((a, b) => a - b)));
      const simd = new Float64Array(scalar.length);
      const wasm = new WebAssembly.Module(wedSimdModule(Math.ceil(e.nTools / 16)));
      wedRowsSimd(e.codes, e.offsets, e.sub, e.nTools, wasm, bounds, null, simd);
      expect(same(simd, scalar)).toBe(true);
    },
  );

  test('more than 256 tools, and sequences too long for i16 lanes, fall back to the scalar kernel', () => {
    const many = Array.from({ length: 300 }, (_, k) => ({ name: `g${k % 5}_t${k}`, type: TYPES[k % 3] as string }));
    const wide = [[], [many[299].name], many.slice(0, 40).map((t) => t.name), many.slice(250).map((t) => t.name)];
    expect(same(wedMatrixSync(wide, many).data, textbook(wide, many))).toBe(true);
    const few = many.slice(0, 6);
    const long = Array.from({ length: SIMD_MAX_LENGTH + 5 }, (_, k) => few[(k * 7) % 6].name);
    const seqs = [long, long.slice(3).reverse(), [], [few[1].name]];
    expect(same(wedMatrixSync(seqs, few).data, textbook(seqs, few))).toBe(true);
    // At the limit itself the SIMD kernel runs: 300 × 100 plus one cost still fits an i16 lane.
    const atLimit = [long.slice(0, SIMD_MAX_LENGTH), long.slice(5, SIMD_MAX_LENGTH + 5), [], [few[2].name]];
    expect(same(wedMatrixSync(atLimit, few).data, textbook(atLimit, few))).toBe(true);
  });

  test('a worker alone computes every chunk exactly as the calling thread does', async () => {
    const tools = Array.from({ length: 20 }, (_, k) => ({ name: `g${k % 3}_t${k}`, type: TYPES[k % 3] as string }));
    const seqs = fc.sample(fc.array(fc.constantFrom(...tools.map((t) => t.name)), { maxLength: 15 }), {
      numRuns: 120,
      seed: 7,
    });
    const e = encodeSequences(seqs, tools, true);
    const n = seqs.length;
    const out = new SharedArrayBuffer(((n * (n - 1)) / 2) * 8);
    for (const wasm of [new WebAssembly.Module(wedSimdModule(2)), null]) {
      const claim = new Int32Array(new SharedArrayBuffer(8));
      const bounds = Int32Array.of(0, 10, 50, n);
      const w = new Worker(wedWorkerSource(), { eval: true, workerData: { ...e, wasm, bounds, claim, out } });
      const code = await new Promise((resolve, reject) => w.on('exit', resolve).on('error', reject));
      expect(code).toBe(0);
      expect(Array.from(claim)).toEqual([4, 3]);
      expect(same(new Float64Array(out), wedMatrixSync(seqs, tools).data)).toBe(true);
      new Float64Array(out).fill(-1);
    }
  });

  test('the calling thread and workers sharing chunks give exactly the single-thread matrix', async () => {
    const tools = Array.from({ length: 20 }, (_, k) => ({ name: `g${k % 3}_t${k}`, type: TYPES[k % 3] as string }));
    const seq = fc.array(fc.constantFrom(...tools.map((t) => t.name), 'unlisted'), { maxLength: 15 });
    const seqs = fc.sample(seq, { numRuns: 900, seed: 24 });
    const single = wedMatrixSync(seqs, tools);
    for (const threads of [2, 3]) {
      const parallel = await wedMatrix(seqs, tools, { threads, minPairsForWorkers: 0 });
      expect(parallel.n).toBe(single.n);
      expect(same(parallel.data, single.data)).toBe(true);
    }
  });
});
