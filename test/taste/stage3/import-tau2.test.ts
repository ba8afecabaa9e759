import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCommission } from '../../../src/commission/index.js';
import { importTau2 } from '../../../src/importers/index.js';
import { tau2Dir } from '../../tau2/data.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'import-tau2-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('importTau2', () => {
  it('turns the airline domain into a loadable tool-agent commission split by split_tasks.json', async () => {
    const out = path.join(tmp, 'airline');
    const { files: written } = await importTau2(path.join(tau2Dir, 'airline'), out);
    const c = await loadCommission(out);
    expect(c.config.family).toBe('tool-agent');
    expect(path.resolve(out, c.config.toolAgent!.domain)).toBe(path.join(tau2Dir, 'airline'));
    const split = JSON.parse(readFileSync(path.join(tau2Dir, 'airline/split_tasks.json'), 'utf8'));
    expect(c.cases.dev.map((x) => x.id).sort()).toEqual([...split.train].sort());
    expect(c.cases.heldout.map((x) => x.id).sort()).toEqual([...split.test].sort());
    const tasks = JSON.parse(readFileSync(path.join(tau2Dir, 'airline/tasks.json'), 'utf8'));
    const t8 = c.cases.heldout.find((x) => x.id === '8');
    expect(t8?.truth).toEqual(tasks.find((t: any) => t.id === '8'));
    expect(readFileSync(t8!.inputPath, 'utf8')).toContain('one-way flight from ORD to PHL');
    expect(c.rubric.dimensions).toEqual([
      expect.objectContaining({
        id: 'reward',
        max: 100,
        items: [
          expect.objectContaining({
            check: 'json-equals',
            file: 'episode.json',
            path: 'reward',
            expected: { value: 1 },
            points: 100,
          }),
        ],
      }),
    ]);
    expect(written).toContain('requirement/01_goal.md');
  });

  it('is byte-identical on re-import and refuses a non-empty output without overwrite', async () => {
    const a = path.join(tmp, 'a');
    const b = path.join(tmp, 'b');
    const r1 = await importTau2(path.join(tau2Dir, 'retail'), a, { tasks: ['0', '1', '2'] });
    await importTau2(path.join(tau2Dir, 'retail'), b, { tasks: ['0', '1', '2'] });
    const r2 = await importTau2(path.join(tau2Dir, 'retail'), a, { tasks: ['0', '1', '2'], overwrite: true });
    expect(r2.files).toEqual(r1.files);
    for (const f of r1.files) expect(readFileSync(path.join(b, f))).toEqual(readFileSync(path.join(a, f)));
    await expect(importTau2(path.join(tau2Dir, 'retail'), a)).rejects.toThrow(/not empty/);
    await loadCommission(a);
  });

  it('replays every gold list and notes the calls the domain refuses, as τ² does', async () => {
    const airline = await importTau2(path.join(tau2Dir, 'airline'), path.join(tmp, 'audit-airline'), { tasks: ['7'] });
    expect(airline.goldRefusals).toEqual([]);
    expect(airline.notes).toContain(
      'gold replay: every gold call of every task executes on the domain without a tool error',
    );

    const out = path.join(tmp, 'audit-retail');
    const retail = await importTau2(path.join(tau2Dir, 'retail'), out, { tasks: ['0', '35', '64'] });
    expect(retail.goldRefusals).toEqual([
      { taskId: '35', refused: [expect.objectContaining({ name: 'find_user_id_by_email', write: false })] },
      {
        taskId: '64',
        refused: [
          {
            actionId: '64_6',
            name: 'exchange_delivered_order_items',
            write: true,
            error: 'Non-delivered order cannot be exchanged',
          },
        ],
      },
    ]);
    const notes = readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');
    expect(notes).toContain('2 of 3 tasks have gold calls');
    expect(notes).toContain('tau2-bench#499');
    expect(notes).toContain(
      'task 64: 64_6 exchange_delivered_order_items (write) refused: Non-delivered order cannot be exchanged',
    );
  });
});
