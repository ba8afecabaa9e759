/**
 * Issue 17's fault suite (acceptance): every delivery in fixtures/faults/ run end to end — two held-out cases each,
 * in one heldout run per backend, docker and process — against fixtures/hardening/commission/ with a judge and a
 * runtime model (the stub server, the only mock at the model boundary). Each case must be classified as the
 * README's fault table says; nothing of the run may be left (containers, volumes, networks, sandbox processes,
 * cgroups); and no canary — planted in the truth files, the rubric, commission.yaml, another run's file on the
 * host and the model keys — may show up in any output, report, ledger or trace, or in what reached the model.
 */
import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startStubServer } from '../../fixtures/stub-openai/server.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import {
  canary,
  cleanEnv,
  delivery,
  dockerLeftovers,
  faultCommission,
  markerProcesses,
  REPO,
  runCgroups,
  scratchDir,
  spawnNode,
  stopStarted,
  testRunId,
} from './helpers.js';

const engine = await engineAnswers(WAIT_MS);

/** One row of the README's fault table: a delivery and the classification each of its cases must get. */
interface Row {
  name: string;
  status: string;
  detail: string;
  notes: string;
}

/**
 * The fault table of README.md (`| \`name\` | what it does | status · detail; notes |`) and the faults another test runs
 * against a failing upstream (`- upstream: \`name\``).
 */
function faultTable(): { rows: Row[]; upstream: string[] } {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Fault table'),
    readme.indexOf('\n## ', readme.indexOf('## Fault table') + 3),
  );
  const rows: Row[] = [];
  for (const m of section.matchAll(/^\| `([a-z0-9-]+)` \| [^|]+ \| ([a-z-]+)(?: · ([^;|]+))?(?:; ([^|]+))? \|$/gm)) {
    rows.push({ name: m[1], status: m[2], detail: (m[3] ?? '').trim(), notes: (m[4] ?? '').trim() });
  }
  const upstream = [...section.matchAll(/^- upstream: `([a-z0-9-]+)`/gm)].map((m) => m[1]);
  return { rows, upstream };
}

/**
 * Every regular file under `dir` as [relative name, content], links never followed (a link the delivery left is its
 * target's name, not content). Names are bytes: a delivery may write names that are not UTF-8.
 */
function filesUnder(dir: string): [string, string][] {
  const out: [string, string][] = [];
  const walk = (d: Buffer) => {
    let names: Dirent<Buffer>[];
    try {
      names = readdirSync(d, { withFileTypes: true, encoding: 'buffer' });
    } catch {
      return;
    }
    for (const e of names) {
      const p = Buffer.concat([d, Buffer.from('/'), e.name]);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push([path.relative(dir, p.toString('latin1')), readFileSync(p, 'latin1')]);
    }
  };
  walk(Buffer.from(dir));
  return out;
}

const table = faultTable();
const faultDirs = readdirSync(path.join(REPO, 'fixtures/faults')).filter((n) =>
  lstatSync(path.join(REPO, 'fixtures/faults', n)).isDirectory(),
);
const deliveries = faultDirs.filter((n) => !table.upstream.includes(n));

describe('the fault table', () => {
  test('lists every fault delivery, each with its one-line README, and at least 20 of them', () => {
    expect(table.rows.length).toBeGreaterThanOrEqual(20);
    expect(table.rows.map((r) => r.name).sort()).toEqual([...deliveries].sort());
    for (const name of deliveries) {
      const readme = readFileSync(path.join(REPO, 'fixtures/faults', name, 'README.md'), 'utf8').trim();
      expect(readme.split('\n'), name).toHaveLength(1);
      expect(readme, name).toMatch(/Classified: /);
    }
    // The provider faults need an upstream that fails: their fixtures exist and another test runs them.
    expect(table.upstream.length).toBeGreaterThan(0);
    for (const name of table.upstream) expect(faultDirs).toContain(name);
  });
});

