import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

// The shape CONTRIBUTING.md draws, checked on the source: one folder per part, other parts reached only through
// a part's index.ts, no import cycle between files or between parts, util importing no part, no file over 450 lines.
const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

const files = sourceFiles(SRC);

// CONTRIBUTING.md's table of who may import whom; util is implied for every part but itself.
const ALLOWED: Record<string, string[]> = {
  util: [],
  commission: [],
  metrics: [],
  sandbox: [],
  freeze: [],
  gateway: ['sandbox'],
  tau2: [],
  // The τ² importer reads domains with τ²'s own loader and gold replay.
  importers: ['tau2'],
  taste: ['tau2'],
  grading: ['commission', 'gateway', 'sandbox', 'tau2'],
  run: ['commission', 'freeze', 'gateway', 'grading', 'sandbox'],
  report: ['commission', 'grading', 'metrics', 'run', 'sandbox'],
  propgen: ['commission', 'grading', 'run', 'sandbox'],
  vitest: ['commission', 'grading', 'propgen', 'report', 'run', 'sandbox'],
  devloop: ['commission', 'freeze', 'report', 'run', 'sandbox', 'vitest'],
};
const partOf = (file: string) => path.relative(SRC, file).split(path.sep)[0]!;

/** Every relative import of a file (static, dynamic and re-exports), resolved to a source file. */
function importsOf(file: string): { target: string }[] {
  const text = readFileSync(file, 'utf8');
  const out: { target: string }[] = [];
  const re = /(import|export)\s+(?:type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[2] ?? m[3]!;
    const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
    out.push({ target });
  }
  return out;
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe('part boundaries', () => {
  test('every relative import names a source file that exists', () => {
    const missing = [...graph].flatMap(([f, deps]) =>
      deps.filter((d) => !graph.has(d.target)).map((d) => `${path.relative(SRC, f)} → ${d.target}`),
    );
    expect(missing).toEqual([]);
  });

  test('another part is reached only through its index.ts', () => {
    const reaching = [...graph].flatMap(([f, deps]) =>
      deps
        .filter(
          (d) => partOf(d.target) !== partOf(f) && path.relative(SRC, d.target) !== `${partOf(d.target)}/index.ts`,
        )
        .map((d) => `${path.relative(SRC, f)} → ${path.relative(SRC, d.target)}`),
    );
    expect(reaching).toEqual([]);
  });

  test('no import cycle between files or between parts, type-only imports counted', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const d of graph.get(f) ?? []) {
        // A type-only circle is still two files each needing the other to be read; its types belong to one of them.
        if (!graph.has(d.target)) continue;
        if (state.get(d.target) === 'open')
          cycles.push(
            stack
              .slice(stack.indexOf(d.target))
              .map((x) => path.relative(SRC, x))
              .join(' → '),
          );
        else if (!state.has(d.target)) visit(d.target);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);

    const parts = new Map<string, Set<string>>();
    for (const [f, deps] of graph)
      for (const d of deps) {
        const [a, b] = [partOf(f), partOf(d.target)];
        if (a !== b && graph.has(d.target) && !a.endsWith('.ts'))
          (parts.get(a) ?? parts.set(a, new Set()).get(a)!).add(b);
      }
    const reach = (from: string, to: string, seen = new Set<string>()): boolean => {
      for (const n of parts.get(from) ?? []) {
        if (n === to) return true;
        if (seen.has(n)) continue;
        seen.add(n);
        if (reach(n, to, seen)) return true;
      }
      return false;
    };
    const partCycles = [...parts].flatMap(([a, bs]) => [...bs].filter((b) => reach(b, a)).map((b) => `${a} ⇄ ${b}`));
    expect(partCycles).toEqual([]);
    expect([...(parts.get('util') ?? [])]).toEqual([]);
    const beyond = [...parts].flatMap(([a, bs]) =>
      a === 'cli'
        ? []
        : [...bs].filter((b) => b !== 'util' && !(ALLOWED[a] ?? []).includes(b)).map((b) => `${a} → ${b}`),
    );
    expect(beyond).toEqual([]);
  });

  test('no source file over 450 lines', () => {
    const big = files
      .map((f) => [path.relative(SRC, f), readFileSync(f, 'utf8').split('\n').length] as const)
      .filter(([, n]) => n > 450);
    expect(big).toEqual([]);
  });
});
