import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FileAccount } from './agentswe-account.js';
import { gitTreeHash } from './git-tree.js';
import type { PackageDraft } from './package-writer.js';
import { readIfExists } from './source-files.js';
import { asObject, asText } from './values.js';

/** The product an editing task pins: `task.json.upstream` (and `a0/a0.json`, which repeats it). */
export interface ProductPin {
  repo: string | null;
  commit: string | null;
  gitTree: string | null;
  subset: string[] | null;
}

/** The pin of an editing task, from task.json's `upstream` or `a0/a0.json`, with `a0/subset.txt` when present. */
export function productPin(
  taskDir: string,
  taskJson: Record<string, unknown> | null,
  account: FileAccount,
): ProductPin {
  const up = asObject(taskJson?.upstream);
  let a0: Record<string, unknown> | null = null;
  const a0Text = readIfExists(path.join(taskDir, 'a0', 'a0.json'));
  if (a0Text !== null) {
    try {
      a0 = asObject(JSON.parse(a0Text));
    } catch {
      a0 = null;
    }
    account.record(
      'a0/a0.json',
      'product pin',
      'the pinned product (repo, commit, git tree) that --product is checked against',
    );
  }
  const subsetText = readIfExists(path.join(taskDir, 'a0', 'subset.txt'));
  if (subsetText !== null)
    account.record('a0/subset.txt', 'product pin', 'the product files kept after the pin check (a0 is a subset)');
  if (existsSync(path.join(taskDir, 'a0', 'fetch.sh')))
    account.record(
      'a0/fetch.sh',
      'product pin',
      'the fetch script (needs the network): run it, then import with --product <its checkout>',
    );
  if (existsSync(path.join(taskDir, 'a0', 'en-upstream.sha256')))
    account.record(
      'a0/en-upstream.sha256',
      'product pin',
      "the pin's per-file checksums: accepted when the git tree hash differs",
    );
  return {
    repo: asText(up?.repo) ?? asText(a0?.repo),
    commit: asText(up?.commit) ?? asText(a0?.commit),
    gitTree: asText(up?.git_tree) ?? asText(a0?.git_tree),
    subset:
      subsetText === null
        ? null
        : subsetText
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter((l) => l && !l.startsWith('#')),
  };
}

/** The files of a checkout heldout copies and hashes: git's tracked files in a git work tree, else every file. */
function checkoutFiles(dir: string): ((rel: string) => boolean) | null {
  if (!existsSync(path.join(dir, '.git'))) return null;
  try {
    const out = execFileSync('git', ['-C', dir, 'ls-files', '-z'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const tracked = new Set(out.split('\0').filter(Boolean));
    return (rel) => tracked.has(rel);
  } catch {
    return null;
  }
}

function sha256Verified(dir: string, sums: string): boolean {
  const lines = sums
    .split(/\r?\n/)
    .map((l) => /^([0-9a-f]{64})\s+\*?(.+)$/.exec(l.trim()))
    .filter((m) => m !== null);
  if (lines.length === 0) return false;
  return lines.every((m) => {
    const p = path.join(dir, m![2]!);
    return existsSync(p) && createHash('sha256').update(readFileSync(p)).digest('hex') === m![1];
  });
}

/**
 * Checks `productDir` against the pin (git's tree hash of its files, else the pin's sha256 list) and puts it into
 * `starter/` (keeping only `a0/subset.txt`'s files when there is one). Returns null when it holds, else the
 * refusal.
 */
export function importProduct(
  productDir: string,
  taskDir: string,
  pin: ProductPin,
  draft: PackageDraft,
  note: (text: string) => void,
): string | null {
  if (!existsSync(productDir) || !statSync(productDir).isDirectory())
    return `--product ${productDir} is not a directory`;
  const keep = checkoutFiles(productDir) ?? (() => true);
  const tree = gitTreeHash(productDir, keep);
  if (pin.gitTree && tree !== pin.gitTree) {
    const sums = readIfExists(path.join(taskDir, 'a0', 'en-upstream.sha256'));
    if (!sums || !sha256Verified(productDir, sums))
      return `--product ${productDir}: its git tree is ${tree}, the task pins ${pin.gitTree} (${pin.repo ?? 'the product'} at ${pin.commit ?? 'its pinned commit'}); check out exactly that commit`;
    note(
      `the product's git tree ${tree} differs from the pin ${pin.gitTree}, but every file of a0/en-upstream.sha256 matches: accepted`,
    );
  } else if (pin.gitTree)
    note(`the product checkout's git tree is ${tree}, the pinned one (${pin.repo ?? ''} ${pin.commit ?? ''})`.trim());
  else note(`the task pins no git tree; the product checkout (git tree ${tree}) was taken as it is`);
  const subset = pin.subset ? new Set(pin.subset) : null;
  let copied = 0;
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git') continue;
      const abs = path.join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      const st = lstatSync(abs);
      if (st.isDirectory()) walk(abs, rel);
      else if (keep(rel) && (!subset || subset.has(rel)) && !st.isSymbolicLink()) {
        draft.put(`starter/${rel}`, readFileSync(abs));
        copied++;
      } else if (st.isSymbolicLink() && keep(rel))
        note(`starter/${rel}: a symbolic link to ${readlinkSync(abs)}, not copied`);
    }
  };
  walk(productDir, '');
  note(`starter/: ${copied} files of the product${subset ? ` (the ${subset.size} files of a0/subset.txt)` : ''}`);
  return null;
}

/** The product's own test command, from what the checkout declares (`files`: its relative paths → bytes). */
export function productTestCommand(files: Map<string, Buffer>): { command: string; from: string } | null {
  const starterFiles = (rel: string) => files.get(rel)?.toString('utf8') ?? null;
  const pkg = starterFiles('package.json');
  if (pkg) {
    try {
      const test = asText(asObject(asObject(JSON.parse(pkg))?.scripts)?.test);
      if (test && !/no test specified/.test(test))
        return { command: 'npm test', from: `package.json scripts.test (${test})` };
    } catch {
      // An unreadable package.json declares nothing.
    }
  }
  for (const f of ['pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini']) {
    const t = starterFiles(f);
    if (t && /\[(?:tool[.:])?pytest\b|\bpytest\b/.test(t))
      return { command: 'python3 -m pytest -q', from: `${f} (pytest)` };
  }
  for (const d of ['tests', 'test']) {
    if ([...files.keys()].some((f) => new RegExp(`^${d}/test[^/]*\\.py$`).test(f)))
      return { command: `python3 -m unittest discover -s ${d}`, from: `${d}/test*.py (Python tests)` };
  }
  if (starterFiles('Cargo.toml')) return { command: 'cargo test --offline', from: 'Cargo.toml' };
  if (starterFiles('go.mod')) return { command: 'go test ./...', from: 'go.mod' };
  const make = starterFiles('Makefile');
  if (make && /^test:/m.test(make)) return { command: 'make test', from: 'Makefile (test target)' };
  return null;
}
