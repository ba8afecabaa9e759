/**
 * The importer registry (src/importers/registry.ts): `heldout import` takes its kinds, its usage errors, its flags
 * and its `--help` from the table, so a kind added there is a kind the CLI imports, and nothing else is.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import importCommand from '../../src/cli/commands/import.js';
import { IMPORTERS, importerFor, importerKinds } from '../../src/importers/index.js';
import { tau2Dir } from '../tau2/data.js';
import { tmp } from './helpers.js';

describe('the importer registry', () => {
  let out: string[] = [];
  beforeEach(() => {
    out = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => vi.restoreAllMocks());

  test('holds agentswe, harbor and tau2; an unknown kind is refused with the known ones', async () => {
    expect(importerKinds()).toEqual(['agentswe', 'harbor', 'tau2']);
    expect(importerFor('nope')).toBeNull();
    expect(importerFor('toString')).toBeNull();
    await expect(importCommand.run({ values: { out: 'x' }, positionals: ['nope', '.'] })).rejects.toThrow(
      /name the kind first: agentswe, harbor, tau2$/,
    );
  });

  test('--help has each kind with its usage and its whole paragraph', () => {
    for (const kind of importerKinds()) {
      const { usage, help } = IMPORTERS[kind];
      expect(importCommand.help).toContain(`heldout import ${kind} ${usage}`);
      expect(importCommand.help).toContain(`${kind.padEnd(10)}${help[0]}`);
      for (const line of help.slice(1)) expect(importCommand.help).toContain(`\n          ${line}\n`);
    }
  });

  test('a flag is taken only by the kinds whose entry lists it', async () => {
    for (const flag of ['entry', 'profile', 'lang', 'product'] as const)
      for (const kind of importerKinds()) {
        if ((IMPORTERS[kind].flags as readonly string[]).includes(flag)) continue;
        await expect(
          importCommand.run({ values: { out: 'x', [flag]: 'v' }, positionals: [kind, '.'] }),
        ).rejects.toThrow(new RegExp(`^--${flag} applies to `));
      }
  });

  test('the τ² importer, now beside the others, imports through the CLI with its gold refusals in --json', async () => {
    const dest = path.join(tmp('registry'), 'retail');
    const code = await importCommand.run({
      values: { out: dest, json: true },
      positionals: ['tau2', path.join(tau2Dir, 'retail')],
    });
    expect(code).toBe(0);
    const doc = JSON.parse(out[0]!);
    expect(doc).toMatchObject({ ok: true, kind: 'tau2', id: 'tau2-retail' });
    // Retail has gold calls τ²'s own tools refuse on the raw database (README, "Tool-agent commissions").
    expect(doc.goldRefusals.length).toBeGreaterThan(0);
  });
});
