import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { importTau2 } from '../../src/importers/index.js';

const repo = path.resolve(import.meta.dirname, '../..');
const retail = path.resolve(repo, '../shared/data/tau2/retail');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-gold-replay-'));
afterAll(() => (process.env.KEEP ? undefined : rmSync(tmp, { recursive: true, force: true })));

// Retail 64 and 105 hold a gold write τ²'s own tools refuse (tau2-bench#499); 0 replays cleanly.
async function runRetail(
  goldReplay: 'lenient' | 'strict',
  label: string = goldReplay,
  edit?: (pkg: string) => void,
  toolAgent: Record<string, unknown> = {},
) {
  const pkg = path.join(tmp, `retail-${label}`);
  await importTau2(retail, pkg, { tasks: ['0', '64', '105'] });
  edit?.(pkg);
  const config = parse(readFileSync(path.join(pkg, 'commission.yaml'), 'utf8'));
  // TEST-HARNESS SWITCH: the oracle delivery replays the leaked gold calls.
  config.toolAgent = { ...config.toolAgent, oracleHints: true, goldReplay, ...toolAgent };
  writeFileSync(path.join(pkg, 'commission.yaml'), stringify(config));
  const out = path.join(tmp, `out-${label}`);
  const args = ['run', pkg, '--delivery', path.join(repo, 'fixtures/tool-agent/deliveries/oracle'), '--split', 'both'];
  const r = await promisify(execFile)(
    'node',
    [path.join(repo, 'dist/cli/bin.js'), ...args, '--sandbox', 'process', '--out', out, '--reporter', 'dot'],
    { cwd: repo, maxBuffer: 32 << 20 },
  ).catch((e) => e as { stdout: string; stderr: string });
  // One entry per split (0 and 105 are development tasks, 64 a held-out one).
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  const byId = Object.fromEntries(summary.commissions.flatMap((c: any) => c.cases).map((c: any) => [c.id, c]));
  return { byId, log: r.stdout + r.stderr, summary, out };
}

describe('gold calls the domain refuses', () => {
  test('lenient (default): graded as τ² grades them, against the state the refused write never reached', async () => {
    const { byId, log } = await runRetail('lenient');
    for (const id of ['0', '64', '105']) expect(byId[id]?.result, `${id}\n${log}`).toBe(100);
  });

  test('strict: a task whose gold replay has a refusal is unscored with the refused calls as the reason', async () => {
    const { byId, log } = await runRetail('strict');
    expect(byId['0']?.result, log).toBe(100);
    expect(byId['64']).toMatchObject({ status: 'unscored', result: null });
    expect(byId['64'].reason).toMatch(
      /64_6 exchange_delivered_order_items \(write\): Non-delivered order cannot be exchanged/,
    );
    expect(byId['105']).toMatchObject({ status: 'unscored', result: null });
    expect(byId['105'].reason).toMatch(/Insufficient gift card balance/);
  });

  test('toolAgent.semantics: tau2@1.0.1 by default; the named opt-in runs the episodes and is recorded per entry', async () => {
    const semantics = 'tau2@1.0.1+tau-bench-item-modify';
    const { summary, byId, log } = await runRetail('lenient', 'item-modify', undefined, { semantics });
    expect(summary.commissions.map((c: any) => c.semantics)).toEqual([semantics, semantics]);
    for (const id of ['0', '64', '105']) expect(byId[id]?.result, `${id}\n${log}`).toBe(100);
    const lenient = JSON.parse(readFileSync(path.join(tmp, 'out-lenient', 'summary.json'), 'utf8'));
    expect(lenient.commissions.map((c: any) => c.semantics)).toEqual(['tau2@1.0.1', 'tau2@1.0.1']);
  });

  test('a reward_basis component heldout cannot score leaves the case unscored, never the product of the rest', async () => {
    const { byId, log } = await runRetail('lenient', 'nl-assertion', (pkg) => {
      const truth = path.join(pkg, 'cases/dev/0/truth.json');
      const task = JSON.parse(readFileSync(truth, 'utf8'));
      task.evaluation_criteria.reward_basis = ['DB', 'NL_ASSERTION'];
      writeFileSync(truth, JSON.stringify(task));
    });
    expect(byId['0'], log).toMatchObject({ status: 'unscored', result: null });
    expect(byId['0'].reason).toMatch(/reward_basis includes NL_ASSERTION/);
    expect(byId['64'].result).toBe(100);
  });
});
