#!/usr/bin/env node
// heldout's performance suite (issue 12): `npm run bench [-- --only sandbox,gateway] [-- --quick] [-- --out <dir>]`.
// Runs each part (`bench/<part>.bench.mjs`) as a child process that prints one JSON document, and collects them into
// `<out>/latest.json` and `<out>/latest.md` (default out: bench/results). Every metric is a median over repeated
// runs after a warm-up, with min and max, and where it has one a baseline measured in the same run and the ratio.
// A missed goal is a finding, printed; the exit code is non-zero only when a part crashed (or the usage is wrong).
// `--quick` shrinks every size so the plumbing runs in seconds (the smoke test); its numbers mean nothing.
// Needs the built package: `npm run build` first.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..');
export const PARTS = ['sandbox', 'gateway', 'taste', 'reporter', 'judge-cache', 'scale'];

function usage(message) {
  process.stderr.write(
    `${message ? `${message}\n` : ''}usage: node bench/run.mjs [--only ${PARTS.join(',')}] [--quick] [--out <dir>]\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { only: PARTS, quick: false, out: path.join(here, 'results') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined || v === '') usage(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') opts.quick = true;
    else if (a === '--only' || a.startsWith('--only=')) {
      opts.only = value()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = opts.only.filter((p) => !PARTS.includes(p));
      if (unknown.length > 0) usage(`unknown part(s): ${unknown.join(', ')}`);
    } else if (a === '--out' || a.startsWith('--out=')) opts.out = path.resolve(value());
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument: ${a}`);
  }
  return opts;
}

function dockerVersion() {
  try {
    return execFileSync('docker', ['version', '--format', '{{.Server.Version}}'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/** Why a part's document is not the agreed shape, or null. */
function shapeProblem(doc) {
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.metrics)) return 'no metrics array';
  for (const m of doc.metrics) {
    if (typeof m.name !== 'string' || typeof m.unit !== 'string') return 'a metric without name or unit';
    if (![m.median, m.min, m.max].every(finite)) return `${m.name}: median/min/max are not numbers`;
    if (!(m.min <= m.median && m.median <= m.max)) return `${m.name}: not min ≤ median ≤ max`;
    if (m.goal && typeof m.met !== 'boolean') return `${m.name}: a goal without met`;
  }
  return null;
}

/** Runs one part; resolves to its document (or `{ error }` when it crashed), with its wall seconds. */
function runPart(name, quick) {
  const file = path.join(here, `${name}.bench.mjs`);
  // The scale part's full run is hours on a busy 2-core machine (10,000 executions), its quick one a few heldout runs.
  const full = name === 'scale' ? 6 * 3_600_000 : 1_200_000;
  const timeoutMs = Number(process.env.HELDOUT_BENCH_PART_TIMEOUT_MS ?? (quick ? 600_000 : full));
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [file, ...(quick ? ['--quick'] : [])], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...(quick ? { HELDOUT_BENCH_QUICK: '1' } : {}) },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = Math.round((Date.now() - t0) / 100) / 10;
      if (code !== 0) {
        resolve({
          error: `exited ${code ?? signal}${signal === 'SIGKILL' ? ' (timed out)' : ''}`,
          metrics: [],
          seconds,
        });
        return;
      }
      let doc;
      try {
        doc = JSON.parse(out);
      } catch (err) {
        resolve({ error: `printed no JSON document: ${err.message}`, metrics: [], seconds });
        return;
      }
      const problem = shapeProblem(doc);
      if (problem) resolve({ error: `malformed document: ${problem}`, metrics: [], seconds });
      else {
        const { part: _part, ...rest } = doc;
        resolve({ ...rest, seconds });
      }
    });
  });
}

