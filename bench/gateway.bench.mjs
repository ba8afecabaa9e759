// Gateway part (issues 4, 12): latency added by the gateway (p50, p99) and requests/s through it, against calling the
// OpenAI-compatible stub directly, in the same run, on loopback only. Goals: ≤ 1 ms added at p50, ≥ 2,000 req/s.
// Paths measured: direct (client → stub), gateway-tcp (client → gateway 127.0.0.1 → stub), gateway-socket
// (client → gateway Unix socket → stub; what a sandbox's relay does). Latency: sequential calls, interleaved
// round-robin across paths so drift hits all alike, split into LATENCY_ROUNDS rounds; each round gives a p50 and a
// p99 per path, and the metrics are the median/min/max over rounds. Throughput: a fixed number of calls at fixed
// concurrency per round, paths interleaved per round. Ledger and trace are written as in a real run. The stub and
// the load-generating client each run in their own worker thread, so the gateway's event loop (main thread) does
// only the gateway's work, as in a run.
// Needs the built package (`npm run build`). Sizes: HELDOUT_BENCH_LATENCY_CALLS (default 2000 per path, over all
// rounds), HELDOUT_BENCH_LATENCY_ROUNDS (5), HELDOUT_BENCH_THROUGHPUT_CALLS (5000 per path and round),
// HELDOUT_BENCH_CONCURRENCY (32), HELDOUT_BENCH_ROUNDS (throughput rounds, 3).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { emit, metric, percentile, size } from './lib.mjs';

const LAT_N = size('HELDOUT_BENCH_LATENCY_CALLS', 2000, 60);
const LAT_ROUNDS = size('HELDOUT_BENCH_LATENCY_ROUNDS', 5, 3);
const TP_N = size('HELDOUT_BENCH_THROUGHPUT_CALLS', 5000, 100);
const CONC = size('HELDOUT_BENCH_CONCURRENCY', 32, 4);
const ROUNDS = size('HELDOUT_BENCH_ROUNDS', 3, 2);
const WARMUP = size('HELDOUT_BENCH_WARMUP', 200, 10);

/** The stub is TypeScript (fixtures/stub-openai/server.ts); strip its types with vite's oxc transform. */
async function transpileStub(work) {
  const { transformWithOxc } = await import('vite');
  const src = new URL('../fixtures/stub-openai/server.ts', import.meta.url);
  const { code } = await transformWithOxc(readFileSync(src, 'utf8'), src.pathname, { lang: 'ts' });
  const out = join(work, 'stub-server.mjs');
  writeFileSync(out, code);
  return out;
}

function makeCaller(target, path, headers) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONC });
  const body = JSON.stringify({ model: 'agent-choice', messages: [{ role: 'user', content: 'ping' }] });
  const base = {
    method: 'POST',
    path,
    agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
  };
  const opts = target.socketPath
    ? { ...base, socketPath: target.socketPath }
    : { ...base, host: '127.0.0.1', port: target.port };
  const call = () =>
    new Promise((resolve, reject) => {
      const req = http.request(opts, (res) => {
        let n = 0;
        res.on('data', (c) => (n += c.length));
        res.on('end', () =>
          res.statusCode === 200 && n > 0 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return { call, close: () => agent.destroy() };
}

function worker(data) {
  const w = new Worker(new URL(import.meta.url), { workerData: data });
  const messages = [];
  const waiters = [];
  w.on('message', (m) => (waiters.length ? waiters.shift()(m) : messages.push(m)));
  w.on('error', (err) => {
    process.stderr.write(`bench worker failed: ${err.stack ?? err}\n`);
    process.exit(1);
  });
  return { w, next: () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => waiters.push(r))) };
}

async function stubWorker() {
  const { startStubServer } = await import(pathToFileURL(workerData.stubModule).href);
  const stub = await startStubServer({
    script: [{ content: 'pong', usage: { prompt_tokens: 5, completion_tokens: 1 } }],
  });
  parentPort.postMessage({ port: stub.port, baseURL: stub.baseURL });
  parentPort.once('message', async () => {
    await stub.close();
    parentPort.postMessage('closed');
  });
}

async function clientWorker() {
  const targets = workerData.targets;
  const names = Object.keys(targets);
  const paths = Object.fromEntries(
    names.map((n) => [n, makeCaller(targets[n], '/v1/chat/completions', targets[n].headers)]),
  );
  for (const name of names) for (let i = 0; i < WARMUP; i++) await paths[name].call();
  // Per latency round and path: the p50 and p99 of that round's sequential calls.
  const lat = Object.fromEntries(names.map((n) => [n, { p50: [], p99: [] }]));
  const perRound = Math.max(1, Math.round(LAT_N / LAT_ROUNDS));
  for (let r = 0; r < LAT_ROUNDS; r++) {
    const ms = Object.fromEntries(names.map((n) => [n, []]));
    for (let i = 0; i < perRound; i++) {
      for (const name of names) {
        const t0 = performance.now();
        await paths[name].call();
        ms[name].push(performance.now() - t0);
      }
    }
    for (const name of names) {
      const s = ms[name].sort((a, b) => a - b);
      lat[name].p50.push(percentile(s, 50));
      lat[name].p99.push(percentile(s, 99));
    }
  }
  // ROUNDS rounds, paths interleaved within each round; the median round per path is reported.
  const rounds = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of names) {
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CONC }, async () => {
          while (next < TP_N) {
            next++;
            await paths[name].call();
          }
        }),
      );
      rounds[name].push(TP_N / ((performance.now() - t0) / 1000));
    }
  }
  for (const p of Object.values(paths)) p.close();
  parentPort.postMessage({ lat, rounds });
}

