import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { UsageError } from '../../src/cli/command.js';
import cluster from '../../src/cli/commands/taste-cluster.js';
import coverage from '../../src/cli/commands/taste-coverage.js';
import sample from '../../src/cli/commands/taste-sample.js';
import { coverageMetrics, loadDomain } from '../../src/taste/index.js';

const airlineDir = path.resolve(import.meta.dirname, '../../../shared/data/tau2/airline');
const tmp = mkdtempSync(path.join(tmpdir(), 'taste-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  try {
    return { code: await fn(), out: lines.join('\n') };
  } finally {
    spy.mockRestore();
  }
}

describe('heldout taste CLI commands', () => {
  test('coverage --json prints one document with the DESIGN §11 metrics per input', async () => {
    const gold = path.join(airlineDir, 'gold_sequences.json');
    const tasks = path.join(airlineDir, 'tasks.json');
    const { code, out } = await capture(() =>
      coverage.run({ values: { tools: path.join(airlineDir, 'tools.json'), json: true }, positionals: [gold, tasks] }),
    );
    expect(code).toBe(0);
    const doc = JSON.parse(out);
    const d = loadDomain(airlineDir);
    expect(doc[0]).toEqual({
      file: gold,
      metrics: coverageMetrics(
        d.gold.map((g) => g.tools),
        d.tools,
      ),
    });
    expect(doc[1].metrics).toEqual(doc[0].metrics); // tasks.json gives the same sequences
  });

  test('sample --validator llm without a configured endpoint is a usage error, not a made-up figure', async () => {
    const saved = { ...process.env };
    for (const k of Object.keys(process.env)) if (/^(HELDOUT_GENERATOR_|OPENAI_)/.test(k)) delete process.env[k];
    try {
      await expect(sample.run({ values: { domain: airlineDir, validator: 'llm' }, positionals: [] })).rejects.toThrow(
        UsageError,
      );
    } finally {
      Object.assign(process.env, saved);
    }
  });

  test('sample --json trains, saves the tables and reports validity; cluster reuses the tables', async () => {
    const out = path.join(tmp, 'airline');
    const s = await capture(() =>
      sample.run({ values: { domain: airlineDir, attempts: '400', seed: '7', out, json: true }, positionals: [] }),
    );
    const rep = JSON.parse(s.out);
    expect(Object.keys(rep.validity).sort()).toEqual(['gold', 'goldInit', 'trained', 'uniform']);
    for (const v of Object.values(rep.validity) as number[]) expect(v).toBeGreaterThanOrEqual(0);
    expect(rep.validity.trained).toBeGreaterThan(rep.validity.uniform);
    expect(rep.attempts).toBe(400);
    const tables = JSON.parse(readFileSync(path.join(out, 'sampler.json'), 'utf8'));
    expect(tables.format).toBe('heldout/taste-trigram@1');
    const c = await capture(() =>
      cluster.run({
        values: {
          domain: airlineDir,
          tables: path.join(out, 'sampler.json'),
          pool: '150',
          k: '6',
          seed: '1',
          out,
          json: true,
        },
        positionals: [],
      }),
    );
    const res = JSON.parse(c.out);
    expect(res.k).toBe(6);
    expect(res.dropped).toBe(0);
    expect(new Set(res.medoids.map((m: any) => m.sequence.join(','))).size).toBe(6);
    expect(res.sizes.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThanOrEqual(150);
  });
});
