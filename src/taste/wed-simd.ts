/**
 * The WED matrix kernel in WebAssembly SIMD (issue 24: the goal is ≤ 0.55× a plain C loop, which scalar JS cannot
 * reach: it costs ≈ 1.6× C per cell). Eight pairs run at once in i16x8 lanes: one row sequence `a` against eight
 * column sequences of the same length, so the lanes never diverge; a cell's substitution costs for the eight lanes
 * come from one `i8x16.swizzle` of a 16-entry cost table (`a[p]` against every tool) by the lanes' tool codes, so
 * there is no gather. Integer hundredths as in wed-kernel.ts, the same min of the same three sums, and the final
 * `hundredths / 100` is the same IEEE division: results equal the scalar kernel bit for bit (tested).
 *
 * The module is encoded here by hand (≈ 100 bytes of code) rather than built by a toolchain, so there is no build
 * step and no dependency; `WebAssembly.validate` and the property tests against the textbook DP check the encoding.
 */

/** A compiled module, opaque here (the project's TypeScript lib settings carry no WebAssembly types). */
export type WasmModule = object;
/** The slice of the WebAssembly API used here; a declaration only, so the kernel's source text stays self-contained. */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (m: WasmModule, imports: object) => { exports: Record<string, unknown> };
  Memory: new (d: { initial: number }) => { buffer: ArrayBuffer };
  validate(bytes: Uint8Array): boolean;
}
declare const WebAssembly: WasmApi;

