import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { heldout, repoRoot } from '../helpers/cli.js';

// The example properties.ts imports the package by its name, so a commission copied into a user's project (where
// heldout and its dependencies are installed, here linked as a hoisting install leaves them) works in `gen property`.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-copied-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('a copy of tasks/log-triage outside the repository runs in gen property', async () => {
  const modules = path.join(tmp, 'project/node_modules');
  mkdirSync(modules, { recursive: true });
  symlinkSync(repoRoot, path.join(modules, 'heldout'));
  for (const dep of ['fast-check', 'zod'])
    symlinkSync(path.join(repoRoot, 'node_modules', dep), path.join(modules, dep));
  const copy = path.join(tmp, 'project/log-triage');
  cpSync(path.join(repoRoot, 'tasks/log-triage'), copy, { recursive: true });
  expect(readFileSync(path.join(copy, 'properties.ts'), 'utf8')).toMatch(/from 'heldout';$/m);
  const delivery = path.join(repoRoot, 'fixtures/deliveries/log-triage-reference');
  const r = await heldout(['gen', 'property', copy, '--delivery', delivery, '--runs', '3', '--sandbox', 'process'], {
    cwd: path.join(tmp, 'project'),
  });
  expect(r.code, r.out).toBe(0);
  expect(r.out).toMatch(/^ok log-triage: \d+ properties held on 3 generated inputs/m);
});