function fmt(x) {
  if (x === null || x === undefined) return '';
  const a = Math.abs(x);
  const s = a >= 100 ? Math.round(x) : a >= 10 ? Math.round(x * 10) / 10 : Math.round(x * 1000) / 1000;
  return s.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

const opText = { '<=': '≤', '>=': '≥' };

function goalText(m) {
  if (!m.goal) return '';
  const { on, op, value } = m.goal;
  return on === 'ratio' ? `ratio ${opText[op] ?? op} ${value}` : `${opText[op] ?? op} ${fmt(value)} ${m.unit}`;
}

const cell = (s) => String(s).replaceAll('|', '\\|');

/** The Markdown report: a line about the machine, then one table row per metric. */
export function markdown(results) {
  const m = results.machine;
  const lines = [
    `Measured ${results.date}${results.quick ? ' (**--quick**: tiny sizes, numbers mean nothing)' : ''} on ${m.cpus} CPUs` +
      ` (${m.cpuModel}), ${fmt(m.mem / 2 ** 30)} GiB, Node ${m.node}, Docker ${m.docker ?? 'not available'}; ` +
      `load average ${m.loadAverage.start[0]} at the start, ${m.loadAverage.end[0]} at the end; ` +
      `${fmt(results.seconds)} s in all${results.commit ? `, commit ${results.commit}` : ''}.`,
    '',
    '| part | metric | median | min–max | baseline (median) | ratio | goal | met |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [part, r] of Object.entries(results.parts)) {
    if (r.error) lines.push(`| ${part} | **crashed**: ${cell(r.error)} | | | | | | |`);
    else if (r.skipped) lines.push(`| ${part} | skipped: ${cell(r.skipped)} | | | | | | |`);
    for (const x of r.metrics) {
      lines.push(
        `| ${part} | ${cell(x.name)} | ${fmt(x.median)} ${x.unit} | ${fmt(x.min)}–${fmt(x.max)} | ` +
          `${x.baseline ? `${cell(x.baseline.name)}: ${fmt(x.baseline.median)} ${x.unit}` : ''} | ` +
          `${x.ratio === undefined || x.ratio === null ? '' : `${fmt(x.ratio)}×`} | ${goalText(x)} | ` +
          `${x.goal ? (x.met ? 'yes' : '**no**') : ''} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(path.join(repoRoot, 'dist/index.js'))) {
    process.stderr.write('bench: dist/ is missing; run `npm run build` first\n');
    process.exit(1);
  }
  const t0 = Date.now();
  const cpus = os.cpus();
  const results = {
    date: new Date().toISOString(),
    quick: opts.quick,
    commit: gitCommit(),
    machine: {
      cpus: os.availableParallelism(),
      cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
      mem: os.totalmem(),
      node: process.version,
      docker: dockerVersion(),
      platform: `${os.platform()} ${os.release()}`,
      loadAverage: { start: os.loadavg().map((x) => Math.round(x * 100) / 100), end: null },
    },
    seconds: null,
    parts: {},
  };
  for (const name of opts.only) {
    process.stderr.write(`bench: ${name}${opts.quick ? ' (quick)' : ''} …\n`);
    results.parts[name] = await runPart(name, opts.quick);
    process.stderr.write(`bench: ${name} done in ${results.parts[name].seconds} s\n`);
  }
  results.machine.loadAverage.end = os.loadavg().map((x) => Math.round(x * 100) / 100);
  results.seconds = Math.round((Date.now() - t0) / 100) / 10;

  mkdirSync(opts.out, { recursive: true });
  const md = markdown(results);
  writeFileSync(path.join(opts.out, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(opts.out, 'latest.md'), md);
  process.stdout.write(md);

  const missed = Object.entries(results.parts).flatMap(([part, r]) =>
    r.metrics
      .filter((x) => x.goal && !x.met)
      .map(
        (x) =>
          `${part}: ${x.name} (${fmt(x.median)} ${x.unit}, goal ${goalText(x)}${x.ratio !== undefined ? `, ratio ${fmt(x.ratio)}` : ''})`,
      ),
  );
  const crashed = Object.entries(results.parts).filter(([, r]) => r.error);
  process.stdout.write(
    `\n${missed.length === 0 ? 'Every goal met.' : `Findings — ${missed.length} goal(s) missed:\n${missed.map((s) => `- ${s}`).join('\n')}`}\n`,
  );
  if (crashed.length > 0) {
    process.stdout.write(`Crashed: ${crashed.map(([p, r]) => `${p} (${r.error})`).join('; ')}\n`);
    process.exitCode = 1;
  }
  process.stdout.write(`Wrote ${path.join(opts.out, 'latest.json')} and latest.md\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
