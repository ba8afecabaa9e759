/**
 * `heldout dev` end to end on the creation commission tasks/log-triage and its reference delivery, through the real
 * heldout run (Vitest + sandbox + grading): rounds recorded, repeats not counted, the budget enforced, and
 * freezeFromLedger freezing exactly the tree of the round a policy picks.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import dev from '../../src/cli/commands/dev.js';
import { CommissionError } from '../../src/commission/index.js';
import { freezeFromLedger, RoundDigestMismatchError, readLedger } from '../../src/devloop/index.js';
import { readFreeze, treeDigest, verifyFreeze } from '../../src/freeze/index.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-devloop-'));
const commission = path.join(tmp, 'log-triage');
const delivery = path.join(tmp, 'delivery');
const agent = path.join(delivery, 'run_agent.py');
let original = '';
let outs = 0;

beforeAll(() => {
  cpSync(path.join(repoRoot, 'tasks/log-triage'), commission, { recursive: true });
  const yaml = path.join(commission, 'commission.yaml');
  const text = readFileSync(yaml, 'utf8');
  expect(text).toMatch(/devRounds: \d+/);
  writeFileSync(yaml, text.replace(/devRounds: \d+/, 'devRounds: 2'));
  cpSync(path.join(repoRoot, 'fixtures/deliveries/log-triage-reference'), delivery, { recursive: true });
  original = readFileSync(agent, 'utf8');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `heldout dev` through the command module, capturing what it prints. */
async function heldoutDev(values: Record<string, unknown>, positionals = [commission]) {
  const lines: string[] = [];
  const capture = (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  };
  const stdout: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation(capture);
  const err = vi.spyOn(console, 'error').mockImplementation(capture);
  // Raw writes to stdout (the run's own table) are collected apart from the command's console output.
  const raw = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return true;
  });
  try {
    const out = path.join(tmp, `out-${++outs}`);
    const code = await dev.run({ values: { sandbox: 'process', out, ...values }, positionals });
    return { code, text: lines.join('\n'), out, stdout: stdout.join('') };
  } finally {
    log.mockRestore();
    err.mockRestore();
    raw.mockRestore();
  }
}

describe('heldout dev on tasks/log-triage (budget 2 rounds)', () => {
  const ledger = path.join(tmp, 'rounds.json');
  let round1 = '';
  let round2 = '';

  test('round 1: per-case scores and feedback, recorded in the ledger, exit 0 when every dev case passed', async () => {
    round1 = await treeDigest(delivery);
    const r = await heldoutDev({ delivery, ledger });
    expect(r.code, r.text).toBe(0);
    expect(r.text).toMatch(/^dev-001: 100 — passed$/m);
    expect(r.text).toMatch(/^dev-002: 100 — passed$/m);
    expect(r.text).toMatch(/counts 35\/35 · errors 35\/35 · request 15\/15 · summary 15\/15/);
    expect(r.text).toContain(`round 1 of 2 (digest ${round1.slice(0, 19)}, dev mean 100, accepted)`);
    expect(r.text).toMatch(/ledger .* · report /);
    const l = await readLedger(ledger, 'log-triage');
    expect(l.rounds).toHaveLength(1);
    expect(l.rounds[0]).toMatchObject({ round: 1, digest: round1, devMean: 100, accepted: true });
    expect(l.rounds[0].cases.map((c) => [c.id, c.result, c.status, c.gate, c.passed])).toEqual([
      ['dev-001', 100, 'graded', null, true],
      ['dev-002', 100, 'graded', null, true],
    ]);
    expect(existsSync(path.join(r.out, 'summary.json'))).toBe(true);
  });

  test('the identical tree again is run but not counted', async () => {
    const r = await heldoutDev({ delivery, ledger });
    expect(r.code, r.text).toBe(0);
    expect(r.text).toContain('identical to round 1, not counted');
    const l = await readLedger(ledger, 'log-triage');
    expect(l.rounds).toHaveLength(1);
    expect(l.rounds[0].resubmittedAt).toHaveLength(1);
  });

  test('a changed delivery is a new round; --json prints one document', async () => {
    writeFileSync(agent, `${original}\n# round 2: a comment changes the digest, not the behaviour\n`);
    round2 = await treeDigest(delivery);
    expect(round2).not.toBe(round1);
    const r = await heldoutDev({ delivery, ledger, json: true });
    expect(r.code, r.text).toBe(0);
    expect(r.stdout).toBe('');
    const doc = JSON.parse(r.text);
    expect(doc).toMatchObject({
      commission: 'log-triage',
      round: 2,
      budget: 2,
      counted: true,
      digest: round2,
      devMean: 100,
      accepted: true,
    });
    expect(doc.cases.map((c: { id: string }) => c.id)).toEqual(['dev-001', 'dev-002']);
    expect((await readLedger(ledger, 'log-triage')).rounds.map((x) => x.digest)).toEqual([round1, round2]);
  });

  test('round 3 beyond budgets.devRounds = 2 is refused with exit 2 and nothing runs', async () => {
    writeFileSync(agent, `${original}\n# round 3\n`);
    const r = await heldoutDev({ delivery, ledger });
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/round 3 refused: the development round budget of log-triage is spent \(2 of 2 rounds used/);
    expect(existsSync(r.out)).toBe(false);
    expect((await readLedger(ledger, 'log-triage')).rounds).toHaveLength(2);
  });

  test('restoring round 1’s tree after the budget is spent still runs, as round 1', async () => {
    writeFileSync(agent, original);
    const r = await heldoutDev({ delivery, ledger });
    expect(r.code, r.text).toBe(0);
    expect(r.text).toContain('identical to round 1, not counted — round 1 of 2');
  });

  test('freezeFromLedger: best-dev ties go to round 1, which is on disk; final wants round 2 and names both digests', async () => {
    const out = path.join(tmp, 'best-dev.json');
    const { manifest, round } = await freezeFromLedger({
      deliveryDir: delivery,
      ledgerPath: ledger,
      policy: 'best-dev',
      out,
    });
    expect(round.round).toBe(1);
    const written = await readFreeze(out);
    expect(written).toMatchObject({ digest: round1, policy: 'best-dev', round: 1 });
    expect(manifest.digest).toBe(round1);
    expect(await verifyFreeze(delivery, written)).toBe(round1);

    const final = path.join(tmp, 'final.freeze.json');
    const attempt = freezeFromLedger({ deliveryDir: delivery, ledgerPath: ledger, policy: 'final', out: final });
    await expect(attempt).rejects.toThrow(RoundDigestMismatchError);
    await expect(attempt).rejects.toThrow(new RegExp(`round 2 .*${round2}.* now has digest ${round1}`));
    expect(existsSync(final)).toBe(false);
  });
});

