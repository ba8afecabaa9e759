import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type CaseRef, type Commission, loadCommission } from '../../src/commission/index.js';
import { gradeCase, NO_JUDGE_REASON } from '../../src/grading/index.js';
import { importAgentSwe } from '../../src/importers/index.js';
import { resolveSandbox, type SandboxBackend } from '../../src/sandbox/index.js';
import { heldout } from '../helpers/cli.js';
import {
  agentsweFixtures,
  dbAnalytics,
  deeptutor,
  hasData,
  hasLite,
  pdfTranslation,
  pinchbench,
  productCheckout,
  tmp,
} from './helpers.js';

// Runs imported AgentSWE commissions for real: the entry in a sandbox, then grading, with no judge model, as a user
// without one sees it. Judged items stay unscored; every deterministic part decides what it can. Whole runs go through
// the built CLI; their time depends on how busy the shared machine is, so they keep vitest.config.ts's hang deadline
// (scaled to the machine) rather than a number of their own.
const noJudge = {
  ...process.env,
  HELDOUT_JUDGE_BASE_URL: '',
  HELDOUT_JUDGE_MODEL: '',
  OPENAI_BASE_URL: '',
  OPENAI_MODEL: '',
};

/** A delivery directory with these files (readable by the sandbox user). */
function delivery(files: Record<string, string>): string {
  const dir = tmp('delivery');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
    chmodSync(path.join(dir, name), 0o644);
  }
  chmodSync(dir, 0o755);
  return dir;
}

/** A run_agent.py writing these outputs (path → text) into --output. */
const writer = (outputs: Record<string, string>) => `import os, sys
out = sys.argv[sys.argv.index('--output') + 1]
for rel, text in ${JSON.stringify(outputs)}.items():
    os.makedirs(os.path.dirname(os.path.join(out, rel)) or out, exist_ok=True)
    open(os.path.join(out, rel), 'w').write(text)
`;

async function importTo(src: string, options = {}): Promise<Commission> {
  const out = path.join(tmp('run-import'), 'c');
  await importAgentSwe(src, out, options);
  return loadCommission(out);
}

async function summaryOf(commission: string, deliveryDir: string, split = 'heldout') {
  const out = tmp('run-out');
  const r = await heldout(
    ['run', commission, '--delivery', deliveryDir, '--split', split, '--out', out, '--no-judge-cache'],
    { env: noJudge },
  );
  expect(r.code, r.out).not.toBe(2);
  const s = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
  return s.commissions[0].cases as {
    id: string;
    status: string;
    gate: string | null;
    result: number | null;
    reason: string | null;
    dimensions: Record<string, { score: number | null }>;
  }[];
}

let backend: SandboxBackend;
let runs = 0;
beforeAll(async () => {
  backend = await resolveSandbox('auto');
});

/** One case as `heldout run` runs it (its entry in a sandbox), graded with no judge model. */
async function runCase(c: Commission, caseRef: CaseRef, deliveryDir: string) {
  const outputDir = tmp('out');
  chmodSync(outputDir, 0o777);
  const b = c.config.budgets;
  const execution = await backend.run({
    runId: `agentswe-run-${process.pid}-${++runs}`,
    caseId: caseRef.id,
    trial: 1,
    image: c.config.sandbox.image,
    command: c.config.entry,
    deliveryDir,
    inputPath: caseRef.inputPath,
    assetsDir: caseRef.assetsDir,
    outputDir,
    env: c.config.sandbox.env,
    limits: { wallSeconds: 60, memoryMb: Math.min(b.memoryMb, 1024), cpus: 1, pids: 128, outputBytes: 1 << 20 },
  });
  const runCommand = async (
    command: string,
    opts: { mounts: { output: string; tree?: string }; timeoutSeconds: number; image?: string },
  ) => {
    const exec = await backend.run({
      runId: `agentswe-run-${process.pid}-${++runs}`,
      caseId: `${caseRef.id}-eval`,
      trial: 1,
      image: opts.image,
      command,
      deliveryDir,
      inputPath: caseRef.inputPath,
      assetsDir: caseRef.assetsDir,
      outputDir: opts.mounts.output,
      limits: { wallSeconds: 60, memoryMb: 512, cpus: 1, pids: 128, outputBytes: 1 << 20 },
    });
    return { exitCode: exec.exitCode, stdout: exec.stdout, stderr: exec.stderr, outputDir: opts.mounts.output };
  };
  return gradeCase({ commission: c, caseRef, trial: 1, execution, outputDir, judge: null, cacheDir: null, runCommand });
}

