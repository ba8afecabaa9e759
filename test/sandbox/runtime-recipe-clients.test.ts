// What agent clients expect of the runtime image beyond what heldout's own tools link: the C.UTF-8 locale its
// LANG names, and glibc's librt (Claude Code's native binary links it). Read from the recipe: no engine needed.
import { existsSync } from 'node:fs';
import { expect, test } from 'vitest';
import { runtimeRecipe } from '../../src/sandbox/index.js';

test('the runtime image carries the locale LANG names and the glibc libraries native clients link', async () => {
  const r = await runtimeRecipe();
  const paths = new Set(r.entries.map((e) => e.path));
  expect(r.env).toContain('LANG=C.UTF-8');
  const localeDir = ['usr/lib/locale/C.utf8', 'usr/lib/locale/C.UTF-8'].find((d) => existsSync(`/${d}`));
  // a host without the locale's files has nothing to copy (glibc ≥ 2.35 has C.UTF-8 built in)
  if (localeDir) expect(paths.has(`${localeDir}/LC_CTYPE`), localeDir).toBe(true);
  const librt = [...paths].filter((p) => /\/librt\.so\.1$/.test(p));
  const hostHas = [
    '/usr/lib/x86_64-linux-gnu/librt.so.1',
    '/usr/lib/aarch64-linux-gnu/librt.so.1',
    '/usr/lib64/librt.so.1',
  ].some(existsSync);
  if (hostHas) expect(librt).toHaveLength(1);
  expect(
    localeDir || hostHas,
    'this host has neither C.utf8 files nor librt: the test would check nothing',
  ).toBeTruthy();
});
