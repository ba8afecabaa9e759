import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { wordsAndLines } from '../../src/cli/init/skeleton.js';
import { canaryOf, FAMILIES, loadCommission } from '../../src/commission/index.js';
import { heldout } from '../helpers/cli.js';

const run = promisify(execFile);

// A newcomer's first step: a skeleton for their family that validates and whose example delivery passes, on the
// dev and the held-out case, through the same run a real delivery gets (the default sandbox).
describe('heldout init', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-init-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  // Every family but harbor, whose commissions are imported from a Harbor task (`heldout import harbor`).
  for (const family of FAMILIES.filter((f) => f !== 'harbor')) {
    test(`the ${family} skeleton validates, and its example delivery passes on both splits`, async () => {
      const dir = path.join(tmp, `my-${family}`);
      const made = await heldout(['init', dir, '--family', family]);
      expect(made.code, made.out).toBe(0);
      expect(made.out).toContain(`heldout run ${dir} --delivery ${dir}-delivery`);

      const valid = await heldout(['validate', dir]);
      expect(valid.code, valid.out).toBe(0);
      const c = await loadCommission(dir);
      expect(c.config).toMatchObject({ id: `my-${family}`, family });
      expect(c.cases.dev).toHaveLength(1);
      expect(c.cases.heldout).toHaveLength(1);
      expect(canaryOf(readFileSync(c.cases.heldout[0]!.inputPath, 'utf8'))).toMatch(/^[0-9a-f-]{36}$/);
      // Every field is explained where it is written.
      expect(readFileSync(path.join(dir, 'commission.yaml'), 'utf8')).toMatch(/^# /);
      expect(readFileSync(path.join(dir, 'rubric.yaml'), 'utf8')).toMatch(/^# /);

      const out = path.join(tmp, `report-${family}`);
      const run = await heldout(['run', dir, '--delivery', `${dir}-delivery`, '--split', 'both', '--out', out]);
      expect(run.code, run.out).toBe(0);
      const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
      const candidate = summary.commissions.filter((e: any) => e.delivery.role !== 'starter');
      expect(candidate.map((e: any) => e.split).sort()).toEqual(['dev', 'heldout']);
      for (const e of candidate) {
        expect(e.result.mean, `${e.split}: ${JSON.stringify(e.cases.map((x: any) => x.reason))}`).toBe(100);
        expect(e.cases.every((x: any) => x.passed)).toBe(true);
        expect(e.failureModes.heldoutLeak).toBeUndefined();
      }
      if (family === 'optimization') {
        const a0 = summary.commissions.find((e: any) => e.delivery.role === 'starter' && e.split === 'heldout');
        expect(a0.result.mean).toBeLessThan(100);
        expect(candidate.find((e: any) => e.split === 'heldout').optimization.S).toBe(100);
      }
    });
  }

  // FR-2 of the creation skeleton, read literally: every newline ends a line, a last piece without one is a line.
  const fr2Lines = (t: string) => t.split('\n').length - 1 + (t !== '' && !t.endsWith('\n') ? 1 : 0);

  test("the creation skeleton's example delivery keeps its own FR-2 on any text, the empty one first", async () => {
    const dir = path.join(tmp, 'fr2');
    expect((await heldout(['init', dir])).code).toBe(0);
    const caseDir = path.join(tmp, 'fr2-case');
    mkdirSync(path.join(caseDir, 'assets'), { recursive: true });
    writeFileSync(path.join(caseDir, 'input.md'), 'Text: assets/text.txt\n');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n'), maxLength: 12 }), async (text) => {
        writeFileSync(path.join(caseDir, 'assets/text.txt'), text);
        const out = path.join(tmp, `fr2-out-${n++}`);
        await run('python3', ['run_agent.py', '--input', path.join(caseDir, 'input.md'), '--output', out], {
          cwd: `${dir}-delivery`,
        });
        const answer = JSON.parse(readFileSync(path.join(out, 'answer.json'), 'utf8'));
        const want = { words: text.split(/\s+/).filter(Boolean).length, lines: fr2Lines(text) };
        expect(answer).toEqual(want);
        // The truth the skeleton writes for its cases is counted the same way.
        expect(wordsAndLines(text)).toEqual(want);
      }),
      { numRuns: 12, examples: [[''], ['\n\n'], ['a'], ['a\nb\n']] },
    );
  });

  test('--from takes the entry from an existing delivery and writes no example delivery', async () => {
    const mine = path.join(tmp, 'mine');
    mkdirSync(mine);
    writeFileSync(path.join(mine, 'agent.mjs'), '// my agent\n');
    const dir = path.join(tmp, 'from-mine');
    const r = await heldout(['init', dir, '--from', mine]);
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(path.join(dir, 'commission.yaml'), 'utf8')).toMatch(
      /^entry: node agent.mjs --input \{input\} --output \{output\}$/m,
    );
    expect((await heldout(['validate', dir])).code).toBe(0);
    const unknown = path.join(tmp, 'unknown');
    mkdirSync(unknown);
    const refused = await heldout(['init', path.join(tmp, 'from-unknown'), '--from', unknown]);
    expect(refused.code).toBe(2);
    expect(refused.out.trim()).toMatch(/cannot tell how .* starts .*; give --entry '<command>'$/);
  });

  test('a non-empty directory, an unknown family, harbor (imported, not written) and a bad id are refused in one line, exit 2', async () => {
    const dir = path.join(tmp, 'taken');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'mine\n');
    for (const args of [
      [dir],
      [path.join(tmp, 'x'), '--family', 'compilation'],
      [path.join(tmp, 'h'), '--family', 'harbor'],
      [path.join(tmp, 'y'), '--id', 'Not A Slug'],
    ]) {
      const r = await heldout(['init', ...args]);
      expect(r.code, r.out).toBe(2);
      expect(r.out.trim().split('\n')).toHaveLength(1);
    }
  });
});
