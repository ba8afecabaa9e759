import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { loadCommission } from '../../src/commission/index.js';
import { scanDevStrings } from '../../src/run/dev-strings.js';
import { repoRoot } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-dev-strings-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('the overfitting scanner reads the delivery’s own files: links (to /, looping, dangling) are not followed', async () => {
  const commission = await loadCommission(path.join(repoRoot, 'tasks/log-triage'));
  const original = path.join(repoRoot, 'fixtures/deliveries/log-triage-overfit');
  const linked = path.join(tmp, 'overfit');
  cpSync(original, linked, { recursive: true });
  symlinkSync('/', path.join(linked, 'root'));
  symlinkSync('.', path.join(linked, 'loop'));
  symlinkSync('/no/such/file', path.join(linked, 'dangling'));
  const expected = scanDevStrings(original, commission);
  expect(expected).toContain('checkout-gateway');
  expect(scanDevStrings(linked, commission)).toEqual(expected);
});
