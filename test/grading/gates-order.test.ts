import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { runGates } from '../../src/grading/index.js';
import { execution, makeCommission, oneDimension, outputDir } from './helpers.js';

const rubric = {
  ...oneDimension([{ check: 'exists' as const, file: 'report.md', points: 100 }]),
  forbiddenOutputs: ['secrets/**', '*.key'],
};
const commission = makeCommission(
  {
    exitCodes: [0, 3],
    budgets: { wallSeconds: 10, memoryMb: 256 },
    artifacts: [
      { path: 'report.md', format: 'markdown' },
      { path: 'data.json', format: 'json' },
    ],
  },
  rubric,
);
const good = () => outputDir({ 'report.md': '# Report\n', 'data.json': '{"ok": true}' });

describe('gates run in order and stop at the first failure', () => {
  test('a command that never launched is an error exit', () => {
    const g = runGates({ execution: execution({ exitCode: null }), outputDir: good(), commission });
    expect(g).toMatchObject({ passed: false, gate: 'error-exit' });
    expect(g.reason).toMatch(/did not launch/);
  });

  test('a wall-clock kill is a timeout, not an error exit, even with missing artifacts', () => {
    const g = runGates({
      execution: execution({ exitCode: 137, signal: 'SIGKILL', timedOut: true }),
      outputDir: outputDir({}),
      commission,
    });
    expect(g.gate).toBe('timeout');
  });

  test('running past the wall budget counts as a timeout even if the backend did not flag it', () => {
    expect(runGates({ execution: execution({ wallMs: 10_001 }), outputDir: good(), commission }).gate).toBe('timeout');
  });

  test('an out-of-memory kill is oom', () => {
    const g = runGates({ execution: execution({ exitCode: 137, oom: true }), outputDir: good(), commission });
    expect(g).toMatchObject({ gate: 'oom' });
    expect(g.reason).toMatch(/256 MiB/);
  });

  test('an exit code outside the documented ones is an error exit; a documented one passes', () => {
    const g = runGates({ execution: execution({ exitCode: 1 }), outputDir: good(), commission });
    expect(g).toMatchObject({ gate: 'error-exit' });
    expect(g.reason).toMatch(/exited 1; allowed exit codes: 0, 3/);
    expect(runGates({ execution: execution({ exitCode: 3 }), outputDir: good(), commission }).passed).toBe(true);
  });

  test('a missing artifact is reported before another artifact is invalid', () => {
    const g = runGates({ execution: execution(), outputDir: outputDir({ 'data.json': 'not json' }), commission });
    expect(g).toMatchObject({ gate: 'missing-artifact', reason: 'required artifact report.md is missing' });
    expect(g.artifacts['data.json']).toMatchObject({ present: true });
    expect(g.artifacts['data.json']!.problem).toMatch(/not valid JSON/);
  });

  test('an invalid artifact fails after all required ones are present', () => {
    const g = runGates({
      execution: execution(),
      outputDir: outputDir({ 'report.md': 'x', 'data.json': '{"a":' }),
      commission,
    });
    expect(g.gate).toBe('invalid-artifact');
    expect(g.reason).toMatch(/^data\.json is not valid JSON/);
  });

  test('a forbidden output is a constraint violation', () => {
    const dir = outputDir({ 'report.md': '# R', 'data.json': '{}', 'secrets/token.txt': 'x' });
    const g = runGates({ execution: execution(), outputDir: dir, commission });
    expect(g).toMatchObject({ gate: 'constraint-violation' });
    expect(g.reason).toMatch(/secrets\/token\.txt/);
  });

  test('a clean run passes every gate', () => {
    expect(runGates({ execution: execution(), outputDir: good(), commission })).toMatchObject({
      passed: true,
      gate: null,
      reason: null,
    });
  });

  test('without an execution (a patch-only delivery) only the artifact gates run', () => {
    expect(runGates({ execution: null, outputDir: good(), commission }).passed).toBe(true);
    expect(runGates({ execution: null, outputDir: outputDir({}), commission }).gate).toBe('missing-artifact');
  });
});

describe('artifacts reached through symlinks', () => {
  test('a link out of the output directory (e.g. to a host truth file) is no artifact; a link inside is', () => {
    const host = mkdtempSync(path.join(os.tmpdir(), 'heldout-host-'));
    writeFileSync(path.join(host, 'truth.json'), '{"answer": 42}');
    const outside = outputDir({ 'report.md': '# Report\n' });
    symlinkSync(path.join(host, 'truth.json'), path.join(outside, 'data.json'));
    expect(runGates({ execution: execution({}), outputDir: outside, commission })).toMatchObject({
      passed: false,
      gate: 'missing-artifact',
    });
    const inside = outputDir({ 'report.md': '# Report\n', 'real.json': '{"ok": true}' });
    symlinkSync(path.join(inside, 'real.json'), path.join(inside, 'data.json'));
    expect(runGates({ execution: execution({}), outputDir: inside, commission }).passed).toBe(true);
  });
});