describe.each([
  { backend: 'docker' as const, skip: engine ? null : 'no docker engine answers' },
  { backend: 'process' as const, skip: null },
])('the fault suite on the $backend backend', ({ backend, skip }) => {
  // Made when the block runs (a filtered-out block leaves nothing in the temporary directory).
  let tmp: ReturnType<typeof scratchDir> | undefined;
  let otherRun: ReturnType<typeof scratchDir> | undefined;
  const runId = testRunId(`faults-${backend}`);
  const marker = `3600.${Date.now() % 1_000_000}${Math.floor(Math.random() * 1000)}`;
  const keys = { runtime: `sk-${canary('runtime-key')}`, judge: `sk-${canary('judge-key')}` };
  const hostCanary = canary('host');
  let out = '';
  let commissionDir = '';
  let stub: Awaited<ReturnType<typeof startStubServer>>;
  let listener: net.Server;
  let canaries: Record<string, string>;
  let summary: { commissions: { delivery: { label: string }; cases: Record<string, unknown>[] }[] };
  let log = '';

  beforeAll(async () => {
    if (skip) return;
    const scratch = scratchDir(`faults-${backend}`);
    tmp = scratch;
    otherRun = scratchDir('faults-other-run');
    out = path.join(scratch.dir, 'out');
    writeFileSync(path.join(otherRun.dir, 'input.md'), `${hostCanary}\n`, { mode: 0o644 });
    stub = await startStubServer({
      script: (req: { body?: { model?: string } }) =>
        req.body?.model === 'fault-judge'
          ? {
              json: {
                dimensions: { notes: { score: 20, max: 20, evidence: 'fine' } },
                outcomes: [],
                major_errors: [],
                assessment: 'ok',
              },
            }
          : { content: 'the sum is 42' },
    });
    // Something on this host a delivery with network could reach (the network-attempt delivery tries).
    listener = net.createServer((c) => c.end('hello\n'));
    await new Promise<void>((r) => listener.listen(0, '0.0.0.0', r));
    const port = (listener.address() as net.AddressInfo).port;
    const stubPort = new URL(stub.baseURL).port;
    const addresses = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4')
      .map((a) => a!.address);
    const commission = path.join(scratch.dir, 'fault-suite');
    const made = faultCommission(scratch.dir, {
      env: {
        FAULT_TARGETS: [...addresses.map((a) => `${a}:${port}`), `127.0.0.1:${stubPort}`].join(','),
        FAULT_PEEK_CASES: [
          path.join(commission, 'cases/heldout/h1/truth.json'),
          path.join(commission, 'cases/heldout/h2'),
          path.join(commission, 'cases/dev'),
        ].join(','),
        FAULT_PEEK_EVALUATOR: [
          path.join(commission, 'rubric.yaml'),
          path.join(commission, 'commission.yaml'),
          out,
        ].join(','),
        FAULT_PEEK_HOST: otherRun.dir,
        FAULT_MARKER: marker,
      },
    });
    commissionDir = made.dir;
    canaries = { ...made.canaries, host: hostCanary, runtimeKey: keys.runtime, judgeKey: keys.judge };
    const map = Object.fromEntries(deliveries.map((n) => [n, delivery(scratch.dir, n)]));
    const run = spawnNode(
      [
        path.join(REPO, 'test/hardening/run-faults.mjs'),
        JSON.stringify({ commission: made.dir, deliveries: map, sandbox: backend, out, concurrency: 2 }),
      ],
      cleanEnv({
        HELDOUT_RUN_ID: runId,
        HELDOUT_RUNTIME_BASE_URL: stub.baseURL,
        HELDOUT_RUNTIME_API_KEY: keys.runtime,
        HELDOUT_RUNTIME_MODEL: 'fault-runtime',
        HELDOUT_JUDGE_BASE_URL: stub.baseURL,
        HELDOUT_JUDGE_API_KEY: keys.judge,
        HELDOUT_JUDGE_MODEL: 'fault-judge',
      }),
    );
    await run.exited;
    log = run.log();
    summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  });
  afterEach(() => stopStarted());
  afterAll(async () => {
    await stub?.close();
    listener?.close();
    tmp?.cleanup();
    otherRun?.cleanup();
  });

  const caseOf = (name: string) => summary.commissions.find((c) => c.delivery.label === name)?.cases ?? [];

  test.skipIf(skip)(`every case is classified as the fault table says${skip ? ` — skipped: ${skip}` : ''}`, () => {
    const got: Record<string, string[]> = {};
    const want: Record<string, string[]> = {};
    for (const row of table.rows) {
      const cases = caseOf(row.name);
      got[row.name] = cases.map((c) => `${c.id} ${c.status} ${c.status === 'gate-failed' ? c.gate : c.result}`);
      want[row.name] = ['h1', 'h2'].map((id) => `${id} ${row.status} ${row.detail}`);
    }
    expect(got, log).toEqual(want);
  });

  test.skipIf(skip)(`what the table's notes promise holds${skip ? ` — skipped: ${skip}` : ''}`, () => {
    for (const c of caseOf('big-stdout')) expect(c.truncated).toEqual(['stdout', 'stderr']);
    for (const c of caseOf('false-claims')) expect((c.claimsContradicted as string[]).length).toBeGreaterThan(0);
    for (const c of caseOf('model-caller')) expect(c.modelCalls).toBe(1);
    for (const row of table.rows.filter((r) => r.status === 'graded'))
      for (const c of caseOf(row.name))
        expect(c.truncated, row.name).toEqual(row.name === 'big-stdout' ? ['stdout', 'stderr'] : undefined);
    // Nothing a delivery wrote beside its output directory reached the run's records.
    expect(filesUnder(out).filter(([f]) => path.basename(f) === 'escaped.txt')).toEqual([]);
  });

  test.skipIf(skip)(`nothing of the run is left${skip ? ` — skipped: ${skip}` : ''}`, async () => {
    expect(markerProcesses(marker)).toEqual([]);
    expect(runCgroups(runId)).toEqual([]);
    if (engine) expect(await dockerLeftovers(runId)).toEqual([]);
  });

  test.skipIf(skip)(
    `no canary reaches a delivery, a report, a ledger, a trace or the model${skip ? ` — skipped: ${skip}` : ''}`,
    () => {
      const places = filesUnder(out);
      places.push(['the run console', log]);
      places.push(['what the model upstream received', JSON.stringify(stub.requests)]);
      expect(places.some(([p]) => p.startsWith('ledger/'))).toBe(true);
      expect(places.some(([p]) => p === 'index.html')).toBe(true);
      const found: string[] = [];
      const scan = (where: string, text: string) => {
        for (const [what, value] of Object.entries(canaries))
          if (text.includes(value)) found.push(`${what} in ${where}`);
      };
      // The scan itself finds every evaluator canary where it is planted (else an empty result proves nothing).
      for (const [where, text] of filesUnder(commissionDir)) scan(where, text);
      expect(new Set(found.map((f) => f.split(' ')[0]))).toEqual(
        new Set(['commission', 'rubric', 'truthH1', 'truthH2', 'truthDev']),
      );
      found.length = 0;
      for (const [where, text] of places) scan(where, text);
      expect(found).toEqual([]);
      // The snooping deliveries did run and write what they found (none of it evaluator-owned, as above).
      expect(existsSync(path.join(out, 'cases/fault-suite/read-host-files/heldout/h1-t1/found.txt'))).toBe(true);
    },
  );
});
