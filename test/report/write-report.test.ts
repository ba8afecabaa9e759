import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { summarySchema, writeReport } from '../../src/report/index.js';
import { writeFileAtomic } from '../../src/util/index.js';
import { sampleSummary } from './sample-summary.js';
import { expectValidSummary } from './summary-json-schema.js';

describe('writeReport', () => {
  test("writes the four files and the page's chunk directory into a fresh directory, leaving no temp files", async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'heldout-report-')), 'nested', 'run');
    const summary = sampleSummary();
    const paths = await writeReport(out, summary);
    expect((await readdir(out)).sort()).toEqual([
      'index.files',
      'index.html',
      'junit.xml',
      'report.md',
      'summary.json',
    ]);
    const doc = JSON.parse(await readFile(paths.summary, 'utf8'));
    expect(summarySchema.safeParse(doc).success).toBe(true);
    expectValidSummary(doc);
    expect(doc).toEqual(JSON.parse(JSON.stringify(summary)));
    expect(await readFile(paths.html, 'utf8')).toMatch(/^<!doctype html>/);
    expect(await readFile(paths.junit, 'utf8')).toMatch(/^<\?xml/);
  });
});

describe('writeReport when a write fails', () => {
  test('summary.json, the report of record, is not replaced when another file could not be written', async () => {
    const out = await mkdtemp(join(tmpdir(), 'heldout-report-'));
    await writeFile(join(out, 'summary.json'), 'previous');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(out, 'index.html'));
    await expect(writeReport(out, sampleSummary())).rejects.toThrow();
    expect(await readFile(join(out, 'summary.json'), 'utf8')).toBe('previous');
    expect((await readdir(out)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('writeFileAtomic', () => {
  test('replaces existing content whole', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'heldout-atomic-'));
    const file = join(dir, 'summary.json');
    await writeFile(file, 'old');
    await writeFileAtomic(file, 'new content');
    expect(await readFile(file, 'utf8')).toBe('new content');
    expect(await readdir(dir)).toEqual(['summary.json']);
  });

  test('when the rename fails the target is untouched and the temp file removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'heldout-atomic-'));
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'index.html'));
    await writeFile(join(dir, 'index.html', 'keep'), 'x');
    await expect(writeFileAtomic(join(dir, 'index.html'), 'y')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['index.html']);
    expect(await readFile(join(dir, 'index.html', 'keep'), 'utf8')).toBe('x');
  });
});
