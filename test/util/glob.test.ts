/**
 * The one glob (src/util/glob.ts): its meaning of `*`, `**` and `?`, its two options, and each call site reading
 * patterns with the meaning it documents.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { CaseRef } from '../../src/commission/index.js';
import { matchesAny as gradingMatches } from '../../src/grading/index.js';
import { accountFiles } from '../../src/importers/harbor-files.js';
import { isIgnored, parseDockerignore } from '../../src/sandbox/dockerignore.js';
import { globToRegExp, matchesAny } from '../../src/util/glob.js';
import { selectCases } from '../../src/vitest/case-filter.js';
import { resolveCommissionDirs } from '../../src/vitest/plugin.js';

const segment = fc.stringMatching(/^[a-z0-9._-]{1,6}$/).filter((s) => s !== '.' && s !== '..');
const relPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((xs) => xs.join('/'));
const dialects = fc.constantFrom(undefined, 'match' as const, 'dockerignore' as const);

describe('the one glob', () => {
  test.prop([relPath, dialects])('a path without glob characters matches itself and only itself', (p, go) => {
    const re = globToRegExp(p, { go });
    expect(re.test(p)).toBe(true);
    expect(re.test(`${p}x`)).toBe(false);
    expect(re.test(`x/${p}`)).toBe(false);
  });

  test.prop([fc.array(segment, { minLength: 1, maxLength: 4 }), dialects])(
    '`*` in place of every segment matches the path, and never across a `/`',
    (segs, go) => {
      const p = segs.join('/');
      expect(globToRegExp(segs.map(() => '*').join('/'), { go }).test(p)).toBe(true);
      expect(globToRegExp('*', { go }).test(p)).toBe(segs.length === 1);
    },
  );

  test.prop([relPath, relPath])(
    "`**/` spans zero or more directories; in Go's filepath.Match it is two `*`",
    (a, b) => {
      expect(globToRegExp(`**/${b}`).test(b)).toBe(true);
      expect(globToRegExp(`**/${b}`).test(`${a}/${b}`)).toBe(true);
      expect(globToRegExp(`**/${b}`, { go: 'dockerignore' }).test(`${a}/${b}`)).toBe(true);
      expect(globToRegExp(`**/${b}`, { go: 'match' }).test(`${a}/${b}`)).toBe(a.split('/').length === 1);
    },
  );

  test.prop([relPath, segment])('`below` makes a match cover everything under it, and nothing beside it', (p, s) => {
    expect(globToRegExp(p, { below: true }).test(`${p}/${s}`)).toBe(true);
    expect(globToRegExp(`${p}/`, { below: true }).test(`${p}/${s}`)).toBe(true);
    expect(globToRegExp(p, { below: true }).test(`${p}${s}`)).toBe(false);
    expect(globToRegExp(p).test(`${p}/${s}`)).toBe(false);
  });

  test('`?` is one character within a segment; regex characters are literal', () => {
    expect(globToRegExp('a?c').test('abc')).toBe(true);
    expect(globToRegExp('a?c').test('a/c')).toBe(false);
    expect(globToRegExp('a.c').test('abc')).toBe(false);
    expect(globToRegExp('a+(b)').test('a+(b)')).toBe(true);
  });

  test('classes and escapes only in the Go dialects; an unclosed `[` is literal', () => {
    expect(globToRegExp('[ab].txt', { go: 'match' }).test('a.txt')).toBe(true);
    expect(globToRegExp('[!ab].txt', { go: 'match' }).test('a.txt')).toBe(false);
    expect(globToRegExp('[!ab].txt', { go: 'dockerignore' }).test('c.txt')).toBe(true);
    expect(globToRegExp('[ab].txt').test('a.txt')).toBe(false);
    expect(globToRegExp('[ab].txt').test('[ab].txt')).toBe(true);
    expect(globToRegExp('\\*.txt', { go: 'match' }).test('*.txt')).toBe(true);
    expect(globToRegExp('\\*.txt', { go: 'match' }).test('a.txt')).toBe(false);
    expect(globToRegExp('a[b', { go: 'match' }).test('a[b')).toBe(true);
  });
});

describe('each call site keeps its meaning', () => {
  test('rubric paths (grading): a directory names its tree, `./` is dropped', () => {
    expect(gradingMatches('./src/a/b.ts', ['src'])).toBe(true);
    expect(gradingMatches('src/a/b.ts', ['src/*.ts'])).toBe(false);
    expect(gradingMatches('src/a/b.ts', ['src/**/*.ts'])).toBe(true);
    expect(gradingMatches('srcx/b.ts', ['src'])).toBe(false);
    expect(matchesAny('src/a/b.ts', ['src'])).toBe(false);
  });

  test('.dockerignore: `**` across segments, classes, a directory ignores its tree, `!` re-includes', () => {
    const rules = parseDockerignore('**/*.log\n[ab]uild\n!keep.log\n');
    expect(isIgnored('x/y/z.log', rules)).toBe(true);
    expect(isIgnored('keep.log', rules)).toBe(false);
    expect(isIgnored('build/out.o', rules)).toBe(true);
    expect(isIgnored('cuild/out.o', rules)).toBe(false);
  });

  test('case filters: a split names its cases, `?` one character', () => {
    const cases = ['ab', 'ac', 'b'].map((id) => ({ id, split: 'dev' }) as CaseRef);
    expect(selectCases(cases, { match: ['dev'] }).run.map((c) => c.id)).toEqual(['ab', 'ac', 'b']);
    expect(selectCases(cases, { match: ['a?'] }).run.map((c) => c.id)).toEqual(['ab', 'ac']);
    expect(selectCases(cases, { match: ['dev/a*'] }).skipped).toEqual(['b']);
  });

  test('Harbor COPY sources: Go filepath.Match, classes included', () => {
    const layout = {
      files: ['environment/a.txt', 'environment/c.txt'],
      copies: [{ from: ['[ab].txt'], to: '/app/' }],
      serviceContexts: {},
      hasCompose: false,
      steps: [],
    };
    const became = accountFiles(layout);
    expect(became.get('environment/a.txt')).toMatch(/^in the image at \/app\/a\.txt \(COPY\)/);
    expect(became.get('environment/c.txt')).toMatch(/build context only/);
  });

  test("the plugin's commission directories: `*` and `?` within one directory name", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-glob-'));
    try {
      for (const d of ['pkgs/a1', 'pkgs/b1', 'pkgs/a1x/deep']) {
        mkdirSync(path.join(root, d), { recursive: true });
        writeFileSync(path.join(root, d, 'commission.yaml'), '');
      }
      const rel = (pattern: string) => resolveCommissionDirs(pattern, root).map((d) => path.relative(root, d));
      expect(rel('pkgs/a*')).toEqual(['pkgs/a1']);
      expect(rel('pkgs/*/deep')).toEqual(['pkgs/a1x/deep']);
      expect(rel('pkgs/?1').sort()).toEqual(['pkgs/a1', 'pkgs/b1']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
