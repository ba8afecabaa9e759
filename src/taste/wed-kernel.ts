/**
 * The scalar WED matrix kernel over integer-encoded sequences, in integer hundredths (the DESIGN §11 costs 0, 0.33,
 * 0.66, 1 are exact there, so every min comparison is exact and the result is `hundredths / 100`). Since issue 24
 * the matrix runs on the WebAssembly SIMD kernel (wed-simd.ts, ≈ 6× this one); this one remains for what that one
 * cannot take (no WebAssembly SIMD, more than 256 tools, sequences over 300 tools) and as its reference in the
 * tests. It must stay self-contained (no imports, no closures, no TypeScript-only runtime constructs): wed-matrix.ts
 * ships its source text to worker threads, so the same kernel runs in workers from src/ under Vitest and from dist/.
 *
 * `codes`: all sequences' tool ids back to back; `offsets[i]..offsets[i+1]` is sequence i; `sub[a * nTools + b]` the
 * substitution cost in hundredths. Fills rows [rowStart, rowEnd) of the condensed upper triangle (i < j) into `out`.
 *
 * Why it is shaped so (bench/taste.bench.mjs measures it against a plain C loop, issue 24): V8 compiles a ternary or
 * Math.min to a branch, which the random costs mispredict half the time, so each min is the arithmetic
 * `v + (d & (d >> 31))`; and the DP runs with sequence i as the inner dimension, over a profile of i's costs against
 * every tool (`prof[t * la + p]`), so a cell costs one load of its substitution instead of two. Together ≈ 2.6× the
 * textbook loop's speed, cell for cell the same integers.
 */
export function wedRowsKernel(
  codes: Int32Array,
  offsets: Int32Array,
  sub: Int32Array,
  nTools: number,
  rowStart: number,
  rowEnd: number,
  out: Float64Array,
): void {
  const n = offsets.length - 1;
  let maxLen = 0;
  for (let i = 0; i < n; i++) {
    const l = offsets[i + 1] - offsets[i];
    if (l > maxLen) maxLen = l;
  }
  const col = new Int32Array(maxLen + 1);
  const prof = new Int32Array(Math.max(1, nTools * maxLen));
  for (let i = rowStart; i < rowEnd; i++) {
    const a0 = offsets[i];
    const la = offsets[i + 1] - a0;
    for (let t = 0; t < nTools; t++) {
      for (let p = 0; p < la; p++) prof[t * la + p] = sub[codes[a0 + p] * nTools + t];
    }
    let k = n * i - (i * (i + 1)) / 2;
    for (let j = i + 1; j < n; j++) {
      const b0 = offsets[j];
      const lb = offsets[j + 1] - b0;
      for (let p = 0; p <= la; p++) col[p] = p * 100;
      for (let q = 1; q <= lb; q++) {
        // prof[base + p] is the cost of a[p - 1] against b[q - 1].
        const base = codes[b0 + q - 1] * la - 1;
        let diag = col[0];
        let left = q * 100;
        col[0] = left;
        for (let p = 1; p <= la; p++) {
          const up = col[p];
          let v = diag + prof[base + p];
          let d = up + 100 - v;
          v += d & (d >> 31);
          d = left + 100 - v;
          v += d & (d >> 31);
          diag = up;
          col[p] = v;
          left = v;
        }
      }
      out[k++] = col[la] / 100;
    }
  }
}
