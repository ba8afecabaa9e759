/**
 * Issue 17, item 5: `budgets.outputBytes` bounds the output directory — total bytes, entries and depth — on docker
 * and on the process backend. A delivery past it is stopped, heldout keeps only what fits (the report directory
 * never receives the flood), and the execution names the excess, which grading turns into the `output-limit` gate.
 */
import { chmodSync, cpSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  dockerBackend,
  engineAnswers,
  gateFromExecution,
  outputLimits,
  processBackend,
  type SandboxBackend,
} from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { execFileP, LIMITS, makeCase, REPO, spec } from './helpers.js';

const engine = await engineAnswers(WAIT_MS);
const BUDGET = 1024 * 1024;

/** What a directory holds: bytes of its files, entries of every kind, and the deepest entry's depth. */
function measure(dir: string): { bytes: number; entries: number; depth: number } {
  const m = { bytes: 0, entries: 0, depth: 0 };
  const walk = (d: string, depth: number) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      m.entries++;
      m.depth = Math.max(m.depth, depth + 1);
      if (st.isFile()) m.bytes += st.size;
      if (st.isDirectory()) walk(p, depth + 1);
    }
  };
  walk(dir, 0);
  return m;
}

describe.each([
  { name: 'docker', backend: () => dockerBackend as SandboxBackend, skip: engine ? null : 'no docker engine answers' },
  { name: 'process', backend: () => processBackend as SandboxBackend, skip: null },
])('the output budget on the $name backend', ({ name, backend, skip }) => {
  let root: string;
  let input: string;
  let n = 0;
  beforeAll(async () => {
    root = mkdtempSync(join(os.tmpdir(), `heldout-outlimit-${name}-`));
    chmodSync(root, 0o755);
    cpSync(join(REPO, 'fixtures/faults'), join(root, 'deliveries'), { recursive: true });
    await execFileP('chmod', ['-R', 'a+rX', join(root, 'deliveries')]);
    input = (await makeCase(join(root, 'cases'), 'c', 'Add 19 and 23.\n')).inputPath;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const run = async (delivery: string) => {
    const outputDir = join(root, 'out', String(n++));
    const x = await backend().run(
      spec({
        command: 'sh run.sh {input} {output}',
        deliveryDir: join(root, 'deliveries', delivery),
        inputPath: input,
        outputDir,
        limits: { ...LIMITS, wallSeconds: 60, outputBytes: BUDGET, out: outputLimits(BUDGET) },
      }),
    );
    return { x, outputDir };
  };

  for (const [delivery, what] of [
    ['big-file', /more than the output budget of 1048576 bytes/],
    ['many-files', /more than 10000 files and directories/],
    ['deep-dirs', /deeper than 32 levels/],
    ['huge-ftruncate', /past the output budget of 1048576 bytes and the kernel refused it/],
  ] as const) {
    test.skipIf(skip)(
      `${delivery}: stopped, named, and only what fits is kept${skip ? ` — skipped: ${skip}` : ''}`,
      async () => {
        const { x, outputDir } = await run(delivery);
        expect(x.outputLimit, x.stderr).toMatch(what);
        expect(gateFromExecution(x)).toBe('output-limit');
        const kept = measure(outputDir);
        expect(kept.bytes).toBeLessThanOrEqual(BUDGET);
        expect(kept.entries).toBeLessThanOrEqual(outputLimits(BUDGET).entries);
        expect(kept.depth).toBeLessThanOrEqual(outputLimits(BUDGET).depth);
        // What came first stays: the answer was written before the flood.
        expect(x.outputs).toContain('answer.json');
      },
    );
  }

  test.skipIf(skip)(
    `no output keeps a setuid, setgid, sticky or world-writable mode${skip ? ` — skipped: ${skip}` : ''}`,
    async () => {
      const { x, outputDir } = await run('setuid-outputs');
      expect(gateFromExecution(x), x.stderr).toBeNull();
      const modes = Object.fromEntries(
        readdirSync(outputDir)
          .filter((f) => lstatSync(join(outputDir, f)).isFile())
          .map((f) => [f, (lstatSync(join(outputDir, f)).mode & 0o7777).toString(8)]),
      );
      expect(modes).toEqual({
        'answer.json': '775',
        'open.txt': '664',
        'sgid.sh': '755',
        'sticky.txt': '644',
        'suid.sh': '755',
      });
    },
  );

  test.skipIf(skip)(`outputs within the budget are kept whole${skip ? ` — skipped: ${skip}` : ''}`, async () => {
    const { x, outputDir } = await run('venv-dir-link');
    expect(x.outputLimit).toBeNull();
    expect(gateFromExecution(x)).toBeNull();
    expect(x.outputs).toEqual(['answer.json', 'notes.md', 'venv/lib/site.py', 'venv/lib64']);
    expect(lstatSync(join(outputDir, 'venv/lib64')).isSymbolicLink()).toBe(true);
  });
});
