import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CaseRef } from '../../src/commission/index.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { selectCases } from '../../src/vitest/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const ref = (id: string, split: 'dev' | 'heldout' = 'heldout') => ({ id, split }) as CaseRef;

describe('selecting cases (--case, --limit)', () => {
  const cases = ['h01-jsonl', 'h02-timezones', 'h03-stacktraces', 'h10-big'].map((id) => ref(id));
  test('globs match the id or split/id, the limit applies after them in id order, and the rest is named', () => {
    expect(selectCases(cases, undefined)).toEqual({ run: cases, skipped: [] });
    expect(selectCases(cases, { match: ['h0*'] }).run.map((c) => c.id)).toEqual([
      'h01-jsonl',
      'h02-timezones',
      'h03-stacktraces',
    ]);
    expect(selectCases(cases, { match: ['heldout/*big'] }).run.map((c) => c.id)).toEqual(['h10-big']);
    expect(selectCases(cases, { match: ['h0?-*', 'h10-big'], limit: 2 })).toEqual({
      run: [cases[0], cases[1]],
      skipped: ['h03-stacktraces', 'h10-big'],
    });
    expect(selectCases(cases, { limit: 1 }).skipped).toHaveLength(3);
  });
});

// `heldout run --delivery a --delivery b` runs both in one run (as the plugin's { label: dir } map does), a filtered
// run is partial (summary@2's `partial`), and a delivery that crashes is told why: the end of its stderr is in the reason.
describe('heldout run with several deliveries and a case filter', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-run-deliveries-'));
  const crash = path.join(tmp, 'crashing');
  const out = path.join(tmp, 'report');
  let r: Awaited<ReturnType<typeof heldout>>;
  let summary: any;
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  beforeAll(async () => {
    mkdirSync(crash);
    writeFileSync(
      path.join(crash, 'run_agent.py'),
      'import sys\nprint("reading the request", file=sys.stderr)\nraise SystemExit("cannot parse the log: unknown format")\n',
    );
    r = await heldout([
      'run',
      path.join(repoRoot, 'tasks/log-triage'),
      '--delivery',
      `ref=${path.join(repoRoot, 'fixtures/deliveries/log-triage-reference')}`,
      '--delivery',
      crash,
      '--case',
      'h0*',
      '--case',
      'dev-001',
      '--limit',
      '2',
      '--split',
      'both',
      '--sandbox',
      'process',
      '--out',
      out,
    ]);
    summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  });

  test('every delivery runs in the one run, labelled by label= or its directory name', () => {
    expect(r.code, r.out).toBe(1);
    const entries = summary.commissions.map(
      (c: any) => `${c.delivery.label} ${c.split} ${c.cases.map((x: any) => x.id).join(',')}`,
    );
    expect(entries.sort()).toEqual([
      'crashing dev dev-001',
      'crashing heldout h01-jsonl,h02-timezones',
      'ref dev dev-001',
      'ref heldout h01-jsonl,h02-timezones',
    ]);
    expect(
      summary.commissions.filter((c: any) => c.delivery.label === 'ref').every((c: any) => c.result.mean === 100),
    ).toBe(true);
  });

  test("the cases left out are the summary's partial record: counted, named as filtered, and said on the console", () => {
    // 2 deliveries × (2 dev + 9 held-out) planned; each runs dev-001 and the first two h0* cases.
    expect(summary.partial).toMatchObject({ planned: 22, ran: 6, notRun: 16, shard: null, more: 0 });
    expect(summary.partial.cases.every((c: any) => c.why === 'filtered')).toBe(true);
    expect(summary.partial.cases).toContainEqual({
      commission: 'log-triage',
      delivery: 'ref',
      split: 'heldout',
      id: 'h03-stacktraces',
      trial: 1,
      why: 'filtered',
    });
    expect(summary.partial.cases.filter((c: any) => c.split === 'dev').map((c: any) => c.id)).toEqual([
      'dev-002',
      'dev-002',
    ]);
    expect(summary.commissions.every((c: any) => c.flags.includes('partial'))).toBe(true);
    expect(r.out).toContain('heldout: partial run: 16 of 22 planned executions were not run (16 filtered)');
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(/16 of 22 planned executions were not run/);
  });

  test('a --case that matches no case is refused before anything runs', async () => {
    const bad = await heldout([
      'run',
      path.join(repoRoot, 'tasks/log-triage'),
      '--delivery',
      path.join(repoRoot, 'fixtures/deliveries/log-triage-reference'),
      '--case',
      'h99-*',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/^heldout: run: --case h99-\* matches no heldout case; the cases are h01-jsonl, /m);
    expect(bad.out).not.toMatch(/\n\s+at /);
  });

  test('the error-exit reason carries the tail of stderr, in the console and in report.md', () => {
    const reason =
      /the entry command exited 1; allowed exit codes: 0; stderr: reading the request \| cannot parse the log: unknown format/;
    expect(r.out).toMatch(reason);
    const report = readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(report).toMatch(
      /gate error-exit failed: the entry command exited 1; .*stderr: reading the request \\\| cannot parse the log/,
    );
  });
});

// The engine gate caps running sandboxes over every heldout process of the machine (2 × engine CPUs by default): a
// run that asks for more is told so, instead of silently running fewer (bench/README.md, issue 24).
const engine = await engineAnswers(WAIT_MS);
describe.skipIf(!engine)(
  engine ? 'a concurrency above the engine gate' : 'a concurrency above the engine gate — skipped: no docker engine',
  () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-run-capped-'));
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));
    const run = (out: string, concurrency: string, env: NodeJS.ProcessEnv) =>
      heldout(
        [
          'run',
          path.join(repoRoot, 'tasks/log-triage'),
          '--delivery',
          path.join(repoRoot, 'fixtures/deliveries/log-triage-reference'),
          '--split',
          'dev',
          '--limit',
          '1',
          '--sandbox',
          'docker',
          '--concurrency',
          concurrency,
          '--out',
          path.join(tmp, out),
        ],
        { env },
      );

    test('is said once, with the cap and how to raise it; a run within the cap says nothing of it', async () => {
      const env = { ...process.env, HELDOUT_MAX_SANDBOXES: '3' };
      const capped = await run('capped', '7', env);
      expect(capped.code, capped.out).toBe(0);
      const said = capped.out.match(/concurrency 7 is capped at 3 running sandboxes by the docker engine's gate/g);
      expect(said, capped.out).toHaveLength(1);
      expect(capped.out).toContain('set HELDOUT_MAX_SANDBOXES to change it');
      const within = await run('within', '3', env);
      expect(within.code, within.out).toBe(0);
      expect(within.out).not.toMatch(/is capped at/);
    });
  },
);
