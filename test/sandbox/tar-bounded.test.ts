/**
 * Issue 31: what comes out of a sandbox's archive is bounded by the output limits as it is extracted. Over any
 * archive and any limits, exactly the longest prefix of its members (in archive order) that fits is written, and
 * the extraction says why it stopped exactly when something was left out.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import type { OutputLimits } from '../../src/sandbox/index.js';
import { extractTarBounded, type TarEntry, tarStream } from '../../src/sandbox/tar.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'heldout-tar-bounded-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Archive members from path-and-size pairs: each file's missing parents first, no path twice. */
function membersOf(specs: [string[], number][]): TarEntry[] {
  const out: TarEntry[] = [];
  const seen = new Map<string, 'dir' | 'file'>();
  for (const [segments, size] of specs) {
    const parents = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'));
    const rel = segments.join('/');
    if (seen.has(rel) || parents.some((p) => seen.get(p) === 'file')) continue;
    for (const p of parents) {
      if (seen.has(p)) continue;
      seen.set(p, 'dir');
      out.push({ type: 'dir', path: p, mode: 0o755 });
    }
    seen.set(rel, 'file');
    out.push({ type: 'content', path: rel, mode: 0o644, content: Buffer.alloc(size, 'x') });
  }
  return out;
}

/** The members a bounded extraction must keep: the longest prefix within the limits. */
function fittingPrefix(members: TarEntry[], limits: OutputLimits): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (const m of members) {
    const size = m.type === 'content' ? m.content.length : 0;
    if (m.path.split('/').length > limits.depth || kept.length + 1 > limits.entries || bytes + size > limits.bytes)
      break;
    bytes += size;
    kept.push(m.path);
  }
  return kept;
}

function listed(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel)).flatMap((name) => {
    const r = rel ? `${rel}/${name}` : name;
    return lstatSync(path.join(dir, r)).isDirectory() ? [r, ...listed(dir, r)] : [r];
  });
}

describe('a bounded extraction', () => {
  test('keeps exactly the prefix that fits, and says so exactly when it left something out', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 4 }), fc.nat(40)), {
          maxLength: 12,
        }),
        fc.record({ bytes: fc.nat(200), entries: fc.nat(12), depth: fc.integer({ min: 1, max: 4 }) }),
        async (specs, limits) => {
          const members = membersOf(specs);
          const into = path.join(root, String(n++));
          const over = await extractTarBounded(tarStream(members), into, limits);
          const want = fittingPrefix(members, limits);
          expect(listed(into).sort()).toEqual([...want].sort());
          expect(over !== null).toBe(want.length < members.length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
