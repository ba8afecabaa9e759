import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { UsageError } from '../../src/cli/command.js';
import importCommand from '../../src/cli/commands/import.js';
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

  test('tau2 either imports through the domains part or says it is not available (exit 2)', async () => {
    const code = await importCommand.run({
      values: { out: path.join(tmp('cli'), 'c') },
      positionals: ['tau2', tmp('domain')],
    });
    expect([0, 2]).toContain(code);
    if (code === 2) expect(err.join('\n')).toMatch(/tau2|not available|τ²/);
  });

  test('--help describes all three kinds', () => {
    for (const kind of ['agentswe', 'harbor', 'tau2']) expect(importCommand.help).toContain(`heldout import ${kind}`);
  });
});
