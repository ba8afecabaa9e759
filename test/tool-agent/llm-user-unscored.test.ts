import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');

// With `toolAgent.user: llm` and no model for the gateway's user role there is no honest reward: unscored, never 0.
test('an LLM user with no configured model leaves every case unscored with the reason', async () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-tool-agent-llm-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const pkg = path.join(tmp, 'commission');
  cpSync(path.join(repo, 'fixtures/tool-agent/airline-5'), pkg, { recursive: true });
  const yaml = readFileSync(path.join(pkg, 'commission.yaml'), 'utf8')
    .replace(
      'domain: ../../../../shared/data/tau2/airline',
      `domain: ${path.resolve(repo, '../shared/data/tau2/airline')}`,
    )
    .replace('user: scripted', 'user: llm')
    .replace('trials: 3', 'trials: 1');
  writeFileSync(path.join(pkg, 'commission.yaml'), yaml);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && !k.startsWith('HELDOUT_')),
  );
  const out = path.join(tmp, 'out');
  const args = ['run', pkg, '--delivery', path.join(repo, 'fixtures/tool-agent/deliveries/oracle')];
  const r = await promisify(execFile)(
    'node',
    [path.join(repo, 'dist/cli/bin.js'), ...args, '--sandbox', 'process', '--out', out, '--reporter', 'dot'],
    { cwd: repo, env, maxBuffer: 32 << 20 },
  ).catch((e) => e as { stdout: string; stderr: string });
  const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')).commissions[0];
  expect(summary.cases, r.stdout + r.stderr).toHaveLength(5);
  for (const c of summary.cases) {
    expect(c.status).toBe('unscored');
    expect(c.result).toBeNull();
    expect(c.reason).toMatch(/no model for its user role/);
    expect(existsSync(path.join(out, 'cases/tau2-airline-5/oracle/heldout', `${c.id}-t1`, 'episode.json'))).toBe(false);
  }
  expect(summary.result.unscored).toBe(5);
});
