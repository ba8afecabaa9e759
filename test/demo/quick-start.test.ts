import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

// The README's promise to a new user: two commands from a fresh clone. Sections added around it (init, validate,
// the commission reference) must not turn the Quick start into a setup procedure.
test('the README Quick start is still two commands, and both are scripts package.json has', () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Quick start'));
  expect(section).toBeDefined();
  const block = section!.match(/```sh\n([\s\S]*?)```/)?.[1] ?? '';
  const commands = block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
  expect(commands).toEqual(['npm install && npm run demo', 'npm test']);
  const scripts = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts;
  expect(scripts.demo).toBeTruthy();
  expect(scripts.test).toBeTruthy();
});