async function main() {
  const { startGateway } = await import('../dist/gateway/index.js');
  const work = mkdtempSync(join(tmpdir(), 'heldout-bench-gw-'));
  const stubWorkerHandle = worker({ role: 'stub', stubModule: await transpileStub(work) });
  const stub = await stubWorkerHandle.next();
  const gw = await startGateway({
    env: {},
    tcp: true,
    ledgerDir: join(work, 'ledger'),
    roles: { runtime: { baseURL: stub.baseURL, apiKey: 'sk-bench-not-real', model: 'bench-model' } },
  });
  const budgets = { calls: null, tokens: null, wallSeconds: null };
  const regTcp = gw.registerCase({ caseId: 'bench-tcp', trial: 1, budgets });
  const regSock = gw.registerCase({ caseId: 'bench-socket', trial: 1, budgets });
  const targets = {
    direct: { port: stub.port, headers: { authorization: 'Bearer sk-bench-not-real' } },
    'gateway-tcp': { port: Number(new URL(gw.tcpUrl).port), headers: { authorization: `Bearer ${regTcp.token}` } },
    'gateway-socket': { socketPath: gw.socketPath, headers: { authorization: `Bearer ${regSock.token}` } },
  };
  const client = worker({ role: 'client', targets });
  const { lat, rounds } = await client.next();
  await client.w.terminate();
  await gw.flush();
  const ledgerLines = gw.ledgerFor('bench-tcp', 1).length + gw.ledgerFor('bench-socket', 1).length;
  await gw.close();
  stubWorkerHandle.w.postMessage('close');
  await stubWorkerHandle.next();
  await stubWorkerHandle.w.terminate();
  rmSync(work, { recursive: true, force: true });

  const direct = (p) => ({ name: `direct to the stub (${p})`, samples: lat.direct[p] });
  const added = (path, p) => lat[path][p].map((x, r) => x - lat.direct[p][r]);
  const metrics = [];
  for (const [path, label] of [
    ['gateway-tcp', 'TCP'],
    ['gateway-socket', 'Unix socket'],
  ]) {
    metrics.push(
      metric({
        name: `latency p50 through the gateway (${label})`,
        unit: 'ms',
        samples: lat[path].p50,
        baseline: direct('p50'),
      }),
      metric({
        name: `added latency p50, gateway (${label})`,
        unit: 'ms',
        samples: added(path, 'p50'),
        goal: { on: 'median', op: '<=', value: 1 },
      }),
      metric({ name: `added latency p99, gateway (${label})`, unit: 'ms', samples: added(path, 'p99') }),
      metric({
        name: `requests/s through the gateway (${label}, concurrency ${CONC})`,
        unit: 'req/s',
        samples: rounds[path],
        baseline: { name: 'direct to the stub', samples: rounds.direct },
        goal: { on: 'median', op: '>=', value: 2000 },
        digits: 0,
      }),
    );
  }
  emit('gateway', {
    config: {
      latencyCallsPerPath: perRoundTotal(),
      latencyRounds: LAT_ROUNDS,
      throughputCallsPerRound: TP_N,
      throughputRounds: ROUNDS,
      concurrency: CONC,
      warmup: WARMUP,
      node: process.version,
    },
    metrics,
    details: { ledgerLines },
  });
}

const perRoundTotal = () => Math.max(1, Math.round(LAT_N / LAT_ROUNDS)) * LAT_ROUNDS;

if (isMainThread) await main();
else if (workerData.role === 'stub') await stubWorker();
else await clientWorker();
