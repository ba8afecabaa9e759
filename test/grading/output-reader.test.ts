import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { copyOutputs, readOutputFile, renderArtifacts, walkOutputs } from '../../src/grading/index.js';

// The one output reader: what a delivery leaves in /out is read only inside /out, whatever kind of entry it is.
describe('the output reader', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-outputs-'));
  const out = path.join(tmp, 'out');
  const secret = path.join(tmp, 'secret.txt');
  writeFileSync(secret, 'TOP-SECRET');
  mkdirSync(path.join(out, 'lib/sub'), { recursive: true });
  writeFileSync(path.join(out, 'report.json'), '{"ok":true}');
  writeFileSync(path.join(out, 'lib/sub/a.txt'), 'a'.repeat(100));
  symlinkSync(secret, path.join(out, 'leak.txt'));
  symlinkSync('report.json', path.join(out, 'alias.json'));
  symlinkSync('lib', path.join(out, 'lib64'));
  symlinkSync('/', path.join(out, 'root'));
  symlinkSync('self', path.join(out, 'self'));
  symlinkSync('nowhere', path.join(out, 'dangling'));
  execFileSync('mkfifo', [path.join(out, 'pipe')]);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('walking lists links as links and never descends through them', () => {
    const entries = walkOutputs(out);
    expect(entries.map((e) => `${e.rel}:${e.kind}`)).toEqual([
      'alias.json:link',
      'dangling:link',
      'leak.txt:link',
      'lib/sub/a.txt:file',
      'lib64:link',
      'pipe:other',
      'report.json:file',
      'root:link',
      'self:link',
    ]);
  });

  test('a read follows a link only while it stays inside, and refuses what is not a regular file', () => {
    expect(readOutputFile(out, 'alias.json')).toMatchObject({ ok: true });
    expect(readOutputFile(out, 'leak.txt')).toMatchObject({ ok: false, reason: expect.stringMatching(/outside/) });
    expect(readOutputFile(out, 'root/etc/passwd')).toMatchObject({ ok: false });
    expect(readOutputFile(out, '../secret.txt')).toMatchObject({ ok: false });
    expect(readOutputFile(out, 'lib64')).toMatchObject({ ok: false, reason: expect.stringMatching(/directory/) });
    expect(readOutputFile(out, 'pipe')).toMatchObject({ ok: false, reason: expect.stringMatching(/FIFO/) });
    expect(readOutputFile(out, 'self')).toMatchObject({ ok: false });
    expect(readOutputFile(out, 'dangling')).toMatchObject({ ok: false, missing: true });
    const capped = readOutputFile(out, 'lib/sub/a.txt', 10);
    expect(capped).toMatchObject({ ok: true, size: 100, truncated: true });
    if (capped.ok) expect(capped.bytes.length).toBe(10);
  });

  test('the judge prompt inlines files and lists everything else without its contents', () => {
    const text = renderArtifacts(out);
    expect(text).toMatch(/^<<<DATA-[0-9a-f]+ BEGIN file "report\.json">>>$/m);
    expect(text).not.toContain('TOP-SECRET');
    expect(text).toMatch(/"leak\.txt" \(a symbolic link, not followed; its target: ".*secret\.txt"\)/);
    expect(text).toContain('"pipe" (a FIFO, not read)');
  });

  test('a copy for an evaluator command keeps links as links and leaves special files and skipped names out', () => {
    const dest = path.join(tmp, 'copy');
    copyOutputs(out, dest, new Set(['report.json']));
    const copied = walkOutputs(dest).map((e) => `${e.rel}:${e.kind}`);
    expect(copied).toContain('leak.txt:link');
    expect(copied).toContain('lib/sub/a.txt:file');
    expect(copied).not.toContain('pipe:other');
    expect(copied).not.toContain('report.json:file');
  });
});
