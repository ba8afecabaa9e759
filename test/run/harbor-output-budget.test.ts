/**
 * Issue 31: a Harbor trial is bound by the output budget as every case is. A delivery that does the task and then
 * floods /logs/agent (300 MB and 12,000 files, `outputBytes` 1 MiB) fails the `output-limit` gate, whatever the
 * verifier's reward, and only what fits reaches the report directory; one within the budget is graded as before.
 */
import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { importHarbor } from '../../src/importers/index.js';
import { engineAnswers, ensureRuntimeImage, outputLimits } from '../../src/sandbox/index.js';
import { repoRoot } from '../helpers/cli.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const engine = await engineAnswers(WAIT_MS);
const BUDGET = 1024 * 1024;

const FLOOD = `
import os
open("hello.txt", "w").write("Hello, world!\\n")
chunk = b"z" * (1 << 20)
with open("/logs/agent/big.bin", "wb") as f:
    for _ in range(300):
        f.write(chunk)
os.makedirs("/logs/agent/many")
for i in range(12000):
    open(f"/logs/agent/many/{i}", "w").close()
`;
const DELIVERIES: Record<string, string> = {
  flood: `cat > /tmp/flood.py <<'EOF'\n${FLOOD}\nEOF\npython3 /tmp/flood.py`,
  full: `printf 'Hello, world!\\n' > hello.txt; echo done > /logs/agent/notes.txt`,
};

/** Bytes of the regular files under `dir` and its entries of every kind. */
function measure(dir: string): { bytes: number; entries: number } {
  const m = { bytes: 0, entries: 0 };
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const st = lstatSync(path.join(d, name));
      m.entries++;
      if (st.isFile()) m.bytes += st.size;
      if (st.isDirectory()) walk(path.join(d, name));
    }
  };
  walk(dir);
  return m;
}

describe.skipIf(!engine)(
  engine ? 'the output budget of a Harbor trial' : 'the output budget of a Harbor trial — skipped: no docker engine',
  () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-harbor-budget-'));
    const commission = path.join(root, 'hello');
    const out = path.join(root, 'out');
    const caseDir = (label: string) => path.join(out, 'cases/hello-greeting', label, 'heldout/task-t1');
    let rows: Record<string, Record<string, any>>;

    beforeAll(async () => {
      await ensureRuntimeImage();
      await importHarbor(path.join(repoRoot, 'fixtures/importers/harbor-hello'), commission);
      const yaml = path.join(commission, 'commission.yaml');
      const text = readFileSync(yaml, 'utf8');
      expect(text).toMatch(/^ {2}cpus: 1$/m);
      writeFileSync(yaml, text.replace(/^ {2}cpus: 1$/m, `  cpus: 1\n  outputBytes: ${BUDGET}`));
      const deliveries: Record<string, string> = {};
      for (const [label, script] of Object.entries(DELIVERIES)) {
        const dir = path.join(root, 'deliveries', label);
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, 'run.sh'), `#!/bin/sh\n${script}\n`);
        deliveries[label] = dir;
      }
      const script = `
      const { runHeldout } = await import(${JSON.stringify(path.join(repoRoot, 'dist/index.js'))});
      const r = await runHeldout({ commissions: [${JSON.stringify(commission)}], sandbox: 'docker', table: false,
        delivery: ${JSON.stringify(deliveries)}, out: ${JSON.stringify(out)}, concurrency: 1 }, { reporters: ['dot'] });
      console.log(JSON.stringify(r.summary));`;
      const r = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: repoRoot,
        maxBuffer: 16 << 20,
      }).catch((e) => e as { stdout: string; stderr: string });
      let summary: { commissions: { delivery: { label: string }; cases: Record<string, any>[] }[] } | null = null;
      try {
        summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? 'null');
      } catch {}
      expect(summary, `${r.stdout}\n${r.stderr}`.slice(-4000)).not.toBeNull();
      rows = Object.fromEntries(summary!.commissions.map((c) => [c.delivery.label, c.cases[0]!]));
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    test('a flood of outputs fails the output-limit gate though the verifier rewarded the task', () => {
      expect(rows.flood).toMatchObject({ status: 'gate-failed', gate: 'output-limit', result: 0 });
      expect(rows.flood!.reason).toMatch(
        /more than (the output budget of 1048576 bytes|10000 files and directories); only what fits was kept/,
      );
      // The verifier did pass it: the gate, not the reward, decided.
      expect(JSON.parse(readFileSync(path.join(caseDir('flood'), 'reward.json'), 'utf8'))).toEqual({ reward: 1 });
    });

    test('only what fits the budget reached the report directory', () => {
      const kept = measure(caseDir('flood'));
      expect(kept.bytes).toBeLessThanOrEqual(BUDGET);
      expect(kept.entries).toBeLessThanOrEqual(outputLimits(BUDGET).entries);
    });

    test('a trial within the budget keeps all its outputs and is graded as before', () => {
      expect(rows.full).toMatchObject({ status: 'graded', result: 100 });
      expect(readFileSync(path.join(caseDir('full'), 'agent/notes.txt'), 'utf8')).toBe('done\n');
    });
  },
);
