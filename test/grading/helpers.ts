import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CommissionInput, commissionSchema, type RubricInput, rubricSchema } from '../../src/commission/index.js';
import { type CommandRunner, resolvePlaceholders } from '../../src/grading/index.js';
import type { Execution } from '../../src/sandbox/types.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixtures = path.join(repoRoot, 'fixtures/grading');

/** A validated commission (config + rubric) built in memory. */
export function makeCommission(
  config: Partial<CommissionInput>,
  rubric: RubricInput,
  extra: { checksDir?: string | null; starterDir?: string | null } = {},
) {
  return {
    config: commissionSchema.parse({
      id: 'grading-test',
      title: 'Grading test',
      family: 'creation',
      entry: 'true',
      ...config,
    }),
    rubric: rubricSchema.parse(rubric),
    checksDir: extra.checksDir ?? null,
    starterDir: extra.starterDir ?? null,
  };
}

/** One dimension worth 100 points scored by the given items. */
export const oneDimension = (items: RubricInput['dimensions'][number]['items']): RubricInput => ({
  dimensions: [{ id: 'quality', title: 'Quality', max: 100, items }],
});

export function execution(overrides: Partial<Execution> = {}): Execution {
  return {
    backend: 'process',
    exitCode: 0,
    signal: null,
    timedOut: false,
    oom: false,
    wallMs: 1000,
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    outputs: [],
    weakerIsolation: [],
    ...overrides,
  };
}

/** A fresh output directory holding `files` (strings or Buffers). */
export function outputDir(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-grading-out-'));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

export function caseRef(truth: Record<string, unknown> | null = null, input = 'Summarise the attached notes.') {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-grading-case-'));
  writeFileSync(path.join(dir, 'input.md'), input);
  return { id: 'case-1', split: 'heldout' as const, inputPath: path.join(dir, 'input.md'), truth };
}

/** The evaluator-command runner of these tests: a plain `sh -c` child process in the tree (or output) directory. */
export const shRunner: CommandRunner = async (command, { mounts, timeoutSeconds }) => {
  const r = spawnSync('sh', ['-c', resolvePlaceholders(command, mounts)], {
    cwd: mounts.tree ?? mounts.output,
    encoding: 'utf8',
    timeout: timeoutSeconds * 1000,
  });
  return { exitCode: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', outputDir: mounts.output };
};
