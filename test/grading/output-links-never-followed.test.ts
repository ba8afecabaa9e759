import { randomUUID } from 'node:crypto';
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStubServer } from '../../fixtures/stub-openai/server.js';
import { engineAnswers } from '../../src/sandbox/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

// A delivery that leaves links in its outputs — to a host secret, to the held-out case's truth.json, to the
// rubric, to a directory (what a Python venv holds: lib64 -> lib), to itself — and a FIFO. Run end to end through
// `heldout run` with a judge (the stub server): none of the linked contents reaches the judge, the ledger, the traces
// or the report, and the case stays in the report, graded (issue 17, items 1 and 2).
const LINKS = `
import os, sys, json
out = sys.argv[1]
for name, target in json.loads(os.environ['LINK_TARGETS']).items():
    os.symlink(target, os.path.join(out, name))
os.makedirs(os.path.join(out, 'venv', 'lib'), exist_ok=True)
os.symlink('lib', os.path.join(out, 'venv', 'lib64'))
os.symlink('loop', os.path.join(out, 'loop'))
os.mkfifo(os.path.join(out, 'pipe'))
`;

describe("links in a delivery's outputs are listed, never followed", async () => {
  const docker = await engineAnswers(WAIT_MS);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-links-'));
  chmodSync(tmp, 0o755);
  const commission = path.join(tmp, 'log-triage');
  const delivery = path.join(tmp, 'delivery');
  const canaries = { secret: randomUUID(), truth: randomUUID(), rubric: randomUUID() };
  const secretFile = path.join(tmp, 'host-secret.txt');
  let stub: Awaited<ReturnType<typeof startStubServer>>;

  beforeAll(async () => {
    cpSync(path.join(repoRoot, 'tasks/log-triage'), commission, { recursive: true });
    rmSync(path.join(commission, 'properties.ts'), { force: true });
    const heldoutCases = path.join(commission, 'cases/heldout');
    for (const c of readdirSync(heldoutCases).slice(1)) rmSync(path.join(heldoutCases, c), { recursive: true });
    const only = readdirSync(heldoutCases)[0]!;
    const truthPath = path.join(heldoutCases, only, 'truth.json');
    const truth = JSON.parse(readFileSync(truthPath, 'utf8'));
    writeFileSync(truthPath, JSON.stringify({ ...truth, canary: canaries.truth }, null, 2));
    const rubricPath = path.join(commission, 'rubric.yaml');
    const rubric = readFileSync(rubricPath, 'utf8');
    const start = rubric.indexOf('  - id: summary');
    const end = rubric.indexOf('\noutcomes:');
    writeFileSync(
      rubricPath,
      `# canary ${canaries.rubric}\n${rubric.slice(0, start)}  - id: summary
    title: Human summary (FR-11)
    max: 15
    items:
      - { judge: 'summary.md tells an on-call engineer what broke', points: 15 }
${rubric.slice(end)}`,
    );
    writeFileSync(secretFile, `host secret ${canaries.secret}\n`);
    const targets = {
      'notes.md': secretFile,
      'shadow.txt': '/etc/shadow',
      'truth-copy.json': truthPath,
      'rubric.md': rubricPath,
      etc: '/etc',
    };
    const yamlPath = path.join(commission, 'commission.yaml');
    const yaml = readFileSync(yamlPath, 'utf8')
      .replace(
        'entry: python3 run_agent.py --input {input} --output {output}',
        'entry: python3 run_agent.py --input {input} --output {output} && python3 links.py {output}',
      )
      .replace('trials: 1', `trials: 1\nsandbox: { env: { LINK_TARGETS: '${JSON.stringify(targets)}' } }`);
    writeFileSync(yamlPath, yaml);
    cpSync(path.join(repoRoot, 'fixtures/deliveries/log-triage-reference'), delivery, { recursive: true });
    writeFileSync(path.join(delivery, 'links.py'), LINKS);
    for (const d of [commission, delivery]) chmodTree(d);
    const answer = {
      dimensions: { summary: { score: 12, max: 15, evidence: 'clear' } },
      outcomes: [],
      major_errors: [],
      assessment: 'fine',
    };
    stub = await startStubServer({ script: [{ json: answer }] });
  });
  afterAll(async () => {
    await stub?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const shadow = (() => {
    try {
      // Only a line with a real hash is distinctive enough to look for.
      return readFileSync('/etc/shadow', 'utf8')
        .split('\n')
        .map((l) => l.split(':')[1] ?? '')
        .filter((h) => h.length > 20);
    } catch {
      return [];
    }
  })();

  const backends = docker ? (['docker', 'process'] as const) : (['process'] as const);
  test.each(backends)('on the %s backend', async (sandbox) => {
    const out = path.join(tmp, `out-${sandbox}`);
    const before = stub.requests.length;
    const r = await heldout(
      ['run', commission, '--delivery', delivery, '--sandbox', sandbox, '--out', out, '--no-judge-cache'],
      {
        env: {
          ...process.env,
          OPENAI_BASE_URL: '',
          OPENAI_API_KEY: '',
          HELDOUT_JUDGE_BASE_URL: stub.baseURL,
          HELDOUT_JUDGE_MODEL: 'judge-model',
          HELDOUT_JUDGE_API_KEY: 'sk-judge',
        },
      },
    );
    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const cases = summary.commissions[0].cases;
    expect(cases.length, r.out).toBe(1);
    expect(cases[0].status, cases[0].reason).toBe('graded');
    expect(cases[0].dimensions.summary.score).toBe(12);

    const prompts = JSON.stringify(stub.requests.slice(before));
    expect(stub.requests.length).toBe(before + 1);
    const text = stub.requests
      .slice(before)
      .flatMap((q: { messages: { content: string }[] }) => q.messages.map((m) => m.content))
      .join('\n');
    expect(text).toContain('"notes.md" (a symbolic link, not followed; its target: ');
    expect(text).toContain('"pipe" (a FIFO, not read)');
    const everything = [prompts, ...filesUnder(out).map((f) => readFileSync(f, 'utf8'))].join('\n');
    for (const [what, canary] of Object.entries(canaries)) expect(everything, what).not.toContain(canary);
    for (const hash of shadow) expect(everything).not.toContain(hash);
  });
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile() && statSync(p).size < 64 * 1024 * 1024) out.push(p);
  }
  return out;
}

function chmodTree(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chmodTree(p);
    else chmodSync(p, 0o755);
  }
}
