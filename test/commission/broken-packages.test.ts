import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLimiter } from '../../src/sandbox/index.js';
import { heldout, repoRoot } from '../helpers/cli.js';
import { type Base, BROKEN, type Expected } from './broken-packages.js';

// Every package of the table is refused by `heldout validate` (exit 2) with each of its defects named by file and
// field and a message saying how to fix it, all in one report; and no command that reads a package prints a stack.
const STACK = /^\s+at .+[:(]\d+:\d+\)?$|^\w*Error: .*\n\s+at /m;
// What a fix-oriented message says: what to write, add, remove or use, or what was expected instead.
const FIX =
  /\b(use|add|remove|rename|write|fix|make|change|give|name|point|list|keep|did you mean|needs?|expected|must)\b|: line \d+/i;

describe('broken commission packages', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-broken-'));
  const bases: Record<Base, string> = {
    'log-triage': path.join(repoRoot, 'tasks/log-triage'),
    'todo-due-dates': path.join(repoRoot, 'tasks/todo-due-dates'),
    'ticket-routing': path.join(repoRoot, 'tasks/ticket-routing'),
    'tool-agent': path.join(tmp, 'base-tool-agent'),
  };
  const dirs = BROKEN.map((_, i) => path.join(tmp, `pkg-${String(i).padStart(2, '0')}`));
  const delivery = path.join(repoRoot, 'fixtures/deliveries/log-triage-reference');
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  beforeAll(async () => {
    const init = await heldout(['init', bases['tool-agent'], '--family', 'tool-agent']);
    expect(init.code, init.out).toBe(0);
    BROKEN.forEach((b, i) => {
      cpSync(bases[b.base], dirs[i]!, { recursive: true });
      b.break(dirs[i]!);
    });
  });

  test('the table holds at least 30 packages, each base valid before it is broken', async () => {
    expect(BROKEN.length).toBeGreaterThanOrEqual(30);
    const r = await heldout(['validate', ...Object.values(bases)]);
    expect(r.code, r.out).toBe(0);
  });

  const found = (problems: { file: string; field: string; message: string }[], want: Expected) =>
    problems.find(
      (p) =>
        p.file.endsWith(`/${want.file}`) &&
        (typeof want.field === 'string' ? p.field === want.field : want.field.test(p.field)) &&
        want.message.test(p.message),
    );

  BROKEN.forEach((b, i) => {
    test(`${b.name}: refused with every defect in one report, exit 2`, async () => {
      const json = await heldout(['validate', dirs[i]!, '--json']);
      expect(json.code, json.out).toBe(2);
      const [report] = JSON.parse(json.stdout);
      expect(report.ok).toBe(false);
      for (const want of b.expect)
        expect(
          found(report.problems, want),
          `${want.file}: ${want.field}: ${want.message}\n${json.stdout}`,
        ).toBeDefined();
      for (const p of report.problems) expect(p.message, `${p.file}: ${p.field}`).toMatch(FIX);
      const text = await heldout(['validate', dirs[i]!]);
      expect(text.code).toBe(2);
      expect(text.out).not.toMatch(STACK);
      expect(text.out.trim().split('\n')).toHaveLength(report.problems.length);
    });
  });

  test('run, dev, gen property and freeze --commission refuse each package without a stack (exit 2)', async () => {
    const all = await heldout(['run', ...dirs, '--delivery', delivery]);
    expect(all.code).toBe(2);
    expect(all.out).not.toMatch(STACK);
    for (const dir of dirs) expect(all.out).toContain(`${dir}/`);
    const limit = createLimiter(2);
    const runs = dirs.flatMap((dir) => [
      ['dev', dir, '--delivery', delivery, '--ledger', path.join(tmp, 'ledger.json')],
      ['gen', 'property', dir, '--delivery', delivery],
      ['freeze', delivery, '--commission', dir, '--out', path.join(tmp, 'f.json'), '--no-image'],
    ]);
    const results = await Promise.all(runs.map((args) => limit(async () => ({ args, r: await heldout(args) }))));
    for (const { args, r } of results) {
      expect(r.code, `${args.join(' ')}\n${r.out}`).toBe(2);
      expect(r.out, args.join(' ')).not.toMatch(STACK);
      expect(r.out, args.join(' ')).toContain(args.find((a) => a.startsWith(`${tmp}/pkg-`)));
    }
  });
});