const uleb = (n: number): number[] => {
  const o: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    o.push(b);
  } while (n);
  return o;
};
const sleb = (n: number): number[] => {
  const o: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...o, b];
    o.push(b | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const name = (s: string): number[] => vec([...Buffer.from(s)].map((b) => [b]));

/** Lengths above this would overflow the i16 lanes (distances reach 100 × the longer length, plus one cost). */
export const SIMD_MAX_LENGTH = 300;
/** Tool codes are bytes in the module's memory; more distinct tools than this use the scalar kernel. */
export const SIMD_MAX_TOOLS = 256;

/**
 * The module for `nTools` ≤ 16·tables, exporting `run(tab, la, bptr, lb, nb, iptr, i, obase, colp)`: for `nb`
 * batches of eight sequences of length `lb` (tool codes transposed, 8 bytes per position, from `bptr`; their
 * indices, 8 × i32 per batch, from `iptr`), the distance of row sequence `i` (length `la`, cost tables from `tab`:
 * per position `tables` × 16 bytes) to each batch member whose index is > i, stored as f64 at `obase + 8·index`.
 * `colp` is 16·(la + 1) bytes of scratch for the DP column.
 */
export function wedSimdModule(tables: number): Uint8Array {
  const [tab, la, bptr, lb, nb, iptr, row, obase, colp, k, q, p, ptr, tp, j] = Array.from({ length: 15 }, (_, x) => x);
  const [c100, left, diag, up, v, res, idx0] = [15, 16, 17, 18, 19, 20, 21];
  const get = (x: number) => [0x20, ...uleb(x)];
  const set = (x: number) => [0x21, ...uleb(x)];
  const tee = (x: number) => [0x22, ...uleb(x)];
  const i32 = (x: number) => [0x41, ...sleb(x)];
  const simd = (op: number) => [0xfd, ...uleb(op)];
  const mem = (op: number, offset = 0) => [...simd(op), 0, ...uleb(offset)];
  const [ADD, MUL, SHL, GE_U, GT_U, LE_U, GT_S] = [0x6a, 0x6c, 0x74, 0x4f, 0x4b, 0x4d, 0x4a];
  const [LOAD, LOAD64_ZERO, STORE, SWIZZLE, I8_SPLAT, I16_SPLAT, I8_SUB, OR] = [
    0, 0x5d, 0x0b, 0x0e, 0x0f, 0x10, 0x71, 0x50,
  ];
  const [EXTEND_LOW_U, I16_ADD, I16_MIN_S, I16_EXTRACT_S] = [0x89, 0x8e, 0x96, 0x18];
  const BLOCK_LOOP = [0x02, 0x40, 0x03, 0x40];
  const EXIT_IF = [0x0d, 1]; // br_if to the enclosing block: leave the loop
  const NEXT = [0x0c, 0, 0x0b, 0x0b]; // br to the loop head, end loop, end block
  const f100 = [...new Uint8Array(new Float64Array([100]).buffer)];
  const c: number[] = [];
  const emit = (...xs: (number | number[])[]) => {
    for (const x of xs) Array.isArray(x) ? c.push(...x) : c.push(x);
  };
  emit(i32(100), simd(I16_SPLAT), set(c100));
  emit(BLOCK_LOOP, get(k), get(nb), GE_U, EXIT_IF); // for each batch
  // The column starts as p · 100 (deleting a's first p tools).
  emit(i32(0), set(p), 0x03, 0x40, get(colp), get(p), i32(4), SHL, ADD, get(p), i32(100), MUL, simd(I16_SPLAT));
  emit(mem(STORE), get(p), i32(1), ADD, set(p), get(p), get(la), LE_U, 0x0d, 0, 0x0b);
  emit(i32(0), set(q), BLOCK_LOOP, get(q), get(lb), GE_U, EXIT_IF); // for each position q of the batch
  emit(get(bptr), get(q), i32(3), SHL, ADD, mem(LOAD64_ZERO), set(idx0));
  // Table t covers tools 16t..16t+15: a code minus 16t wraps to ≥ 16 outside it, where swizzle yields 0.
  for (let t = 1; t < tables; t++) emit(get(idx0), i32(16 * t), simd(I8_SPLAT), simd(I8_SUB), set(idx0 + t));
  emit(get(q), i32(1), ADD, set(q), get(q), i32(100), MUL, simd(I16_SPLAT), set(left));
  emit(get(colp), mem(LOAD), set(diag), get(colp), get(left), mem(STORE));
  emit(i32(1), set(p), get(colp), i32(16), ADD, set(ptr), get(tab), set(tp));
  emit(BLOCK_LOOP, get(p), get(la), GT_U, EXIT_IF); // for each position p of a
  emit(get(diag));
  for (let t = 0; t < tables; t++) {
    emit(get(tp), mem(LOAD, 16 * t), get(idx0 + t), simd(SWIZZLE));
    if (t) emit(simd(OR));
  }
  // v = min(diag + cost, min(up, left) + 100)
  emit(simd(EXTEND_LOW_U), simd(I16_ADD), get(ptr), mem(LOAD), tee(up), get(left), simd(I16_MIN_S));
  emit(get(c100), simd(I16_ADD), simd(I16_MIN_S), tee(v), set(left), get(ptr), get(v), mem(STORE), get(up), set(diag));
  emit(get(p), i32(1), ADD, set(p), get(ptr), i32(16), ADD, set(ptr), get(tp), i32(16 * tables), ADD, set(tp), NEXT);
  emit(NEXT);
  // col[la] holds the eight distances (also when la or lb is 0); write the lanes whose index is > row.
  emit(get(colp), get(la), i32(4), SHL, ADD, mem(LOAD), set(res));
  for (let lane = 0; lane < 8; lane++) {
    emit(get(iptr), 0x28, 2, ...uleb(4 * lane), tee(j), get(row), GT_S, 0x04, 0x40);
    emit(get(obase), get(j), i32(3), SHL, ADD, get(res), simd(I16_EXTRACT_S), lane, 0xb7, 0x44, f100, 0xa3);
    emit(0x39, 3, 0, 0x0b); // f64.store, end if
  }
  emit(get(bptr), get(lb), i32(3), SHL, ADD, set(bptr), get(iptr), i32(32), ADD, set(iptr));
  emit(get(k), i32(1), ADD, set(k), NEXT, 0x0b);
  const body = [
    ...vec([
      [6, 0x7f],
      [6 + tables, 0x7b],
    ]),
    ...c,
  ];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, vec([[0x60, ...vec(Array.from({ length: 9 }, () => [0x7f])), 0]])),
    ...section(2, vec([[...name('m'), ...name('m'), 0x02, 0x00, 0x01]])), // imports memory m.m
    ...section(3, vec([[0]])),
    ...section(7, vec([[...name('run'), 0x00, 0]])),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
}

