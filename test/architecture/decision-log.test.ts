import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

// The decision log is one file per decision under docs/decisions/, indexed by its README and linked from the
// user's guide where a section relies on one. Nothing else keeps the three in step, so this test does.
const REPO = path.resolve(import.meta.dirname, '../..');
const DIR = path.join(REPO, 'docs/decisions');
const read = (rel: string) => readFileSync(path.join(REPO, rel), 'utf8');

interface Decision {
  file: string;
  n: number;
  title: string;
  date: string;
  issues: string[];
  body: string;
}

function parse(file: string): Decision {
  const text = readFileSync(path.join(DIR, file), 'utf8');
  const m = /^# (\d+)\. (.+)\n\nDate: (\d{4}-\d{2}-\d{2})\n(?:Issues?: ([\d, ]+)\n)?\n([\s\S]+)$/.exec(text);
  if (!m) throw new Error(`docs/decisions/${file}: not "# N. title", "Date: YYYY-MM-DD", [Issue: N], text`);
  const issues = m[4] ? m[4].split(/,\s*/) : [];
  return { file, n: Number(m[1]), title: m[2]!, date: m[3]!, issues, body: m[5]! };
}

const files = readdirSync(DIR)
  .filter((f) => f !== 'README.md')
  .sort();
const decisions = files.map(parse);

/** Relative Markdown link targets in a file, resolved against the file's folder, anchors dropped. */
function links(rel: string): string[] {
  const text = read(rel);
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith('#'))
    .map((t) => path.resolve(path.dirname(path.join(REPO, rel)), t.split('#')[0]!));
}

describe('the decision log', () => {
  test('files are NNNN-<slug>.md numbered 1…n without gaps, each with its number, title, date and text', () => {
    expect(files.length).toBeGreaterThan(50);
    files.forEach((f, i) => {
      expect(f).toMatch(new RegExp(`^${String(i + 1).padStart(4, '0')}-[a-z0-9-]+\\.md$`));
      expect(decisions[i]!.n, f).toBe(i + 1);
      expect(decisions[i]!.body.trim().length, f).toBeGreaterThan(40);
    });
  });

  test('an issue the text names is on its Issue line', () => {
    for (const d of decisions) {
      const named = [...d.body.matchAll(/\bissues? ((?:\d+(?:, | and )?)+)/g)].flatMap((m) => m[1]!.match(/\d+/g)!);
      for (const issue of named) expect(d.issues, `${d.file}: issue ${issue}`).toContain(issue);
    }
  });

  test('the index has one row per decision, in order, with its link, title and date', () => {
    const rows = [
      ...read('docs/decisions/README.md').matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| (.+?) \| ([\d-]+) \| .+ \|$/gm),
    ];
    expect(rows.map((r) => r[2])).toEqual(files);
    rows.forEach((r, i) => {
      const d = decisions[i]!;
      expect([Number(r[1]), r[3], r[4]], d.file).toEqual([d.n, d.title, d.date]);
    });
  });

  test('every decision is linked from the README section it concerns, and no text still points at a README list', () => {
    const readme = read('README.md');
    const linked = new Set(links('README.md'));
    for (const d of decisions) expect(linked.has(path.join(DIR, d.file)), d.file).toBe(true);
    for (const rel of ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'docs/extending.md']) {
      expect(read(rel), rel).not.toMatch(/see Decisions|"Decisions"/);
    }
    const section = readme.slice(
      readme.indexOf('\n## Decisions\n'),
      readme.indexOf('\n## ', readme.indexOf('\n## Decisions\n') + 5),
    );
    expect(section).toContain('docs/decisions/README.md');
    expect(section, 'a decision written in the README rather than in its own file').not.toMatch(/^- \*\*/m);
  });

  test('relative links of the README, CONTRIBUTING, bench/README.md and docs/ resolve to files that exist', () => {
    const docs = readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
    const sources = [
      'README.md',
      'CONTRIBUTING.md',
      'bench/README.md',
      ...docs.map((f) => `docs/${f}`),
      'docs/decisions/README.md',
      ...files.map((f) => `docs/decisions/${f}`),
    ];
    for (const rel of sources) {
      for (const target of links(rel)) expect(existsSync(target), `${rel} → ${path.relative(REPO, target)}`).toBe(true);
    }
  });
});
