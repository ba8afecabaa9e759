// tsc neither marks the bin executable nor copies non-TS assets; both are needed for `npx heldout` and for the
// files parts read at run time (plain-JS scripts that go into sandboxes or worker threads).
import { chmodSync, cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

chmodSync('dist/cli/bin.js', 0o755);

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) copyAssets(p);
    else if (/\.(mjs|cjs|md|json|yaml|html|css)$/.test(name)) {
      const dest = path.join('dist', path.relative('src', p));
      cpSync(p, dest);
    }
  }
}
if (existsSync('src')) copyAssets('src');
