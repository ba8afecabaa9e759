#!/usr/bin/env node
// `node bench/taste-snapshot.mjs <out-dir> [--dist <dir>] [--small]`: the whole `generateTasks` result of airline,
// retail and telecom at seed 0 (offline), one JSON file per domain, and their sha256 digests on stdout. Run it before
// and after a change to stage 3 (or to what it runs on) and compare the files: a speed-up must leave them
// byte-identical (issue 24). `--small` uses the sizes test/taste/stage3/generate-pinned.test.ts pins. `--dist` picks
// another build of the package (a copy of dist/ from before the change, kept inside the checkout so its imports
// resolve). Needs the built package (`npm run build`).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const dist = path.resolve(flag('--dist') ?? path.join(here, '../dist'));
const small = args.includes('--small');
const out = args.find((a) => !a.startsWith('--'));
if (!out) {
  process.stderr.write('usage: node bench/taste-snapshot.mjs <out-dir> [--dist <dir>] [--small]\n');
  process.exit(2);
}
const root = path.resolve(here, '../../shared/data/tau2');
const { generateTasks } = await import(pathToFileURL(path.join(dist, 'taste/index.js')).href);
mkdirSync(out, { recursive: true });
for (const name of ['airline', 'retail', 'telecom']) {
  const t = performance.now();
  const r = await generateTasks(path.join(root, name), {
    seed: 0,
    ...(small ? { attempts: 300, pool: 150, k: 12 } : {}),
  });
  const ms = Math.round(performance.now() - t);
  const text = JSON.stringify(r, null, 1);
  writeFileSync(path.join(out, `${name}.json`), text);
  const digest = createHash('sha256').update(text).digest('hex');
  process.stdout.write(`${name} ${digest} ${r.tasks.length} tasks ${ms} ms\n`);
}
