// The plugin's `pricing` option (issue 34): the file is read when Vitest's config is resolved, so a bad one stops the
// run there in one line naming the file and the field, before any case (or sandbox) starts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { heldout } from '../../src/vitest/index.js';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'plugin-pricing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configure = (pricing: string) => {
  const plugin = heldout({ commissions: ['fixtures/model-use/commission'], delivery: 'x', pricing });
  return () => (plugin.config as (c: object) => void)({ root });
};

describe('the plugin’s pricing option', () => {
  test('a good table passes; a bad one throws one line naming the file and the field', () => {
    const good = path.join(dir, 'good.yaml');
    writeFileSync(good, 'models:\n  runtime-model: { input: 1, output: 2, tiers: [{ above: 100, input: 2 }] }\n');
    expect(configure(good)).not.toThrow();
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'models:\n  runtime-model: { input: 1, output: 2, tiers: [{ above: -1 }] }\n');
    expect(configure(bad)).toThrow(/^[^\n]*bad\.yaml: models\.runtime-model\.tiers\.0\.above: [^\n]+$/);
  });
});