describe('heldout dev refusals and failures', () => {
  test('a hollow delivery: gate feedback, round not accepted, exit 1', async () => {
    const ledger = path.join(tmp, 'hollow.json');
    const hollow = path.join(repoRoot, 'fixtures/deliveries/log-triage-hollow');
    const r = await heldoutDev({ delivery: hollow, ledger });
    expect(r.code, r.text).toBe(1);
    expect(r.text).toMatch(/^dev-001: 0 — gate-failed$/m);
    expect(r.text).toMatch(/gate missing-artifact failed: required artifact report\.json is missing/);
    expect(r.text).toMatch(/round 1 of 2 \(digest sha256:[0-9a-f]{12}, dev mean 0\)$/m);
    const l = await readLedger(ledger, 'log-triage');
    expect(l.rounds[0]).toMatchObject({ accepted: false, devMean: 0 });
    await expect(
      freezeFromLedger({ deliveryDir: hollow, ledgerPath: ledger, policy: 'last-accepted' }),
    ).rejects.toThrow(/none of the 1 rounds of log-triage was accepted/);
  });

  test('usage errors: no delivery, ledger inside the delivery, invalid commission, a ledger of another commission', async () => {
    await expect(dev.run({ values: {}, positionals: [commission] })).rejects.toThrow(/--delivery <dir> is required/);
    await expect(heldoutDev({ delivery, ledger: path.join(delivery, 'rounds.json') })).rejects.toThrow(
      /round ledger .* lies inside the delivery/,
    );
    const broken = path.join(tmp, 'broken');
    cpSync(commission, broken, { recursive: true });
    writeFileSync(path.join(broken, 'commission.yaml'), 'id: broken\n');
    await expect(heldoutDev({ delivery }, [broken])).rejects.toThrow(CommissionError);
    const other = path.join(tmp, 'other.json');
    writeFileSync(other, JSON.stringify({ schema: 'heldout/rounds@1', commission: 'todo-due-dates', rounds: [] }));
    await expect(heldoutDev({ delivery, ledger: other })).rejects.toThrow(
      /round ledger of commission todo-due-dates, not log-triage/,
    );
  });
});

const docker = await engineAnswers(WAIT_MS);
describe.skipIf(!docker)(
  docker ? 'heldout dev in docker' : 'heldout dev in docker — skipped: no engine answers',
  () => {
    test('a round through the docker sandbox is recorded like any other', async () => {
      const ledger = path.join(tmp, 'docker.json');
      const r = await heldoutDev({ delivery, ledger, sandbox: 'docker' });
      expect(r.code, r.text).toBe(0);
      expect(r.text).toContain('round 1 of 2');
      expect(JSON.parse(readFileSync(path.join(r.out, 'summary.json'), 'utf8')).run.sandbox).toBe('docker');
    });
  },
);