describe.skipIf(!hasData)('heldout run on the imported database-analytics commission (../shared)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(tmp('db-run'), 'c');
    await importAgentSwe(dbAnalytics, dir);
  });

  test('an empty delivery gives Result 0 by a named gate on every case, never unscored', async () => {
    const cases = await summaryOf(dir, delivery({}));
    expect(cases).toHaveLength(6);
    for (const c of cases) expect([c.status, c.gate, c.result], c.id).toEqual(['gate-failed', 'error-exit', 0]);
  });

  test('a delivery written to the interface passes every gate and is unscored only for want of a judge (scores null)', async () => {
    const outputs = {
      'answer.json': '{"status": "answered"}',
      'queries.json': '{"queries": []}',
      'result.csv': 'a,b\n1,2\n',
      'chart.json': '{}',
    };
    const cases = await summaryOf(dir, delivery({ 'run_agent.py': writer(outputs) }));
    for (const c of cases) {
      expect([c.status, c.gate, c.reason], c.id).toEqual(['unscored', null, NO_JUDGE_REASON]);
      for (const d of Object.values(c.dimensions)) expect(d.score).toBeNull();
    }
  });
});

describe.skipIf(!hasLite)('heldout run on the imported scientific-pdf-translation commission (../shared)', () => {
  test('a delivery written to the interface passes every gate on every case of both splits, unscored only for want of a judge', async () => {
    const dir = path.join(tmp('pdf-run'), 'c');
    await importAgentSwe(pdfTranslation, dir);
    const d = delivery({ 'run_agent.py': writer({ 'translated.pdf': '%PDF-1.7\n%%EOF\n' }) });
    const cases = [...(await summaryOf(dir, d, 'dev')), ...(await summaryOf(dir, d))];
    expect(cases).toHaveLength(8);
    for (const c of cases) {
      expect([c.status, c.gate, c.reason], c.id).toEqual(['unscored', null, NO_JUDGE_REASON]);
      for (const x of Object.values(c.dimensions)) expect(x.score).toBeNull();
    }
  });
});

describe.skipIf(!hasData || !hasLite)('imported creation cases, run and graded (../shared)', () => {
  test('database-analytics: exit 0 with nothing → the any-of gate; one broken core file → invalid-artifact', async () => {
    const c = await importTo(dbAnalytics);
    const nothing = await runCase(c, c.cases.heldout[0]!, delivery({ 'run_agent.py': 'pass\n' }));
    expect([nothing.gate, nothing.result]).toEqual(['missing-artifact', 0]);
    expect(nothing.reason).toMatch(/none of answer\.json, queries\.json, result\.csv, chart\.json is present/);
    const broken = await runCase(
      c,
      c.cases.heldout[0]!,
      delivery({ 'run_agent.py': writer({ 'answer.json': '{not json' }) }),
    );
    expect([broken.gate, broken.result]).toEqual(['invalid-artifact', 0]);
  });

  test('scientific-pdf-translation: a real PDF passes the gates (unscored, no judge); anything else is invalid', async () => {
    const c = await importTo(pdfTranslation);
    const ok = await runCase(
      c,
      c.cases.heldout[0]!,
      delivery({ 'run_agent.py': writer({ 'translated.pdf': '%PDF-1.7\n%%EOF\n' }) }),
    );
    expect([ok.status, ok.gate, ok.reason]).toEqual(['unscored', null, NO_JUDGE_REASON]);
    const bad = await runCase(
      c,
      c.cases.heldout[0]!,
      delivery({ 'run_agent.py': writer({ 'translated.pdf': 'a translation' }) }),
    );
    expect([bad.gate, bad.reason]).toEqual(['invalid-artifact', 'translated.pdf does not start with %PDF-']);
  });
});

describe.skipIf(!hasLite)('imported pinchbench-openclaw cases, run and graded (../shared)', () => {
  let c: Commission;
  beforeAll(async () => {
    c = await importTo(pinchbench);
  });

  test('its own a0 reads the one-row JSONL and passes the gates; J needs the native evaluator, named, never a guess', async () => {
    const g = await runCase(c, c.cases.heldout[0]!, c.starterDir!);
    expect(g.gate).toBeNull();
    expect(g.status).toBe('infra-error');
    expect(g.reason).toMatch(/agentswe-native\/pinchbench-openclaw:1/);
  });

  test('an empty delivery is an error-exit; malformed JSONL is invalid-artifact', async () => {
    const empty = await runCase(c, c.cases.heldout[0]!, delivery({}));
    expect([empty.gate, empty.result]).toEqual(['error-exit', 0]);
    const script = `import sys, os
out = sys.argv[sys.argv.index('--output') + 1]
open(out, 'w').write('{"id": "test_001"\\n')
`;
    const bad = await runCase(c, c.cases.heldout[0]!, delivery({ 'run_harness.py': script }));
    expect([bad.gate, bad.result]).toEqual(['invalid-artifact', 0]);
    expect(bad.reason).toMatch(/predictions\.jsonl line 1 is not valid JSON/);
  });
});

