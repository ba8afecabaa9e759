/**
 * In-container acceptance of the gateway (issue 4): deliveries in a `--network none` sandbox reach the stub through
 * relay → Unix socket → gateway, with the official openai npm client and with Python's urllib, streaming included;
 * the real key is nowhere inside. Every test runs twice: through this part's own minimal container runner
 * (`./container.ts`, relay in front of the command via `relay.mjs -- cmd`) and through the sandbox part's
 * `dockerBackend.run(spec)` with `spec.gateway` (its shell wrapper starts the relay). Needs a docker engine
 * (skipped, loudly, without one).
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type StubServer, startStubServer } from '../../fixtures/stub-openai/server.js';
import { attachmentFor, type Gateway, startGateway } from '../../src/gateway/index.js';
import { dockerBackend, ensureRuntimeImage, type GatewayAttachment } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { runAttached } from './container.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIX = join(ROOT, 'fixtures/gateway');
const CANARY_PREFIX = 'sk-heldout-canary-';
const REAL_KEY = CANARY_PREFIX + randomBytes(16).toString('hex');

async function engineAnswers(): Promise<boolean> {
  try {
    await new Docker().ping();
    return true;
  } catch {
    return false;
  }
}
const hasEngine = await engineAnswers();
if (!hasEngine) console.warn('gateway container tests SKIPPED: no docker engine answers');

interface RunArgs {
  attachment: GatewayAttachment;
  deliveryDir: string;
  outDir: string;
  command: string[];
  env?: Record<string, string>;
  mounts?: { hostPath: string; containerPath: string; readOnly: boolean }[];
  timeoutMs?: number;
}
type Runner = (image: string, work: string, a: RunArgs) => Promise<{ exitCode: number | null; stderr: string }>;

const shq = (x: string) => `'${x.replaceAll("'", `'\\''`)}'`;

/** The delivery's /out/result.json; when it is missing, fail with what the run said instead of a bare ENOENT. */
function readResult(dir: string, run: { exitCode: number | null; stderr: string }) {
  try {
    return JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
  } catch (err) {
    throw new Error(`no result.json (${String(err)}); exit ${run.exitCode}; stderr:\n${run.stderr}`);
  }
}

const RUNNERS: [string, Runner][] = [
  ['own runner', (image, _work, a) => runAttached({ image, ...a })],
  [
    'sandbox dockerBackend',
    async (image, work, a) => {
      const input = join(work, 'input.md');
      writeFileSync(input, '# gateway acceptance\n');
      const exec = await dockerBackend.run({
        runId: 'gateway-test',
        caseId: 'gateway-acceptance',
        trial: 1,
        image,
        command: a.command.map(shq).join(' '),
        deliveryDir: a.deliveryDir,
        inputPath: input,
        assetsDir: null,
        outputDir: a.outDir,
        env: a.env,
        limits: {
          wallSeconds: (a.timeoutMs ?? WAIT_MS) / 1000,
          memoryMb: 256,
          cpus: 1,
          pids: 64,
          outputBytes: 1 << 20,
        },
        gateway: a.attachment,
        mounts: a.mounts,
      });
      return { exitCode: exec.exitCode, stderr: exec.stderr };
    },
  ],
];

