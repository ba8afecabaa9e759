import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import generate from '../../../src/cli/commands/taste-generate.js';
import { createEnvironment, runEpisode, scriptedUser, type Tau2Task } from '../../../src/domains/index.js';
import { coverageMetrics, decoysPreserveGold } from '../../../src/taste/index.js';
import { agentFactory, oracleExtras } from '../../domains/agents.js';
import { domain, tau2Dir } from '../../domains/data.js';

const airlineDir = path.join(tau2Dir, 'airline');
let out: string;
let tasks: Tau2Task[];
let report: any;

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), 'taste-generate-'));
  const code = await generate.run({ values: { domain: airlineDir, out, seed: '0' }, positionals: [] });
  expect(code).toBe(0);
  tasks = JSON.parse(readFileSync(path.join(out, 'tasks.json'), 'utf8'));
  report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('heldout taste generate --domain airline (offline)', () => {
  it('writes at least 40 tasks in τ² schema', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(40);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    for (const t of tasks) {
      const i = t.user_scenario.instructions as Record<string, unknown>;
      for (const k of ['reason_for_call', 'known_info', 'task_instructions']) expect(typeof i[k]).toBe('string');
      expect(t).toHaveProperty('initial_state');
      const actions = t.evaluation_criteria?.actions ?? [];
      expect(actions.length).toBeGreaterThan(0);
      actions.forEach((a, k) => {
        expect(a).toMatchObject({ action_id: `${t.id}_${k}`, requestor: 'assistant', compare_args: null });
        expect(typeof a.name).toBe('string');
      });
      expect(t.evaluation_criteria?.reward_basis).toEqual(
        t.evaluation_criteria?.communicate_info?.length ? ['DB', 'COMMUNICATE'] : ['DB'],
      );
    }
  });

  it('every gold sequence executes on our airline domain without a tool error', async () => {
    const d = await domain('airline');
    for (const t of tasks) {
      const env = createEnvironment(d, undefined, { initialState: t.initial_state });
      for (const a of t.evaluation_criteria?.actions ?? []) {
        const r = env.call(a.name, a.arguments);
        expect(r, `${t.id} ${a.name}`).toMatchObject({ ok: true });
      }
    }
  });

  it('decoys never appear in gold calls and do not change the gold final state', async () => {
    const d = await domain('airline');
    const withDecoys = report.entries.filter((e: any) => e.decoys.length > 0);
    expect(withDecoys.length).toBeGreaterThan(0);
    for (const e of withDecoys) {
      const evolved = tasks.find((t) => t.id === e.id)!;
      expect(evolved.initial_state).not.toBeNull();
      const base = { ...evolved, initial_state: null };
      expect(decoysPreserveGold(d, base, evolved, e.decoys), e.id).toEqual({ ok: true });
    }
  });

  it('the test oracle reaches reward 1 on every generated task', async () => {
    const d = await domain('airline');
    const oracle = await agentFactory('oracle.mjs', 'createOracle');
    for (const t of tasks) {
      const ep = await runEpisode({
        task: t,
        domain: d,
        agent: oracle(),
        user: scriptedUser(),
        startExtras: oracleExtras(t),
      });
      expect(ep.reward, t.id).toBe(1);
    }
  });

  it('reports coverage against the original gold set', () => {
    const c = report.coverage;
    console.log(
      `airline coverage: WED ${c.generated.meanPairwiseWed.toFixed(3)} vs ${c.original.meanPairwiseWed.toFixed(3)} (×${c.ratios.meanPairwiseWed.toFixed(2)}), ` +
        `trigram TTR ${c.generated.ngrams['3'].ttr.toFixed(3)} vs ${c.original.ngrams['3'].ttr.toFixed(3)} (×${c.ratios.trigramTtr.toFixed(2)}), ` +
        `entropy ${c.generated.entropy.toFixed(3)} vs ${c.original.entropy.toFixed(3)} (×${c.ratios.entropy.toFixed(2)}); ${tasks.length} tasks`,
    );
    expect(c.generated.sequences).toBe(tasks.length);
    expect(c.original.sequences).toBe(50);
    // The goals of DESIGN §11 (×2, ×2, +30 %), met by the default seed 0 (×2.26, ×2.004, ×1.35). Generation is
    // deterministic for a seed; over seeds 0–6 WED and entropy always meet them, trigram TTR ranges ×1.81–×2.05.
    expect(c.goals).toEqual({ meanPairwiseWed: true, trigramTtr: true, entropy: true });
    expect(c.ratios.meanPairwiseWed).toBeGreaterThanOrEqual(2);
    expect(c.ratios.trigramTtr).toBeGreaterThanOrEqual(2);
    expect(c.ratios.entropy).toBeGreaterThanOrEqual(1.3);
  });

  it('every medoid becomes a task whose gold sequence is the medoid sequence itself', async () => {
    // Uninstantiable medoids (e.g. four bookings: τ² has three new reservation ids) were replaced in stage 2.
    expect(report.medoids).toBe(50);
    expect(report.entries.map((e: any) => e.status)).toEqual(Array(50).fill('generated'));
    expect(tasks.length).toBe(50);
    for (const e of report.entries) {
      const t = tasks.find((x) => x.id === e.id)!;
      expect(
        (t.evaluation_criteria?.actions ?? []).map((a) => a.name),
        e.id,
      ).toEqual(e.sequence);
    }
    const d = await domain('airline');
    expect(report.coverage.generated).toEqual(
      coverageMetrics(
        report.entries.map((e: any) => e.sequence),
        d.tools as any,
      ),
    );
  });
});
