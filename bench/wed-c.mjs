// The C baseline of the WED matrix (issue 24): bench/wed-baseline.c compiled at bench time into a temp dir with the
// machine's gcc, fed the same integer-encoded sequences as the JS kernel, timed inside the program (the matrix loop
// only, wall and CPU), its matrix read back so every entry can be checked against the JS one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('./wed-baseline.c', import.meta.url));

/** Compiles the baseline (`gcc <flags>`); null with the reason when there is no gcc. */
export function compileWedBaseline(flags = ['-O2']) {
  const dir = mkdtempSync(join(tmpdir(), 'heldout-bench-wed-c-'));
  const bin = join(dir, 'wed-baseline');
  try {
    execFileSync('gcc', [...flags, '-o', bin, SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] });
    const version = execFileSync('gcc', ['--version'], { encoding: 'utf8' }).split('\n')[0];
    return { bin, dir, flags, version, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { error: `gcc could not build the baseline: ${err.message.split('\n')[0]}` };
  }
}

/** The program's input for encoded sequences (wed-matrix's encodeSequences). */
export function wedInput(e) {
  const n = e.offsets.length - 1;
  const parts = [e.nTools, n, ...e.sub];
  for (let i = 0; i < n; i++) {
    parts.push(e.offsets[i + 1] - e.offsets[i]);
    for (let k = e.offsets[i]; k < e.offsets[i + 1]; k++) parts.push(e.codes[k]);
  }
  return `${parts.join(' ')}\n`;
}

/** One run: the loop's wall and CPU milliseconds and its matrix in hundredths. */
export function runWedBaseline(c, input) {
  const outFile = join(c.dir, 'matrix.bin');
  const text = execFileSync(c.bin, [outFile], { input, encoding: 'utf8', maxBuffer: 1 << 20 });
  const m = /ms (\S+) sum (\S+) n (\d+) cpu (\S+)/.exec(text);
  if (!m) throw new Error(`wed-baseline printed ${text}`);
  const buf = readFileSync(outFile);
  return { ms: Number(m[1]), cpuMs: Number(m[4]), matrix: new Int32Array(buf.buffer, buf.byteOffset, buf.length / 4) };
}

/** Whether a JS matrix (distances) equals the C one (hundredths) entry for entry. */
export function sameMatrix(js, c) {
  if (js.length !== c.length) return false;
  for (let i = 0; i < js.length; i++) if (Math.round(js[i] * 100) !== c[i]) return false;
  return true;
}
