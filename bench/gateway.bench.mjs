// Gateway overhead (issue 4): latency added by the gateway (p50, p99) and requests/s through it, against calling the
// OpenAI-compatible stub directly, in the same run, on loopback only. Goal: ≤ 1 ms added at p50, ≥ 2,000 req/s.
// Paths measured: direct (client → stub), gateway-tcp (client → gateway 127.0.0.1 → stub), gateway-socket
// (client → gateway Unix socket → stub; what a sandbox's relay does). Sequential calls for latency (interleaved
// round-robin across paths so drift hits all alike), then a fixed number of calls at fixed concurrency for
// throughput. Ledger and trace are written as in a real run. The stub and the load-generating client each run in
// their own worker thread, so the gateway's event loop (main thread) does only the gateway's work, as in a run.
// Needs the built package (`npm run build`). Prints one JSON document on stdout, a readable table on stderr.
// Sizes: HELDOUT_BENCH_LATENCY_CALLS (default 2000 per path), HELDOUT_BENCH_THROUGHPUT_CALLS (default 5000 per
// path and round), HELDOUT_BENCH_CONCURRENCY (default 32), HELDOUT_BENCH_ROUNDS (throughput rounds, default 3;
// the median is reported).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const LAT_N = Number(process.env.HELDOUT_BENCH_LATENCY_CALLS ?? 2000);
const TP_N = Number(process.env.HELDOUT_BENCH_THROUGHPUT_CALLS ?? 5000);
const CONC = Number(process.env.HELDOUT_BENCH_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.HELDOUT_BENCH_ROUNDS ?? 3);
const WARMUP = 200;

/** The stub is TypeScript (fixtures/stub-openai/server.ts); strip its types with vite's oxc transform. */
async function transpileStub(work) {
  const { transformWithOxc } = await import('vite');
  const src = new URL('../fixtures/stub-openai/server.ts', import.meta.url);
  const { code } = await transformWithOxc(readFileSync(src, 'utf8'), src.pathname, { lang: 'ts' });
  const out = join(work, 'stub-server.mjs');
  writeFileSync(out, code);
  return out;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const round = (x, d = 3) => (x === null ? null : Math.round(x * 10 ** d) / 10 ** d);

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
  const lat = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < LAT_N; i++) {
    for (const name of names) {
      const t0 = performance.now();
      await paths[name].call();
      lat[name].push(performance.now() - t0);
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
  const tp = Object.fromEntries(
    names.map((n) => [
      n,
      percentile(
        rounds[n].slice().sort((x, y) => x - y),
        50,
      ),
    ]),
  );
  for (const p of Object.values(paths)) p.close();
  parentPort.postMessage({ lat, tp });
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
  const names = Object.keys(targets);
  const client = worker({ role: 'client', targets });
  const { lat, tp } = await client.next();
  await client.w.terminate();

  const stats = {};
  for (const name of names) {
    const s = lat[name].slice().sort((a, b) => a - b);
    stats[name] = {
      p50Ms: round(percentile(s, 50)),
      p99Ms: round(percentile(s, 99)),
      requestsPerSecond: Math.round(tp[name]),
    };
  }
  const added = (name) => ({
    p50Ms: round(stats[name].p50Ms - stats.direct.p50Ms),
    p99Ms: round(stats[name].p99Ms - stats.direct.p99Ms),
  });
  await gw.flush();
  const ledgerLines = gw.ledgerFor('bench-tcp', 1).length + gw.ledgerFor('bench-socket', 1).length;
  const doc = {
    bench: 'gateway',
    node: process.version,
    config: {
      latencyCallsPerPath: LAT_N,
      throughputCallsPerRound: TP_N,
      rounds: ROUNDS,
      concurrency: CONC,
      warmup: WARMUP,
    },
    paths: stats,
    addedByGateway: { tcp: added('gateway-tcp'), socket: added('gateway-socket') },
    goals: {
      addedP50AtMost1Ms: added('gateway-tcp').p50Ms <= 1 && added('gateway-socket').p50Ms <= 1,
      atLeast2000RequestsPerSecond:
        stats['gateway-tcp'].requestsPerSecond >= 2000 && stats['gateway-socket'].requestsPerSecond >= 2000,
    },
    ledgerLines,
  };
  await gw.close();
  stubWorkerHandle.w.postMessage('close');
  await stubWorkerHandle.next();
  await stubWorkerHandle.w.terminate();
  rmSync(work, { recursive: true, force: true });

  const row = (name, s) =>
    `${name.padEnd(16)} ${String(s.p50Ms).padStart(8)} ${String(s.p99Ms).padStart(8)} ${String(s.requestsPerSecond).padStart(10)}`;
  process.stderr.write(
    `${'path'.padEnd(16)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'req/s'.padStart(10)}\n`,
  );
  for (const name of names) process.stderr.write(row(name, stats[name]) + '\n');
  process.stderr.write(
    `added by gateway: tcp p50 ${doc.addedByGateway.tcp.p50Ms} ms, p99 ${doc.addedByGateway.tcp.p99Ms} ms; ` +
      `socket p50 ${doc.addedByGateway.socket.p50Ms} ms, p99 ${doc.addedByGateway.socket.p99Ms} ms ` +
      `(goal ≤ 1 ms at p50: ${doc.goals.addedP50AtMost1Ms ? 'met' : 'NOT met'}; ≥ 2,000 req/s: ${doc.goals.atLeast2000RequestsPerSecond ? 'met' : 'NOT met'})\n`,
  );
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
}

if (isMainThread) await main();
else if (workerData.role === 'stub') await stubWorker();
else await clientWorker();
