// Sandbox overhead (issue 3): per-case wall time of the docker backend (stage the case, create with every default
// of DESIGN §7, attach, start, wait, inspect, remove, list outputs) against a bare `docker run --rm <image> true`
// of the same no-op, measured in the same run, interleaved so drift hits both alike. Reported: medians after
// warm-up and their ratio (goal ≤ 1.15). A second baseline, `docker run --rm` with the same isolation flags, shows
// how much of the difference is the flags themselves.
// Needs the built package (`npm run build`; HELDOUT_DIST=<dir> to use another build) and a docker engine.
// Sizes: HELDOUT_BENCH_SANDBOX_N (default 20 per path), HELDOUT_BENCH_SANDBOX_WARMUP (default 3).
// Prints one JSON document on stdout, a readable table on stderr. `--check` exits 1 when the ratio exceeds 1.15.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);
const N = Number(process.env.HELDOUT_BENCH_SANDBOX_N ?? 20);
const WARMUP = Number(process.env.HELDOUT_BENCH_SANDBOX_WARMUP ?? 3);
const GOAL = 1.15;

const dist = resolve(process.env.HELDOUT_DIST ?? new URL('../dist', import.meta.url).pathname);
const sandbox = await import(pathToFileURL(join(dist, 'sandbox/index.js')).href);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

if (!(await sandbox.engineAnswers(3000))) {
  console.log(JSON.stringify({ bench: 'sandbox', skipped: 'no docker engine answers' }));
  process.exit(0);
}
const image = await sandbox.ensureRuntimeImage();

const work = mkdtempSync(join(tmpdir(), 'heldout-bench-sandbox-'));
chmodSync(work, 0o755);
const delivery = join(work, 'delivery');
const caseDir = join(work, 'case');
mkdirSync(delivery, { mode: 0o755 });
mkdirSync(caseDir, { mode: 0o755 });
writeFileSync(join(delivery, 'noop.sh'), 'true\n');
writeFileSync(join(caseDir, 'input.md'), 'bench\n');
const runId = `bench-${process.pid}`;
let i = 0;

const paths = {
  'heldout docker backend': async () => {
    const out = join(work, 'out', String(i++));
    const x = await sandbox.dockerBackend.run({
      runId,
      caseId: 'noop',
      trial: 1,
      command: 'true',
      deliveryDir: delivery,
      inputPath: join(caseDir, 'input.md'),
      assetsDir: null,
      outputDir: out,
      limits: { wallSeconds: 60, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
    });
    if (x.exitCode !== 0) throw new Error(`backend no-op exited ${x.exitCode}: ${x.stderr}`);
  },
  'bare docker run --rm': () => execFileP('docker', ['run', '--rm', image.tag, 'true']),
  'docker run --rm, same flags': () =>
    execFileP('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      '--read-only',
      '--user',
      '65534:65534',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      '--pids-limit',
      '64',
      '-m',
      '256m',
      '--memory-swap',
      '256m',
      '--cpus',
      '1',
      '--init',
      '--log-driver',
      'none',
      '--tmpfs',
      '/tmp:rw,nosuid,nodev,size=64m,mode=1777',
      '-v',
      `${delivery}:/delivery:ro`,
      '-v',
      `${caseDir}:/case:ro`,
      '-w',
      '/delivery',
      image.tag,
      '/bin/sh',
      '-c',
      'true',
    ]),
};

const samples = Object.fromEntries(Object.keys(paths).map((k) => [k, []]));
try {
  for (let round_ = 0; round_ < WARMUP + N; round_++) {
    for (const [name, fn] of Object.entries(paths)) {
      const t0 = performance.now();
      await fn();
      const ms = performance.now() - t0;
      if (round_ >= WARMUP) samples[name].push(ms);
    }
  }
} finally {
  await sandbox.gc({ runId }).catch(() => {});
  rmSync(work, { recursive: true, force: true });
}

const medians = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round(median(v))]));
const ratio = round(medians['heldout docker backend'] / medians['bare docker run --rm'], 3);
const ratioSameFlags = round(medians['heldout docker backend'] / medians['docker run --rm, same flags'], 3);
const result = {
  bench: 'sandbox',
  image: image.tag,
  n: N,
  warmup: WARMUP,
  medianMs: medians,
  ratio,
  ratioSameFlags,
  goal: GOAL,
  met: ratio <= GOAL,
};
console.error(`sandbox per-case overhead (median of ${N} after ${WARMUP} warm-up, no-op command, ${image.tag})`);
for (const [k, v] of Object.entries(medians)) console.error(`  ${k.padEnd(30)} ${String(v).padStart(8)} ms`);
console.error(`  ratio backend / bare docker run: ${ratio} (goal ≤ ${GOAL}: ${result.met ? 'met' : 'NOT met'})`);
console.error(`  ratio backend / docker run with the same flags: ${ratioSameFlags}`);
console.log(JSON.stringify(result));
if (process.argv.includes('--check') && !result.met) process.exitCode = 1;
