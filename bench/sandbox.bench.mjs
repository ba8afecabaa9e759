// Sandbox part (issues 3, 12). Two measurements, both against a baseline in the same run:
// 1. Per-case overhead: wall time of one no-op case through heldout's docker backend (stage the case, create with
//    every default of DESIGN §7, attach, start, wait, inspect, remove, list outputs) against a bare
//    `docker run --rm <image> true`, interleaved case by case so drift hits both alike. Goal: ratio ≤ 1.15. A
//    second baseline, `docker run --rm` with heldout's isolation flags, shows what the flags themselves cost.
// 1b. Pod overhead (issue 19): the same no-op case with one service beside it in its pod (a holder container owning
//    the loopback-only namespace, a node HTTP service probed ready over TCP from inside, then the case), against the
//    backend's single container of 1. No goal yet: the ratio is recorded.
// 2. Throughput: CASES no-op cases at concurrency 1, 2 and 4 through the backend behind `createLimiter(n)`, against
//    `xargs -P n` over `docker run --rm <image> true`. Goal: ≥ 0.85× the baseline's cases/s at the same concurrency.
//    Each repetition runs both paths at every concurrency, alternating which goes first.
// Needs the built package (`npm run build`; HELDOUT_DIST=<dir> for another build) and a docker engine (else the
// part reports itself skipped). Sizes: HELDOUT_BENCH_SANDBOX_N (per-case runs per path, default 20),
// HELDOUT_BENCH_SANDBOX_WARMUP (3), HELDOUT_BENCH_SANDBOX_CASES (cases per throughput measurement, 200),
// HELDOUT_BENCH_SANDBOX_REPS (throughput repetitions, 3), HELDOUT_BENCH_SANDBOX_CONCURRENCY (1,2,4).
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { emit, metric, size } from './lib.mjs';

const execFileP = promisify(execFile);
const N = size('HELDOUT_BENCH_SANDBOX_N', 20, 2);
const WARMUP = size('HELDOUT_BENCH_SANDBOX_WARMUP', 3, 1);
const CASES = size('HELDOUT_BENCH_SANDBOX_CASES', 200, 4);
const REPS = size('HELDOUT_BENCH_SANDBOX_REPS', 3, 1);
const CONCURRENCY = (process.env.HELDOUT_BENCH_SANDBOX_CONCURRENCY ?? '1,2,4').split(',').map(Number);
const config = {
  perCaseRuns: N,
  warmup: WARMUP,
  throughputCases: CASES,
  throughputReps: REPS,
  concurrency: CONCURRENCY,
};

const dist = resolve(process.env.HELDOUT_DIST ?? new URL('../dist', import.meta.url).pathname);
const sandbox = await import(pathToFileURL(join(dist, 'sandbox/index.js')).href);

if (!(await sandbox.engineAnswers(3000))) {
  emit('sandbox', { config, skipped: 'no docker engine answers' });
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

async function backendCase(services) {
  const n = i++;
  const out = join(work, 'out', String(n));
  const x = await sandbox.dockerBackend.run({
    runId,
    caseId: `noop-${n}`,
    trial: 1,
    command: 'true',
    deliveryDir: delivery,
    inputPath: join(caseDir, 'input.md'),
    assetsDir: null,
    outputDir: out,
    limits: { wallSeconds: 60, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
    ...(services ? { services } : {}),
  });
  if (x.exitCode !== 0) throw new Error(`backend no-op exited ${x.exitCode}: ${x.stderr}`);
}

const oneService = [
  {
    name: 'svc',
    image: image.tag,
    command: `node -e "require('http').createServer((q, s) => s.end('ok')).listen(7000)"`,
    ready: { tcp: 7000 },
    timeoutSeconds: 30,
  },
];

const sameFlags = () => [
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
];

const perCasePaths = {
  backend: () => backendCase(),
  pod: () => backendCase(oneService),
  bare: () => execFileP('docker', ['run', '--rm', image.tag, 'true']),
  sameFlags: () => execFileP('docker', sameFlags()),
};

/** `cases` no-op cases through the backend behind heldout's limiter at concurrency `n`; cases per second. */
async function backendThroughput(cases, n) {
  const limit = sandbox.createLimiter(n);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: cases }, () => limit(backendCase)));
  return cases / ((performance.now() - t0) / 1000);
}

