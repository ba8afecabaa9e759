import { chmodSync, cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { importAgentSwe } from '../../src/importers/index.js';
import { heldout } from '../helpers/cli.js';
import { hasLite, pinchbench, tmp } from './helpers.js';

// The optimization wiring end to end on the real pinchbench-openclaw package: J is the imported command check, a0 is
// the package's own starter harness, S comes from J0 and J1 on the same held-out rows. The native evaluator image
// (PinchBench on OpenClaw) cannot be built here, so this test, and only this test, puts a stand-in objective in its
// place, run in heldout's runtime image: 0.5 for a row with a prediction, 0.75 when the prediction carries an answer.
// What is under test is heldout's side: the command, its placeholders and mounts, reward.json, J0, J1 and S.
const STAND_IN =
  'python3 -c \'import json, sys; rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]; r = (0.75 if all("answer" in x for x in rows) else 0.5) if rows else 0; json.dump({"reward": r}, open(sys.argv[2] + "/reward.json", "w"))\' {output}/predictions.jsonl {output}';

test.skipIf(!hasLite)(
  'pinchbench-openclaw: J0 of its own a0, J1 of a candidate, S = 100·(J1 − J0)/(100 − J0) on the same rows',
  async () => {
    const dir = path.join(tmp('objective'), 'c');
    await importAgentSwe(pinchbench, dir);
    // three held-out rows are enough to show the arithmetic; the busy machine need not run all forty twice
    for (const id of readdirSync(path.join(dir, 'cases/heldout')).sort().slice(3))
      rmSync(path.join(dir, 'cases/heldout', id), { recursive: true });
    const rubricPath = path.join(dir, 'rubric.yaml');
    const rubric = parse(readFileSync(rubricPath, 'utf8'));
    const item = rubric.dimensions[0].items[0];
    expect(item).toMatchObject({ check: 'command', image: 'agentswe-native/pinchbench-openclaw:1', score: 'reward' });
    Object.assign(item, { image: 'heldout/runtime:1', run: STAND_IN });
    writeFileSync(rubricPath, stringify(rubric));

    const candidate = tmp('objective-candidate');
    cpSync(path.join(dir, 'starter'), candidate, { recursive: true });
    const policy = path.join(candidate, 'productivity_policy.py');
    const text = readFileSync(policy, 'utf8');
    expect(text).toContain('"tool_profile": "coding"}}');
    writeFileSync(policy, text.replace('"tool_profile": "coding"}}', '"tool_profile": "coding"}, "answer": "done"}'));
    chmodSync(candidate, 0o755);

    const out = tmp('objective-out');
    const r = await heldout(['run', dir, '--delivery', candidate, '--out', out, '--no-judge-cache'], {
      env: {
        ...process.env,
        HELDOUT_JUDGE_BASE_URL: '',
        HELDOUT_JUDGE_MODEL: '',
        OPENAI_BASE_URL: '',
        OPENAI_MODEL: '',
      },
    });
    expect(r.code, r.out).not.toBe(2);
    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const rows = summary.commissions as {
      verdict: string;
      cases: { status: string; result: number | null }[];
      optimization: { j0: number; j1: number; S: number } | null;
    }[];
    const a0 = rows.find((x) => x.verdict === 'baseline')!;
    const cand = rows.find((x) => x.verdict !== 'baseline')!;
    expect(a0.cases.map((c) => [c.status, c.result])).toEqual([
      ['graded', 50],
      ['graded', 50],
      ['graded', 50],
    ]);
    expect(cand.cases.map((c) => [c.status, c.result])).toEqual([
      ['graded', 75],
      ['graded', 75],
      ['graded', 75],
    ]);
    expect(cand.optimization).toMatchObject({ j0: 50, j1: 75, S: 50 });
  },
);