/**
 * Fills rows of the condensed matrix with the SIMD module (`wasm`, from `wedSimdModule(ceil(nTools / 16))`). Rows
 * come in chunks `[bounds[c], bounds[c + 1])`; with `claim` (shared Int32Array: [next chunk, chunks done]) chunks are
 * claimed atomically, so the calling thread and workers share them however fast each one starts; without it, all
 * chunks in order. Self-contained (no imports, no closures): wed-matrix.ts ships its source text to workers.
 */
export function wedRowsSimd(
  codes: Int32Array,
  offsets: Int32Array,
  sub: Int32Array,
  nTools: number,
  wasm: WasmModule,
  bounds: Int32Array,
  claim: Int32Array | null,
  out: Float64Array,
): void {
  const n = offsets.length - 1;
  const tables = Math.max(1, Math.ceil(nTools / 16));
  let maxLen = 0;
  for (let i = 0; i < n; i++) maxLen = Math.max(maxLen, offsets[i + 1] - offsets[i]);
  // Column sequences grouped by length (index order within a group), in batches of eight lanes: a row's partners
  // (index > row) are then a suffix of every group, and lanes before it are computed but not written.
  const groups: number[][] = Array.from({ length: maxLen + 1 }, () => []);
  for (let i = 0; i < n; i++) groups[offsets[i + 1] - offsets[i]].push(i);
  let batchBytes = 0;
  let batches = 0;
  for (let l = 0; l <= maxLen; l++) {
    const nb = Math.ceil(groups[l].length / 8);
    batchBytes += nb * 8 * l;
    batches += nb;
  }
  const oCol = 16 * tables * Math.max(1, maxLen);
  const oIdx = oCol + 16 * (maxLen + 1);
  const oBatch = oIdx + 32 * batches;
  const oOut = (oBatch + batchBytes + 7) & ~7;
  const memory = new WebAssembly.Memory({ initial: Math.ceil((oOut + 8 * n) / 65536) });
  const run = new WebAssembly.Instance(wasm, { m: { m: memory } }).exports.run as (...args: number[]) => void;
  const u8 = new Uint8Array(memory.buffer);
  const i32 = new Int32Array(memory.buffer);
  const f64 = new Float64Array(memory.buffer);
  const groupBatch: number[] = [];
  const groupIdx: number[] = [];
  let pb = oBatch;
  let pi = oIdx;
  for (let l = 0; l <= maxLen; l++) {
    const g = groups[l];
    groupBatch.push(pb);
    groupIdx.push(pi);
    for (let s = 0; s < g.length; s += 8, pb += 8 * l, pi += 32) {
      for (let lane = 0; lane < 8; lane++) {
        const m = s + lane < g.length ? g[s + lane] : -1;
        i32[(pi >> 2) + lane] = m;
        for (let x = 0; m >= 0 && x < l; x++) u8[pb + x * 8 + lane] = codes[offsets[m] + x];
      }
    }
  }
  const width = 16 * tables;
  for (let next = 0; ; next++) {
    const chunk = claim ? Atomics.add(claim, 0, 1) : next;
    if (chunk >= bounds.length - 1) break;
    for (let i = bounds[chunk]; i < bounds[chunk + 1]; i++) {
      const a0 = offsets[i];
      const la = offsets[i + 1] - a0;
      for (let x = 0; x < la; x++) {
        const costs = codes[a0 + x] * nTools;
        for (let t = 0; t < width; t++) u8[x * width + t] = t < nTools ? sub[costs + t] : 0;
      }
      for (let l = 0; l <= maxLen; l++) {
        const g = groups[l];
        let lo = 0;
        let hi = g.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (g[mid] > i) hi = mid;
          else lo = mid + 1;
        }
        if (lo === g.length) continue;
        const b0 = lo >> 3;
        run(0, la, groupBatch[l] + b0 * 8 * l, l, Math.ceil(g.length / 8) - b0, groupIdx[l] + b0 * 32, i, oOut, oCol);
      }
      const rowAt = n * i - (i * (i + 1)) / 2;
      out.set(f64.subarray((oOut >> 3) + i + 1, (oOut >> 3) + n), rowAt);
    }
    if (claim) {
      Atomics.add(claim, 1, 1);
      Atomics.notify(claim, 1);
    }
  }
}
