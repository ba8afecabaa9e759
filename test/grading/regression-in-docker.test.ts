import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { type CommandRunner, gradeCase, resolvePlaceholders } from '../../src/grading/index.js';
import { dockerBackend as backend, engineAnswers } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';
import { editingCase } from './editing-helpers.js';

const dockerUp = await engineAnswers(WAIT_MS);

/** The evaluator runner as the caller would build it: the patched tree read-only at /delivery, outputs at /out. */
const dockerRunner: CommandRunner = async (command, { mounts, timeoutSeconds }) => {
  const caseDir = mkdtempSync(path.join(os.tmpdir(), 'heldout-eval-case-'));
  writeFileSync(path.join(caseDir, 'input.md'), 'evaluator command\n');
  const exec = await backend.run({
    runId: `grading-test-${process.pid}`,
    caseId: 'evaluator',
    trial: 1,
    command: resolvePlaceholders(command, { tree: '/delivery' }),
    deliveryDir: mounts.tree ?? caseDir,
    inputPath: path.join(caseDir, 'input.md'),
    assetsDir: null,
    outputDir: mounts.output,
    limits: { wallSeconds: timeoutSeconds, memoryMb: 256, cpus: 1, pids: 64, outputBytes: 1 << 20 },
  });
  return { exitCode: exec.exitCode, stdout: exec.stdout, stderr: exec.stderr, outputDir: mounts.output };
};

describe.skipIf(!dockerUp)(
  dockerUp
    ? 'evaluator commands through the docker sandbox'
    : 'evaluator commands through the docker sandbox — skipped: no docker engine answers',
  () => {
    test('hidden tests and the regression suite run in containers: μ_new holds, μ_reg fails', async () => {
      const broken = await gradeCase({ ...editingCase('breaks-regression.patch'), runCommand: dockerRunner });
      expect(broken.dimensions.feature!.items[0]).toMatchObject({ score: 1 });
      expect(broken).toMatchObject({ passed: false, editing: { muNew: true, muReg: false } });
      expect(broken.editing!.evidence).toMatch(/add\(2, 2\) is 0/);

      const good = await gradeCase({ ...editingCase('good.patch'), runCommand: dockerRunner });
      expect(good).toMatchObject({ result: 100, passed: true, editing: { muNew: true, muReg: true } });
    });
  },
);
