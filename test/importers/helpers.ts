import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { AccountRow } from '../../src/importers/index.js';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const dataDir = path.resolve(repoRoot, '../shared/data');
/** The real AgentSWE packages in ../shared (read, never copied). */
export const agentsweTasks = path.join(dataDir, 'agentswe/tasks');
export const dbAnalytics = path.join(agentsweTasks, 'creation/database-analytics');
export const pdfTranslation = path.join(agentsweTasks, 'creation/scientific-pdf-translation');
export const pinchbench = path.join(agentsweTasks, 'optimization/pinchbench-openclaw');
export const fixtures = path.join(repoRoot, 'fixtures/importers');
/** Fixtures faithful to AgentSWE packages read from the public index (fixtures/importers/agentswe/README.md). */
export const agentsweFixtures = path.join(fixtures, 'agentswe');
export const hasData = existsSync(dbAnalytics);
export const hasLite = existsSync(pdfTranslation) && existsSync(pinchbench);

export const tmp = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), `heldout-import-${prefix}-`));

/** Every file under `dir` with its bytes, keyed by relative path. */
export function snapshot(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      if (statSync(p).isDirectory()) walk(p, rel);
      else out.set(rel, readFileSync(p));
    }
  };
  walk(dir, '');
  return out;
}

/**
 * Nothing dropped silently: every file of the source package has a row in the import's account, with a
 * disposition and a detail, and IMPORT-NOTES.md's table names it.
 */
export function expectEveryFileAccounted(taskDir: string, outDir: string, rows: AccountRow[]): void {
  const files = [...snapshot(taskDir).keys()];
  expect(rows.map((r) => r.source)).toEqual(files);
  for (const r of rows) {
    expect(r.became, r.source).toBeTruthy();
    expect(r.detail.length, r.source).toBeGreaterThan(5);
  }
  const notes = readFileSync(path.join(outDir, 'IMPORT-NOTES.md'), 'utf8');
  for (const f of files) expect(notes, f).toContain(`| \`${f}\` |`);
}

export const deeptutor = path.join(agentsweFixtures, 'editing/deeptutor-adaptive-remediation');
export const mastery = path.join(agentsweFixtures, 'products/deeptutor-mastery');

/** A copy of the pinned stand-in product, without anything a local Python run may have left in the fixture. */
export function productCheckout(): string {
  const dir = path.join(tmp('product'), 'mastery');
  cpSync(mastery, dir, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  return dir;
}
