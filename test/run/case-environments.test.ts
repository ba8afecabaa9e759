/**
 * Issue 19 end to end through `heldout run` on the docker engine: a case whose services talk to each other by name,
 * services that cannot serve (infra-errors, never the delivery's fault), an environment built from a Dockerfile
 * (once, then a cache hit), and a base image no registry can give (refused before any case, or mapped to a local
 * image and reported as substituted on every row).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { engineAnswers, ensureRuntimeImage } from '../../src/sandbox/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const execFileP = promisify(execFile);
const engine = await engineAnswers(WAIT_MS);
const FIX = path.join(repoRoot, 'fixtures/services');

async function containersOf(runId: string): Promise<string[]> {
  const { stdout } = await execFileP('docker', ['ps', '-a', '-q', '--filter', `label=heldout.run=${runId}`]);
  return stdout.split('\n').filter(Boolean);
}

describe.skipIf(!engine)(
  engine ? 'case environments (docker)' : 'case environments — skipped: no docker engine',
  () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-envs-'));
    let n = 0;
    beforeAll(async () => {
      await ensureRuntimeImage();
    });
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));

    const run = async (commission: string, delivery: string, extra: string[] = []) => {
      const runId = `i19-env-${process.pid}-${n}`;
      const out = path.join(tmp, `run-${n++}`);
      const r = await heldout(
        [
          'run',
          commission,
          '--delivery',
          path.join(FIX, 'deliveries', delivery),
          '--sandbox',
          'docker',
          '--out',
          out,
          ...extra,
        ],
        { env: { ...process.env, HELDOUT_RUN_ID: runId } },
      );
      const summaryFile = path.join(out, 'summary.json');
      const summary = existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')).commissions[0] : null;
      return { r, out, runId, summary, rows: (summary?.cases ?? []) as Record<string, any>[] };
    };

    test('a case needing two services: the reference delivery passes, one that never calls the API fails its check', async () => {
      const ok = await run(path.join(FIX, 'service-lookup'), 'reference');
      expect(ok.r.code, ok.r.out).toBe(0);
      expect(ok.rows.map((c) => [c.id, c.status, c.result])).toEqual([
        ['h1', 'graded', 100],
        ['h2', 'graded', 100],
      ]);
      // the services' logs are the case's evidence: the api asked the catalog, by name, for the case's own SKU
      const evidence = path.join(ok.out, 'cases/service-lookup/reference/heldout/h1-t1.services');
      expect(readFileSync(path.join(evidence, 'catalog.log'), 'utf8')).toContain('catalog: GET /items/A-17');
      expect(readFileSync(path.join(evidence, 'api.log'), 'utf8')).toContain('GET /price?sku=A-17');
      const meta = JSON.parse(readFileSync(`${evidence.replace(/\.services$/, '')}.meta.json`, 'utf8'));
      expect(meta.services.map((s: { name: string }) => s.name)).toEqual(['catalog', 'api']);
      expect(await containersOf(ok.runId)).toEqual([]);

      const lazy = await run(path.join(FIX, 'service-lookup'), 'never-calls');
      expect(lazy.r.code).toBe(1);
      expect(lazy.rows.map((c) => [c.id, c.status, c.result, c.passed])).toEqual([
        ['h1', 'graded', 0, false],
        ['h2', 'graded', 0, false],
      ]);
      expect(await containersOf(lazy.runId)).toEqual([]);
    });

    test('services that exit, are never ready, or have no image: infra-errors naming each, with log tails; nothing left', async () => {
      const x = await run(path.join(FIX, 'broken'), 'env-reader');
      const byId: Record<string, Record<string, any>> = Object.fromEntries(x.rows.map((c) => [c.id, c]));
      expect(x.rows.map((c) => c.status)).toEqual(['infra-error', 'infra-error', 'infra-error']);
      expect(byId.exits.reason).toMatch(/service crasher: exited with code 3 before it was ready/);
      expect(byId.exits.reason).toContain('crasher: fatal: no config');
      expect(byId['never-ready'].reason).toMatch(
        /service sleeper: was not ready within 3 s \(HTTP GET 127\.0\.0\.1:6001\/health/,
      );
      expect(byId['never-ready'].reason).toContain('sleeper: warming up');
      expect(byId['no-image'].reason).toMatch(
        /service ghost: image heldout-test\/absent-service:never is not on this engine/,
      );
      // infra errors are dropped from the means, never scored against the delivery
      expect(x.summary.result).toMatchObject({ n: 0, mean: null, infraErrors: 3 });
      expect(await containersOf(x.runId)).toEqual([]);
    });

    test('a Dockerfile environment builds once (the second run is a cache hit), and its data files are in the image', async () => {
      // A private copy on a private base: another checkout rebuilding the shared runtime image mid-test would
      // (rightly) change the digest.
      const id = `built-env-${process.pid}`;
      const base = `heldout-test/i19-base-${process.pid}:1`;
      const dir = path.join(tmp, id);
      cpSync(path.join(FIX, 'built'), dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'commission.yaml'),
        readFileSync(path.join(dir, 'commission.yaml'), 'utf8').replace('id: built-environment', `id: ${id}`),
      );
      writeFileSync(path.join(dir, 'environment/Dockerfile'), `FROM ${base}\nCOPY data/ /opt/env-data/\n`);
      await execFileP('docker', ['tag', 'heldout/runtime:1', base]);
      try {
        const first = await run(dir, 'env-reader');
        expect(first.r.code, first.r.out).toBe(0);
        expect(first.rows[0]).toMatchObject({ status: 'graded', result: 100 });
        const log1 = readFileSync(path.join(first.out, 'builds', id, `${id}.log`), 'utf8');
        expect(log1).toMatch(/COPY data\//);
        const tag = /Successfully tagged (\S+)/.exec(log1)?.[1];
        expect(tag).toMatch(new RegExp(`^heldout/build-${id}:[0-9a-f]{12}$`));

        const second = await run(dir, 'env-reader');
        expect(second.r.code, second.r.out).toBe(0);
        expect(readFileSync(path.join(second.out, 'builds', id, `${id}.log`), 'utf8')).toMatch(
          new RegExp(`^cache hit: ${tag!.replace(/[/.]/g, '\\$&')} .*nothing built`),
        );
        expect(second.rows[0]).toMatchObject({ status: 'graded', result: 100 });
      } finally {
        const { stdout } = await execFileP('docker', ['images', '-q', '--filter', `label=heldout.build=${id}`]);
        for (const img of new Set(stdout.split('\n').filter(Boolean)))
          await execFileP('docker', ['rmi', '-f', img]).catch(() => {});
        await execFileP('docker', ['rmi', base]).catch(() => {});
      }
    });

    test('a base image the engine lacks refuses every case before any runs; an image map substitutes it, reported on every row', async () => {
      const has = await execFileP('docker', ['image', 'inspect', 'ubuntu:24.04']).then(
        () => true,
        () => false,
      );
      // (an engine that has ubuntu:24.04 has nothing to refuse; the map is tested all the same)
      if (!has) {
        const refused = await run(path.join(FIX, 'ubuntu-env'), 'env-reader');
        expect(refused.rows.map((c) => c.status)).toEqual(['infra-error', 'infra-error']);
        for (const c of refused.rows) {
          expect(c.reason).toMatch(
            /^environment: image build ubuntu-environment: base image ubuntu:24\.04 is not on this engine \(heldout pulls nothing/,
          );
          expect(c.exitCode).toBeNull();
        }
        // no case reached a sandbox: nothing was written into any case's output directory
        const outs = path.join(refused.out, 'cases/ubuntu-environment/env-reader/heldout');
        for (const d of readdirSync(outs).filter((f) => f.endsWith('-t1')))
          expect(readdirSync(path.join(outs, d))).toEqual([]);
        expect(await containersOf(refused.runId)).toEqual([]);
      }

      const mapped = await run(path.join(FIX, 'ubuntu-env'), 'env-reader', [
        '--image-map',
        'ubuntu:24.04=heldout/runtime:1',
      ]);
      expect(mapped.r.code, mapped.r.out).toBe(0);
      for (const c of mapped.rows) {
        expect(c.status).toBe('graded');
        expect(c.substitutedImages).toEqual([
          { from: 'ubuntu:24.04', to: 'heldout/runtime:1', for: 'sandbox build skipped' },
        ]);
      }
      expect(readFileSync(path.join(mapped.out, 'report.md'), 'utf8')).toContain(
        'images substituted (figures are not those of the original environment): `ubuntu:24.04` → `heldout/runtime:1` (sandbox build skipped) on 2 of 2 executions',
      );
      // no build was attempted: the map skipped it
      expect(existsSync(path.join(mapped.out, 'builds', 'ubuntu-environment', 'ubuntu-environment.log'))).toBe(false);
    });

    test('a command check in an image the engine lacks is an infra-error; the image map runs it in the mapped one', async () => {
      const has = await execFileP('docker', ['image', 'inspect', 'python:3.12-slim']).then(
        () => true,
        () => false,
      );
      if (!has) {
        const refused = await run(path.join(FIX, 'mapped-check'), 'env-reader');
        expect(refused.rows.map((c) => c.status)).toEqual(['infra-error']);
        expect(refused.rows[0]!.reason).toMatch(/image python:3\.12-slim is not on this engine/);
      }
      const mapped = await run(path.join(FIX, 'mapped-check'), 'env-reader', [
        '--image-map',
        'python:3.12-slim=heldout/runtime:1',
      ]);
      expect(mapped.r.code, mapped.r.out).toBe(0);
      expect(mapped.rows.map((c) => [c.id, c.status, c.result])).toEqual([['h1', 'graded', 100]]);
      expect(mapped.rows[0]!.substitutedImages).toEqual([
        { from: 'python:3.12-slim', to: 'heldout/runtime:1', for: 'command check' },
      ]);
      expect(await containersOf(mapped.runId)).toEqual([]);
    });

    test('--image-map takes from=to pairs; anything else is a usage error naming it', async () => {
      const r = await heldout([
        'run',
        path.join(FIX, 'service-lookup'),
        '--delivery',
        tmp,
        '--image-map',
        'ubuntu:24.04',
      ]);
      expect(r.code).toBe(2);
      expect(r.out).toContain('--image-map: expected from=to (two image references), got "ubuntu:24.04"');
    });
  },
);
