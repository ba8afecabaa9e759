import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import generate from '../../../src/cli/commands/taste-generate.js';
import { closedEntityWrites, coverageMetrics, decoysPreserveGold, ruleValidator } from '../../../src/taste/index.js';
import {
  createEnvironment,
  pyJsonDumps,
  pyJsonParse,
  runEpisode,
  scriptedUser,
  type Tau2Task,
} from '../../../src/tau2/index.js';
import { agentFactory, oracleExtras } from '../../tau2/agents.js';
import { domain, tau2Dir } from '../../tau2/data.js';
import { referenceUnavailable, Tau2Reference, tau2Messages } from '../../tau2/tau2-reference.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'taste-generate-'));
const unavailable = referenceUnavailable();
let ref: Tau2Reference | undefined;
beforeAll(() => {
  if (!unavailable) ref = new Tau2Reference();
});
afterAll(async () => {
  await ref?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe.each([
  { name: 'airline' as const, originals: 50, medoids: 50 },
  { name: 'retail' as const, originals: 114, medoids: 114 },
  // Telecom: 104 of K = 114, stage 2 dropping the clusters none of whose members a policy-following agent can be
  // asked for (connect_vpn, toggle_wifi: no τ² trouble they fix) or that nothing can grade.
  { name: 'telecom' as const, originals: 114, medoids: 104 },
])('heldout taste generate --domain $name (offline, seed 0)', ({ name, originals, medoids }) => {
  const out = path.join(tmp, name);
  let tasks: Tau2Task[];
  let report: any;

  beforeAll(async () => {
    const code = await generate.run({ values: { domain: path.join(tau2Dir, name), out, seed: '0' }, positionals: [] });
    expect(code).toBe(0);
    tasks = JSON.parse(readFileSync(path.join(out, 'tasks.json'), 'utf8'));
    report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
  });

  it('writes one task per medoid (K = the number of original tasks), in τ² schema', async () => {
    const d = await domain(name);
    const requestor = (tool: string) => d.tools.find((x) => x.name === tool)?.requestor ?? 'assistant';
    // Uninstantiable sequences (e.g. four airline bookings: τ² has three new reservation ids) were replaced in stage 2.
    expect(report.medoids).toBe(medoids);
    expect(report.entries.map((e: any) => e.status)).toEqual(Array(medoids).fill('generated'));
    expect(tasks.length).toBe(medoids);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    for (const t of tasks) {
      const i = t.user_scenario.instructions as Record<string, unknown>;
      for (const k of ['reason_for_call', 'known_info', 'task_instructions']) expect(typeof i[k]).toBe('string');
      expect(t).toHaveProperty('initial_state');
      const actions = t.evaluation_criteria?.actions ?? [];
      expect(actions.length).toBeGreaterThan(0);
      actions.forEach((a, k) => {
        expect(a).toMatchObject({ action_id: `${t.id}_${k}`, requestor: requestor(a.name) });
        expect(a.compare_args).toEqual(name === 'telecom' && a.name === 'transfer_to_human_agents' ? [] : null);
      });
      // COMMUNICATE values as an agent says them: a total is "600", never calculate's "600.0".
      for (const info of t.evaluation_criteria?.communicate_info ?? []) expect(info, t.id).not.toMatch(/^-?\d+\.0$/);
      const basis = t.evaluation_criteria?.reward_basis;
      if (name !== 'telecom')
        expect(basis).toEqual(t.evaluation_criteria?.communicate_info?.length ? ['DB', 'COMMUNICATE'] : ['DB']);
      else {
        // Graded as τ²'s own telecom tasks are: assertions on what the gold changed, DB where τ²'s check can hold.
        expect(basis?.length).toBeGreaterThan(0);
        expect(!!t.evaluation_criteria?.env_assertions?.length).toBe(basis!.includes('ENV_ASSERTION'));
        expect(t.initial_state?.initialization_actions?.[0]).toMatchObject({
          env_type: 'user',
          func_name: 'set_user_info',
        });
      }
    }
    if (name === 'telecom') {
      // The user runs their own tools in most of them, as in τ²'s telecom tasks.
      const withUser = tasks.filter((t) => t.evaluation_criteria?.actions?.some((a) => a.requestor === 'user'));
      expect(withUser.length).toBeGreaterThan(tasks.length / 2);
    }
  });

  it('every gold sequence is its medoid and executes on our domain without a tool error', async () => {
    const d = await domain(name);
    for (const e of report.entries) {
      const t = tasks.find((x) => x.id === e.id)!;
      expect(
        (t.evaluation_criteria?.actions ?? []).map((a) => a.name),
        e.id,
      ).toEqual(e.sequence);
      const env = createEnvironment(d, { initialState: t.initial_state });
      for (const a of t.evaluation_criteria?.actions ?? []) {
        expect(env.call(a.name, a.arguments, a.requestor), `${t.id} ${a.name}`).toMatchObject({ ok: true });
      }
    }
  });

  it.skipIf(name === 'telecom')(
    'decoys never appear in gold calls and do not change the gold final state',
    async () => {
      const d = await domain(name);
      const withDecoys = report.entries.filter((e: any) => e.decoys.length > 0);
      expect(withDecoys.length).toBeGreaterThan(0);
      for (const e of withDecoys) {
        const evolved = tasks.find((t) => t.id === e.id)!;
        expect(evolved.initial_state).not.toBeNull();
        const base = { ...evolved, initial_state: null };
        expect(decoysPreserveGold(d, base, evolved, e.decoys), e.id).toEqual({ ok: true });
      }
    },
  );

  it('the test oracle reaches reward 1 on every generated task', async () => {
    const d = await domain(name);
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

  it('the nop agent gets 0 on every generated task (stage 3 keeps none it passes), most graded on what the gold changes', async () => {
    const d = await domain(name);
    const nop = await agentFactory('nop.mjs', 'createNop');
    let graded = 0;
    for (const t of tasks) {
      const basis = t.evaluation_criteria?.reward_basis ?? [];
      const env = createEnvironment(d, { initialState: t.initial_state });
      const start = env.hash() + env.userHash();
      for (const a of t.evaluation_criteria?.actions ?? []) env.call(a.name, a.arguments, a.requestor);
      const writes = env.hash() + env.userHash() !== start;
      if (basis.includes('ENV_ASSERTION') || (basis.includes('DB') && writes)) graded++;
      const ep = await runEpisode({ task: t, domain: d, agent: nop(), user: scriptedUser() });
      expect(ep.reward, t.id).toBe(0);
    }
    expect(graded).toBeGreaterThan(tasks.length / 2);
  });

  it('no gold breaks the policy: the rule validator accepts each sequence, no write acts on an entity a write closed', async () => {
    const d = await domain(name);
    const validator = ruleValidator(d);
    for (const t of tasks) {
      const actions = t.evaluation_criteria?.actions ?? [];
      expect(validator.check(actions.map((a) => a.name)), t.id).toMatchObject({ plausible: true });
      expect(closedEntityWrites(d, actions), t.id).toEqual([]);
    }
  });

  it.skipIf(unavailable !== null)(
    "under τ²-bench's own code: the oracle gets reward 1 (DB 1 wherever DB is graded) on every task, decoys leave τ²'s gold state as it was",
    async () => {
      const d = await domain(name);
      const oracle = await agentFactory('oracle.mjs', 'createOracle');
      const failures: unknown[] = [];
      // Requests go out as the episodes finish: τ² grades while heldout runs the next one.
      const graded: Promise<void>[] = [];
      for (const t of tasks) {
        const ep = await runEpisode({
          task: t,
          domain: d,
          agent: oracle(),
          user: scriptedUser(),
          startExtras: oracleExtras(t),
        });
        graded.push(
          ref!.reward(name, t, tau2Messages(ep)).then((tau2) => {
            const dbGraded = t.evaluation_criteria?.reward_basis?.includes('DB');
            if (tau2.reward !== 1 || (dbGraded && tau2.db_match !== true)) failures.push({ task: t.id, tau2 });
          }),
        );
      }
      await Promise.all(graded);
      const table = name === 'airline' ? 'reservations' : 'orders';
      // Telecom makes no decoys (τ²'s telecom tasks add no customer or line); the loop finds none.
      for (const e of report.entries.filter((x: any) => x.decoys.length > 0)) {
        const evolved = tasks.find((t) => t.id === e.id)!;
        const ids = new Set<string>(e.decoys.map((x: any) => x.id));
        const decoyKeys = [...ids].map((id) => `${table}/${id}`);
        const owners = [...new Set<string>(e.decoys.map((x: any) => `users/${x.owner}`))];
        const keys = [...decoyKeys, ...owners];
        const [start, before, after] = await Promise.all([
          ref!.gold(name, { ...evolved, evaluation_criteria: { ...evolved.evaluation_criteria, actions: [] } }, keys),
          ref!.gold(name, { ...evolved, initial_state: null }, keys),
          ref!.gold(name, evolved, keys),
        ]);
        for (const key of new Set([...Object.keys(before.changed), ...Object.keys(after.changed)])) {
          if (keys.includes(key)) continue;
          if (before.changed[key] !== after.changed[key])
            failures.push({ task: e.id, key, note: 'gold state differs' });
        }
        // The decoys are exactly as the task put them there; their owners differ only by listing them.
        for (const key of decoyKeys)
          if (after.texts[key] === null || after.texts[key] !== start.texts[key]) failures.push({ task: e.id, key });
        for (const key of owners) {
          const user = pyJsonParse(after.texts[key]!) as Map<string, any>;
          user.set(
            table,
            (user.get(table) as string[]).filter((x) => !ids.has(x)),
          );
          if (pyJsonDumps(user, { sortKeys: true }) !== before.texts[key]) failures.push({ task: e.id, key });
        }
      }
      expect(failures.slice(0, 5)).toEqual([]);
    },
    600_000,
  );

  it('reports coverage against the original gold set with coverageMetrics', async () => {
    const d = await domain(name);
    const c = report.coverage;
    console.log(
      `${name} coverage: WED ${c.generated.meanPairwiseWed.toFixed(3)} vs ${c.original.meanPairwiseWed.toFixed(3)} (×${c.ratios.meanPairwiseWed.toFixed(2)}), ` +
        `trigram TTR ${c.generated.ngrams['3'].ttr.toFixed(3)} vs ${c.original.ngrams['3'].ttr.toFixed(3)} (×${c.ratios.trigramTtr.toFixed(2)}), ` +
        `entropy ${c.generated.entropy.toFixed(3)} vs ${c.original.entropy.toFixed(3)} (×${c.ratios.entropy.toFixed(2)}); ${tasks.length} tasks`,
    );
    expect(c.original.sequences).toBe(originals);
    expect(c.generated).toEqual(
      coverageMetrics(
        report.entries.map((e: any) => e.sequence),
        d.tools as any,
      ),
    );
    if (name === 'airline') {
      // The goals issue 9 sets (×2, ×2, +30 %), met at the default seed 0 (×2.26, ×2.004, ×1.35); generation is
      // deterministic for a seed. Over seeds 0–6 WED and entropy always meet them; trigram TTR ranges ×1.81–×2.05.
      expect(c.goals).toEqual({ meanPairwiseWed: true, trigramTtr: true, entropy: true });
    } else if (name === 'telecom') {
      // Telecom (×1.98, ×3.30, ×1.34 at seed 0): the gold set is 114 two-to-five-fix sequences, so trigram TTR and
      // entropy more than meet their goals; WED stops just short of ×2.
      expect(c.goals).toMatchObject({ trigramTtr: true, entropy: true });
      expect(c.ratios.meanPairwiseWed).toBeGreaterThan(1.5);
    } else {
      // Retail (×1.74, ×2.14, ×1.16 at seed 0): more diverse on every measure; its entropy goal is out of reach
      // (the gold set's entropy is already 0.81 of ln 16, so ×1.239 at most).
      expect(c.goals.trigramTtr).toBe(true);
      for (const r of [c.ratios.meanPairwiseWed, c.ratios.entropy]) expect(r).toBeGreaterThan(1);
    }
  });
});

it.runIf(unavailable !== null)('the checks under τ²’s own code are skipped without τ²’s reference runtime', () => {
  console.log(`τ² reference checks skipped: ${unavailable} (the reference needs python3 with pydantic 2)`);
});
