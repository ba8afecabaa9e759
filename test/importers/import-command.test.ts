import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { UsageError } from '../../src/cli/command.js';
import importCommand from '../../src/cli/commands/import.js';
import { loadCommission } from '../../src/commission/index.js';
import { fixtures, tmp } from './helpers.js';

describe('heldout import', () => {
  let out: string[] = [];
  let err: string[] = [];
  beforeEach(() => {
    out = [];
    err = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  });
  afterEach(() => vi.restoreAllMocks());

  test('imports a Harbor task, validates it and prints one JSON document with --json', async () => {
    const dest = path.join(tmp('cli'), 'c');
    const code = await importCommand.run({
      values: { out: dest, json: true },
      positionals: ['harbor', path.join(fixtures, 'harbor-hello')],
    });
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const doc = JSON.parse(out[0]!);
    expect(doc).toMatchObject({ ok: true, kind: 'harbor', id: 'hello-greeting' });
    expect(doc.files).toContain('IMPORT-NOTES.md');
    // Harbor's per-file account is `sources` (AgentSWE's is `sourceFiles`): every file of the task, what it became.
    expect(doc.sources).toContainEqual({ file: 'task.toml', became: expect.stringContaining('commission.yaml') });
    expect(doc.sourceFiles).toBeUndefined();
  });

  test('an incomplete package exits 2 naming what is missing', async () => {
    const code = await importCommand.run({
      values: { out: path.join(tmp('cli'), 'c') },
      positionals: ['harbor', tmp('empty')],
    });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/instruction\.md[\s\S]*task\.toml[\s\S]*tests\/test\.sh/);
  });

  test('usage errors: unknown kind, no --out', async () => {
    await expect(importCommand.run({ values: {}, positionals: ['nope', 'x'] })).rejects.toBeInstanceOf(UsageError);
    await expect(importCommand.run({ values: {}, positionals: ['agentswe', 'x'] })).rejects.toThrow(/--out/);
  });

  test('tau2: a real τ² domain becomes a tool-agent commission heldout accepts; an empty dir exits 2', async () => {
    const dest = path.join(tmp('cli'), 'airline');
    const airline = path.resolve(import.meta.dirname, '../../../shared/data/tau2/airline');
    const code = await importCommand.run({ values: { out: dest, json: true }, positionals: ['tau2', airline] });
    expect(code, err.join('\n')).toBe(0);
    expect(JSON.parse(out[0]!)).toMatchObject({ ok: true, kind: 'tau2' });
    const c = await loadCommission(dest);
    expect(c.config.family).toBe('tool-agent');
    expect(c.cases.dev.length + c.cases.heldout.length).toBe(50);
    const missing = await importCommand.run({
      values: { out: path.join(tmp('cli'), 'x') },
      positionals: ['tau2', tmp('domain')],
    });
    expect(missing).toBe(2);
    expect(err.join('\n')).toMatch(/tools\.json/);
  });

  test('--help describes all three kinds', () => {
    for (const kind of ['agentswe', 'harbor', 'tau2']) expect(importCommand.help).toContain(`heldout import ${kind}`);
  });
});

describe('heldout import agentswe', () => {
  let out: string[] = [];
  beforeEach(() => {
    out = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => vi.restoreAllMocks());

  test('--json gives the table of every source file that IMPORT-NOTES.md ends with', async () => {
    const src = path.join(fixtures, 'agentswe/optimization/tau3-retail');
    const code = await importCommand.run({
      values: { out: path.join(tmp('cli'), 'c'), json: true },
      positionals: ['agentswe', src],
    });
    expect(code).toBe(0);
    const doc = JSON.parse(out[0]!);
    expect(doc.ok).toBe(true);
    expect(doc.sourceFiles).toContainEqual(
      expect.objectContaining({ source: 'benchmark/task_contract.json', became: 'superseded' }),
    );
  });

  test('--profile, --lang and --product belong to agentswe; a refused package exits 2 with the reason', async () => {
    await expect(
      importCommand.run({ values: { out: 'x', profile: 'lite-v1.1' }, positionals: ['harbor', fixtures] }),
    ).rejects.toThrow(/--profile applies to agentswe imports only/);
    const code = await importCommand.run({
      values: { out: path.join(tmp('cli'), 'c'), json: true, profile: 'nope' },
      positionals: ['agentswe', path.join(fixtures, 'agentswe/optimization/tau3-retail')],
    });
    expect(code).toBe(2);
    expect(JSON.parse(out[0]!).missing.join('\n')).toMatch(/--profile nope/);
  });
});
