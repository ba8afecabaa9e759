import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { type CaseRef, type Commission, loadCommission } from '../../src/commission/index.js';
import { type CommandRunner, gradeCase } from '../../src/grading/index.js';
import { importAgentSwe } from '../../src/importers/index.js';
import { resolveSandbox, type SandboxBackend } from '../../src/sandbox/index.js';
import { dbAnalytics, hasData, tmp } from './helpers.js';

/** A delivery directory holding one run_agent.py. */
function delivery(script: string): string {
  const dir = tmp('delivery');
  writeFileSync(path.join(dir, 'run_agent.py'), script);
  chmodSync(dir, 0o755);
  chmodSync(path.join(dir, 'run_agent.py'), 0o644);
  return dir;
}

let backend: SandboxBackend;
let runs = 0;

/** Runs the commission's entry on one case, as `heldout run` does, and grades it without a judge model. */
async function runCase(c: Commission, caseRef: CaseRef, deliveryDir: string, runCommand?: CommandRunner) {
  const outputDir = tmp('out');
  chmodSync(outputDir, 0o777);
  const runId = `import-test-${process.pid}-${++runs}`;
  const b = c.config.budgets;
  const execution = await backend.run({
    runId,
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
  return gradeCase({ commission: c, caseRef, trial: 1, execution, outputDir, judge: null, cacheDir: null, runCommand });
}

beforeAll(async () => {
  backend = await resolveSandbox('auto');
});

describe.skipIf(!hasData)(
  `running the imported database-analytics commission${hasData ? '' : ' — skipped: ../shared/data has no AgentSWE package'}`,
  () => {
    let c: Commission;
    beforeAll(async () => {
      const out = path.join(tmp('db-run'), 'c');
      await importAgentSwe(dbAnalytics, out);
      c = await loadCommission(out);
    });

    test('a delivery that exits at once fails the error-exit gate and scores 0', async () => {
      const g = await runCase(c, c.cases.heldout[0]!, delivery('import sys\nsys.exit(1)\n'));
      expect(g.status).toBe('gate-failed');
      expect(g.gate).toBe('error-exit');
      expect(g.result).toBe(0);
    });

    test('a delivery that exits 0 without the core artifacts fails the missing-artifact gate', async () => {
      const g = await runCase(c, c.cases.heldout[0]!, delivery('pass\n'));
      expect(g.status).toBe('gate-failed');
      expect(g.gate).toBe('missing-artifact');
      expect(g.reason).toMatch(/answer\.json/);
    });

    test('past the gates, without a judge model the judged items are unscored, never a number', async () => {
      const script = `import json, os, sys
out = sys.argv[sys.argv.index('--output') + 1]
json.dump({"status": "answered"}, open(os.path.join(out, 'answer.json'), 'w'))
json.dump({"queries": []}, open(os.path.join(out, 'queries.json'), 'w'))
open(os.path.join(out, 'result.csv'), 'w').write('a,b\\n1,2\\n')
`;
      const g = await runCase(c, c.cases.heldout[1]!, delivery(script));
      expect(g.gate).toBeNull();
      expect(g.status).toBe('unscored');
      expect(g.result).toBeNull();
      const items = Object.values(g.dimensions).flatMap((d) => d.items);
      expect(items).toHaveLength(6);
      for (const item of items) expect(item.score).toBeNull();
    });
  },
);
