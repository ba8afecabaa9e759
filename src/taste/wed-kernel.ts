/**
 * The WED matrix kernel over integer-encoded sequences, in integer hundredths (the DESIGN §11 costs 0, 0.33, 0.66, 1
 * are exact there, so every min comparison is exact and the result is `hundredths / 100`). It must stay
 * self-contained (no imports, no closures, no TypeScript-only runtime constructs): wed-matrix.ts ships its source
 * text to worker threads as a data: URL module, which lets the same kernel run in workers from src/ under Vitest and
 * from dist/ alike.
 *
 * `codes`: all sequences' tool ids back to back; `offsets[i]..offsets[i+1]` is sequence i; `sub[a * nTools + b]` the
 * substitution cost in hundredths. Fills rows [rowStart, rowEnd) of the condensed upper triangle (i < j) into `out`.
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
  const row = new Int32Array(maxLen + 1);
  for (let i = rowStart; i < rowEnd; i++) {
    const a0 = offsets[i];
    const la = offsets[i + 1] - a0;
    let k = n * i - (i * (i + 1)) / 2;
    for (let j = i + 1; j < n; j++) {
      const b0 = offsets[j];
      const lb = offsets[j + 1] - b0;
      for (let q = 0; q <= lb; q++) row[q] = q * 100;
      for (let p = 1; p <= la; p++) {
        const base = codes[a0 + p - 1] * nTools;
        let diag = row[0];
        let left = p * 100;
        row[0] = left;
        for (let q = 1; q <= lb; q++) {
          const up = row[q];
          let v = diag + sub[base + codes[b0 + q - 1]];
          if (up + 100 < v) v = up + 100;
          if (left + 100 < v) v = left + 100;
          diag = up;
          row[q] = v;
          left = v;
        }
      }
      out[k++] = row[lb] / 100;
    }
  }
}