/** The baseline: `xargs -P n` running `docker run --rm <image> true` once per input line; cases per second. */
function xargsThroughput(cases, n) {
  return new Promise((resolveP, reject) => {
    const t0 = performance.now();
    const child = spawn('xargs', ['-P', String(n), '-n', '1', 'docker', 'run', '--rm', image.tag, 'true'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`xargs over docker run exited ${code}: ${err.slice(-500)}`));
      else resolveP(cases / ((performance.now() - t0) / 1000));
    });
    child.stdin.end(`${Array.from({ length: cases }, (_, k) => k).join('\n')}\n`);
  });
}

const perCase = { backend: [], pod: [], bare: [], sameFlags: [] };
const throughput = Object.fromEntries(CONCURRENCY.map((n) => [n, { backend: [], xargs: [] }]));
try {
  for (let r = 0; r < WARMUP + N; r++) {
    for (const [name, fn] of Object.entries(perCasePaths)) {
      const t0 = performance.now();
      await fn();
      if (r >= WARMUP) perCase[name].push(performance.now() - t0);
    }
  }
  // Warm-up of the throughput paths at the highest concurrency (not recorded).
  const top = Math.max(...CONCURRENCY);
  await backendThroughput(Math.min(CASES, 2 * top), top);
  await xargsThroughput(Math.min(CASES, 2 * top), top);
  for (let r = 0; r < REPS; r++) {
    for (const n of CONCURRENCY) {
      const order = r % 2 === 0 ? ['backend', 'xargs'] : ['xargs', 'backend'];
      for (const path of order) {
        const cps = path === 'backend' ? await backendThroughput(CASES, n) : await xargsThroughput(CASES, n);
        throughput[n][path].push(cps);
        process.stderr.write(`sandbox: rep ${r + 1}/${REPS} concurrency ${n} ${path}: ${cps.toFixed(2)} cases/s\n`);
      }
    }
  }
} finally {
  await sandbox.gc({ runId }).catch(() => {});
  rmSync(work, { recursive: true, force: true });
}

const bare = { name: 'bare `docker run --rm`', samples: perCase.bare };
emit('sandbox', {
  config: { ...config, image: image.tag },
  metrics: [
    metric({
      name: 'per-case wall, heldout docker backend (no-op)',
      unit: 'ms',
      samples: perCase.backend,
      baseline: bare,
      goal: { on: 'ratio', op: '<=', value: 1.15 },
      digits: 1,
    }),
    metric({
      name: 'per-case wall, a pod with one service (holder + node HTTP service ready over TCP + the no-op case)',
      unit: 'ms',
      samples: perCase.pod,
      baseline: { name: 'the heldout docker backend, one container', samples: perCase.backend },
      digits: 1,
    }),
    metric({
      name: "per-case wall, `docker run --rm` with heldout's isolation flags",
      unit: 'ms',
      samples: perCase.sameFlags,
      baseline: bare,
      digits: 1,
    }),
    ...CONCURRENCY.map((n) =>
      metric({
        name: `throughput, ${CASES} no-op cases at concurrency ${n}, heldout backend + createLimiter(${n})`,
        unit: 'cases/s',
        samples: throughput[n].backend,
        baseline: { name: `\`xargs -P ${n}\` over \`docker run --rm\``, samples: throughput[n].xargs },
        goal: { on: 'ratio', op: '>=', value: 0.85 },
        digits: 2,
      }),
    ),
  ],
});