describe.skipIf(!hasEngine).each(RUNNERS)(
  'gateway from inside a --network none container (%s)',
  (runnerName, runner) => {
    let stub: StubServer;
    let gw: Gateway;
    let image: string;
    let work: string;

    beforeAll(async () => {
      image = (await ensureRuntimeImage()).tag;
      work = mkdtempSync(join(tmpdir(), 'gw-container-'));
      stub = await startStubServer({
        script: (req) => {
          const auth = String(req.headers.authorization ?? '');
          const msgs = req.body?.messages;
          const said = Array.isArray(msgs) ? String(msgs.at(-1)?.content ?? '') : String(req.body?.input ?? '');
          if (said === 'echo auth') return { content: `auth=${auth}` };
          return {
            content: `stub says: ${said}`,
            stream: { delayMs: 10 },
            usage: { prompt_tokens: 11, completion_tokens: 5 },
          };
        },
      });
      gw = await startGateway({
        env: {},
        ledgerDir: join(work, 'ledger'),
        roles: { runtime: { baseURL: stub.baseURL, apiKey: REAL_KEY, model: 'fixed-model' } },
        retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 10 },
      });
    });
    afterAll(async () => {
      await gw?.close();
      await stub?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    function outDir(name: string) {
      const od = mkdtempSync(join(work, `out-${name}-`));
      chmodSync(od, 0o777);
      return od;
    }

    test('a delivery using the official openai npm client gets the stub replies, streamed chunk by chunk', async () => {
      const reg = gw.registerCase({
        caseId: `node-openai-${runnerName}`,
        trial: 1,
        budgets: { calls: 10, tokens: 10_000, wallSeconds: null },
      });
      const attachment = attachmentFor(gw, reg);
      expect(attachment.env.OPENAI_BASE_URL).toBe(`http://127.0.0.1:${attachment.port}/v1`);
      const od = outDir('node');
      const run = await runner(image, work, {
        attachment,
        deliveryDir: join(FIX, 'node-openai'),
        outDir: od,
        command: ['node', '/delivery/main.mjs'],
        // the repo's own client, read-only, where Node resolves `openai` from /delivery/main.mjs
        mounts: [
          { hostPath: join(ROOT, 'node_modules/openai'), containerPath: '/node_modules/openai', readOnly: true },
        ],
      });
      const result = readResult(od, run);
      expect(result.error, run.stderr).toBeUndefined();
      expect(run.exitCode).toBe(0);
      expect(result.chat).toBe('stub says: hello from node');
      expect(result.chatModel).toBe('fixed-model');
      expect(result.streamChunks.length).toBeGreaterThan(2);
      expect(result.streamChunks.join('')).toBe('stub says: stream please');
      expect(result.responses).toBe('stub says: responses api');
      expect(result.models).toEqual(['fixed-model']);
      const ledger = gw.ledgerFor(`node-openai-${runnerName}`, 1);
      expect(ledger.map((e) => [e.endpoint, e.stream, e.classification])).toEqual([
        ['chat.completions', false, 'success'],
        ['chat.completions', true, 'success'],
        ['responses', false, 'success'],
      ]);
      expect(ledger.every((e) => e.usage?.totalTokens === 16)).toBe(true);
    });

    test('a delivery using only Python urllib gets the stub replies, streaming included', async () => {
      const reg = gw.registerCase({
        caseId: `python-urllib-${runnerName}`,
        trial: 1,
        budgets: { calls: 10, tokens: 10_000, wallSeconds: null },
      });
      const od = outDir('py');
      const run = await runner(image, work, {
        attachment: attachmentFor(gw, reg),
        deliveryDir: join(FIX, 'python-urllib'),
        outDir: od,
        command: ['python3', '/delivery/main.py'],
      });
      const result = readResult(od, run);
      expect(result.error, run.stderr).toBeUndefined();
      expect(run.exitCode).toBe(0);
      expect(result.chat).toBe('stub says: hello from python');
      expect(result.chatModel).toBe('fixed-model');
      expect(result.streamChunks.length).toBeGreaterThan(2);
      expect(result.streamChunks.join('')).toBe('stub says: s');
      expect(result.streamDone).toBe(true);
      expect(gw.ledgerFor(`python-urllib-${runnerName}`, 1).map((e) => e.classification)).toEqual([
        'success',
        'success',
      ]);
    });

    test('the real key is nowhere in the container: env, files, /proc/*/environ, /proc/*/cmdline, model replies', async () => {
      const canaryEnv = {
        CANARY_PREFIX_B64: Buffer.from(CANARY_PREFIX).toString('base64'),
        CANARY_SHA256: createHash('sha256').update(REAL_KEY).digest('hex'),
        CANARY_LEN: String(REAL_KEY.length),
      };
      const reg = gw.registerCase({
        caseId: `key-scan-${runnerName}`,
        trial: 1,
        budgets: { calls: 10, tokens: 10_000, wallSeconds: null },
      });
      const attachment = attachmentFor(gw, reg);
      expect(JSON.stringify(attachment)).not.toContain(REAL_KEY);
      expect(readFileSync(attachment.relayScript, 'utf8')).not.toContain(REAL_KEY);
      const od = outDir('scan');
      const run = await runner(image, work, {
        attachment,
        deliveryDir: join(FIX, 'key-scan'),
        outDir: od,
        command: ['python3', '/delivery/scan.py'],
        env: canaryEnv,
      });
      expect(run.exitCode, run.stderr).toBe(0);
      const result = readResult(od, run);
      if (process.env.GW_DEBUG) console.log(runnerName, JSON.stringify(result));
      expect(result.found).toEqual([]);
      expect(result.stats.files).toBeGreaterThan(100); // the scan really walked the filesystem
      expect(result.stats.procEntries).toBeGreaterThanOrEqual(4); // relay + scanner, environ + cmdline each
      // the stub did receive the real key (it echoed the Authorization header), and the gateway redacted it
      expect(result.reply).toBe('auth=Bearer [redacted]');
      expect(stub.calls.at(-1)!.headers.authorization).toBe(`Bearer ${REAL_KEY}`);

      // positive control: the same scan finds the key when it is planted in the env and in a mounted file
      const plantDir = mkdtempSync(join(work, 'plant-'));
      chmodSync(plantDir, 0o755);
      writeFileSync(join(plantDir, 'leak.txt'), `config: ${REAL_KEY}\n`, { mode: 0o644 });
      const od2 = outDir('control');
      const reg2 = gw.registerCase({
        caseId: `key-scan-control-${runnerName}`,
        trial: 1,
        budgets: { calls: 10, tokens: 10_000, wallSeconds: null },
      });
      const controlRun = await runner(image, work, {
        attachment: attachmentFor(gw, reg2),
        deliveryDir: join(FIX, 'key-scan'),
        outDir: od2,
        command: ['python3', '/delivery/scan.py'],
        env: { ...canaryEnv, LEAK_SELF_TEST: '1', PLANT_A: REAL_KEY.slice(0, 20), PLANT_B: REAL_KEY.slice(20) },
        mounts: [{ hostPath: plantDir, containerPath: '/plant', readOnly: true }],
      });
      const control = readResult(od2, controlRun);
      expect(control.found).toEqual(expect.arrayContaining(['env', '/plant/leak.txt']));
    });
  },
);