describe('heldout run on the imported editing commission (fixture, with its pinned product)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(tmp('edit-run'), 'c');
    await importAgentSwe(deeptutor, dir, { product: productCheckout() });
  });

  test('an empty delivery fails the patch gate on every case, Result 0', async () => {
    const cases = await summaryOf(dir, delivery({}));
    expect(cases.map((c) => [c.status, c.gate, c.result])).toEqual([
      ['gate-failed', 'patch-rejected', 0],
      ['gate-failed', 'patch-rejected', 0],
    ]);
  });

  test("a patch that applies: the patched product runs per case, μ_reg (the product's tests) holds, the Result waits for a judge", async () => {
    const d = tmp('edit-delivery');
    cpSync(path.join(agentsweFixtures, 'deliveries/deeptutor-remediation'), d, { recursive: true });
    const out = tmp('edit-out');
    const r = await heldout(['run', dir, '--delivery', d, '--out', out, '--no-judge-cache'], { env: noJudge });
    expect(r.code, r.out).not.toBe(2);
    const s = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    for (const c of s.commissions[0].cases) {
      expect([c.status, c.gate, c.reason], c.id).toEqual(['unscored', null, NO_JUDGE_REASON]);
    }
    const meta = JSON.parse(readFileSync(path.join(out, 'cases', ...findMeta(out)), 'utf8')) as {
      grade: { editing: { muReg: boolean } };
    };
    expect(meta.grade.editing.muReg).toBe(true);
  });
});

/** The path (under cases/) of one case's meta record. */
function findMeta(out: string): string[] {
  return findUnder(out, '.meta.json');
}

/** The first path (under cases/, as segments) that ends with `suffix`. */
function findUnder(out: string, suffix: string): string[] {
  const walk = (d: string, rel: string[]): string[] | null => {
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) {
        const hit = walk(p, [...rel, n]);
        if (hit) return hit;
      } else if ([...rel, n].join('/').endsWith(suffix)) return [...rel, n];
    }
    return null;
  };
  return walk(path.join(out, 'cases'), [])!;
}

describe('heldout run on the imported authorized-vulnerability-validation commission: its fixture service per case', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(tmp('svc-run'), 'c');
    await importAgentSwe(path.join(agentsweFixtures, 'creation/authorized-vulnerability-validation'), dir);
    expect((await loadCommission(dir)).cases.heldout[0]!.services).toHaveLength(1);
  });

  /** A delivery that asks the case's fixture (the port its input names) for /health and reports what answered. */
  const prober = `import json, os, sys, urllib.request
out = sys.argv[sys.argv.index('--output') + 1]
text = open(sys.argv[sys.argv.index('--input') + 1]).read()
port = text.split('http://127.0.0.1:')[1].split('\`')[0]
health = json.load(urllib.request.urlopen(f'http://127.0.0.1:{port}/health', timeout=20))
json.dump({"schema_version": "1.0", "target": f"http://127.0.0.1:{port}", "findings": [], "negative_controls": [], "health": health}, open(os.path.join(out, 'findings.json'), 'w'))
open(os.path.join(out, 'security_report.md'), 'w').write('# Executive Summary\\n')
# The rubric's zero rule "No \`findings.json\`, \`security_report.md\`, or evidence manifest is produced" gates all three.
os.makedirs(os.path.join(out, 'evidence'), exist_ok=True)
json.dump({"schema_version": "1.0", "finding_evidence": [], "negative_control_evidence": []}, open(os.path.join(out, 'evidence', 'manifest.json'), 'w'))
`;

  test("a case cannot reach another case's fixture: test_001 probing dev_001's port fails at the error-exit gate", async () => {
    const out = tmp('svc-out-other');
    const other = prober.replace("port = text.split('http://127.0.0.1:')[1].split('`')[0]", "port = '18741'");
    expect(other).not.toBe(prober);
    const d = delivery({ 'run_agent.py': other });
    const r = await heldout(['run', dir, '--delivery', d, '--split', 'both', '--out', out, '--no-judge-cache'], {
      env: noJudge,
    });
    expect(r.code, r.out).not.toBe(2);
    const s = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const cases = s.commissions.flatMap((c: { cases: unknown[] }) => c.cases) as {
      id: string;
      status: string;
      gate: string | null;
    }[];
    expect(cases.map((c) => [c.id, c.status, c.gate])).toEqual([
      ['dev_001', 'unscored', null],
      ['test_001', 'gate-failed', 'error-exit'],
    ]);
  });

  test('each case reaches its own fixture on its truth port; the findings pass the gates and wait for the judge', async () => {
    const out = tmp('svc-out');
    const r = await heldout(
      [
        'run',
        dir,
        '--delivery',
        delivery({ 'run_agent.py': prober }),
        '--split',
        'both',
        '--out',
        out,
        '--no-judge-cache',
      ],
      { env: noJudge },
    );
    expect(r.code, r.out).not.toBe(2);
    const s = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const cases = s.commissions.flatMap((c: { cases: unknown[] }) => c.cases) as {
      id: string;
      status: string;
      reason: string;
    }[];
    expect(cases.map((c) => [c.id, c.status, c.reason])).toEqual([
      ['dev_001', 'unscored', NO_JUDGE_REASON],
      ['test_001', 'unscored', NO_JUDGE_REASON],
    ]);
    for (const [split, id] of [
      ['dev', 'dev_001'],
      ['heldout', 'test_001'],
    ]) {
      const findings = JSON.parse(
        readFileSync(path.join(out, 'cases', ...findUnder(out, `${split}/${id}-t1/findings.json`)), 'utf8'),
      );
      expect(findings.health).toEqual({ status: 'ok', fixture: id });
    }
  });
});
