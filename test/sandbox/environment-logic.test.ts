/**
 * Issue 19's pure logic, by property: image references and maps, what a Dockerfile needs from the engine, and
 * which files `.dockerignore` keeps out of a build context.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  dockerfileBases,
  isIgnored,
  mappedImage,
  mergeImageMaps,
  normalizeImageRef,
  parseDockerignore,
  parseImageMap,
} from '../../src/sandbox/index.js';

const segment = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,8}[a-z0-9])?$/);
const tag = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,10}$/);
const name = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
const ref = fc
  .tuple(fc.option(fc.constantFrom('docker.io/', 'docker.io/library/', 'localhost:5000/')), name, fc.option(tag))
  .map(([host, n, t]) => `${host ?? ''}${n}${t === null ? '' : `:${t}`}`);

describe('image references and maps', () => {
  test.prop([ref])('normalizing is idempotent', (r) => {
    expect(normalizeImageRef(normalizeImageRef(r))).toBe(normalizeImageRef(r));
  });

  test.prop([name])('a name without a tag is :latest, with or without docker.io/library/', (n) => {
    const short = normalizeImageRef(n);
    expect(short.endsWith(':latest')).toBe(true);
    if (!n.includes('/')) expect(normalizeImageRef(`docker.io/library/${n}:latest`)).toBe(short);
  });

  test.prop([ref, ref, fc.string({ minLength: 1, maxLength: 10 })])(
    'a map finds every spelling of its key and nothing else',
    (from, other, to) => {
      const map = { [from]: to };
      expect(mappedImage(from, map)).toBe(to);
      expect(mappedImage(normalizeImageRef(from), map)).toBe(to);
      if (normalizeImageRef(other) !== normalizeImageRef(from)) expect(mappedImage(other, map)).toBeNull();
    },
  );

  test.prop([fc.dictionary(ref, ref), fc.dictionary(ref, ref)])('later maps win per key', (a, b) => {
    const merged = mergeImageMaps(a, b);
    for (const k of Object.keys(b)) expect(mappedImage(k, merged)).toBe(b[k]);
    for (const k of Object.keys(a)) {
      const overridden = Object.keys(b).some((x) => normalizeImageRef(x) === normalizeImageRef(k));
      if (!overridden) expect(mappedImage(k, merged)).toBe(a[k]);
    }
  });

  test('--image-map pairs: from=to, every bad one named', () => {
    expect(parseImageMap(['ubuntu:24.04=heldout/runtime:1'])).toEqual({
      map: { 'ubuntu:24.04': 'heldout/runtime:1' },
      problems: [],
    });
    const bad = parseImageMap(['ubuntu:24.04', '=x', 'a b=c', 'ok=fine:1']);
    expect(bad.map).toEqual({ ok: 'fine:1' });
    expect(bad.problems).toHaveLength(3);
    expect(bad.problems[0]).toContain('"ubuntu:24.04"');
  });
});

describe('what a Dockerfile needs from the engine', () => {
  test('FROM with global ARGs, stages, scratch, COPY --from an image, continuation lines', () => {
    const text = [
      '# syntax=docker/dockerfile:1',
      'ARG BASE=ubuntu',
      'ARG VERSION=24.04',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Dockerfile syntax, not a template
      'FROM --platform=linux/amd64 ${BASE}:${VERSION} AS build',
      'RUN apt-get update && \\',
      '    apt-get install -y curl',
      'COPY --from=busybox:1.36 /bin/busybox /bin/',
      'FROM scratch AS empty',
      'FROM build',
      'COPY --from=build /x /y',
      'COPY --from=0 /x /z',
    ].join('\n');
    expect(dockerfileBases(text)).toEqual({ bases: ['ubuntu:24.04', 'busybox:1.36'], final: 'ubuntu:24.04' });
    expect(dockerfileBases(text, { VERSION: '22.04' }).final).toBe('ubuntu:22.04');
    expect(dockerfileBases('FROM scratch\nCOPY x /x\n')).toEqual({ bases: [], final: null });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Dockerfile syntax, not a template
    expect(dockerfileBases('ARG B\nFROM ${B:-python:3.12-slim}\n').final).toBe('python:3.12-slim');
  });

  const stageName = fc.stringMatching(/^s[a-z0-9]{0,5}$/);
  test.prop([
    fc.array(fc.tuple(fc.oneof(ref, fc.constant('scratch')), fc.option(stageName)), { minLength: 1, maxLength: 6 }),
  ])(
    'stage names and scratch are never bases; every external FROM is; the final base follows stage references',
    (stages) => {
      const seen: string[] = [];
      const lines: string[] = [];
      const baseOf = new Map<string, string | null>();
      let final: string | null = null;
      for (const [image, drawn] of stages) {
        // refer back to an earlier stage now and then
        const from = seen.length && image.length % 3 === 0 ? seen[0] : image;
        // A stage name is given once: Docker refuses a Dockerfile that repeats one.
        const alias = drawn && !seen.includes(drawn) ? drawn : null;
        lines.push(`FROM ${from}${alias ? ` AS ${alias}` : ''}`, 'RUN true');
        final = baseOf.has(from) ? baseOf.get(from)! : from === 'scratch' ? null : from;
        if (alias) {
          seen.push(alias);
          baseOf.set(alias, final);
        }
      }
      const r = dockerfileBases(lines.join('\n'));
      for (const b of r.bases) {
        expect(b).not.toBe('scratch');
        expect(seen).not.toContain(b);
      }
      expect(r.final).toBe(final);
    },
  );
});

describe('.dockerignore', () => {
  test('patterns, ** and ! re-inclusion, the last match deciding, directories taking their contents', () => {
    const rules = parseDockerignore(
      ['# comment', 'node_modules', '*.log', '!keep.log', 'data/**/*.tmp', '/secret'].join('\n'),
    );
    expect(isIgnored('node_modules/x/y.js', rules)).toBe(true);
    expect(isIgnored('app.log', rules)).toBe(true);
    expect(isIgnored('keep.log', rules)).toBe(false);
    expect(isIgnored('sub/app.log', rules)).toBe(false);
    expect(isIgnored('data/a/b/c.tmp', rules)).toBe(true);
    expect(isIgnored('data/c.tmp', rules)).toBe(true);
    expect(isIgnored('secret/key', rules)).toBe(true);
    expect(isIgnored('src/main.py', rules)).toBe(false);
  });

  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
  test.prop([path, path])(
    'a pattern naming a directory ignores everything under it; its negation takes it back',
    (dir, rest) => {
      const under = `${dir}/${rest}`;
      expect(isIgnored(under, parseDockerignore(dir))).toBe(true);
      expect(isIgnored(under, parseDockerignore(`${dir}\n!${under}`))).toBe(false);
      expect(isIgnored(under, parseDockerignore(''))).toBe(false);
    },
  );
});
