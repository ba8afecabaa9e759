import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { heldout, repoRoot as repo } from '../helpers/cli.js';

describe('heldout validate', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-validate-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('every example commission is valid (exit 0)', async () => {
    const r = await heldout(['validate', 'tasks/log-triage/', 'tasks/todo-due-dates/', 'tasks/ticket-routing/']);
    expect(r.code, r.out).toBe(0);
    expect(r.out.match(/^ok /gm)).toHaveLength(3);
  });

  test('a corrupted commission.yaml exits 2 naming the file and the offending field', async () => {
    const dir = path.join(tmp, 'broken');
    cpSync(path.join(repo, 'tasks/log-triage'), dir, { recursive: true });
    const file = path.join(dir, 'commission.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace(/^family: .*$/m, 'family: compilation')
        .replace(/^trials: .*$/m, 'trials: -2'),
    );
    const r = await heldout(['validate', dir]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/broken\/commission\.yaml: family: /);
    expect(r.out).toMatch(/broken\/commission\.yaml: trials: /);
    expect(r.out).not.toMatch(/at .*\.js:\d+/); // no stack trace
  });

  test('a path that is no directory is named once, exit 2', async () => {
    const r = await heldout(['validate', 'tasks/no-such-commission']);
    expect(r.code).toBe(2);
    expect(r.out.trim()).toBe('tasks/no-such-commission: (root): not a directory');
  });

  test('--json gives one document with every package and its problems by file and field', async () => {
    const dir = path.join(tmp, 'json-broken');
    cpSync(path.join(repo, 'tasks/log-triage'), dir, { recursive: true });
    const file = path.join(dir, 'commission.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^trials: .*$/m, 'trials: 0'));
    const r = await heldout(['validate', 'tasks/log-triage', dir, '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual([
      { dir: 'tasks/log-triage', ok: true, family: 'creation', dev: 2, heldout: 9, problems: [] },
      {
        dir,
        ok: false,
        problems: [
          { file: `${dir}/commission.yaml`, field: 'trials', message: expect.stringMatching(/use a number above 0/) },
        ],
      },
    ]);
  });

  test('YAML syntax errors carry line and column', async () => {
    const dir = path.join(tmp, 'syntax');
    cpSync(path.join(repo, 'tasks/log-triage'), dir, { recursive: true });
    writeFileSync(path.join(dir, 'rubric.yaml'), 'dimensions:\n  - id: [unclosed\n');
    const r = await heldout(['validate', dir]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/syntax\/rubric\.yaml: line \d+, column \d+: /);
  });

  test('--help describes every command and unknown commands exit 2', async () => {
    const help = await heldout(['--help']);
    expect(help.code).toBe(0);
    for (const c of [
      'validate',
      'run',
      'demo',
      'freeze',
      'gc',
      'image build',
      'import',
      'taste coverage',
      'taste sample',
    ]) {
      expect(help.out).toContain(`  ${c} `);
    }
    expect((await heldout(['validate', '--help'])).out).toMatch(/^Usage: heldout validate/);
    expect((await heldout(['nonsense'])).code).toBe(2);
  });
});
