import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadCommission } from '../../src/commission/index.js';
import { repoRoot } from './mini-grader.js';

const tasks = readdirSync(path.join(repoRoot, 'tasks')).sort();

describe('example commissions in tasks/', () => {
  test('one per family: creation, editing, optimization', async () => {
    const families = await Promise.all(
      tasks.map(async (t) => (await loadCommission(path.join(repoRoot, 'tasks', t))).config.family),
    );
    expect(new Set(families)).toEqual(new Set(['creation', 'editing', 'optimization']));
  });

  test.each(tasks)('%s loads, has 2 dev and enough held-out cases, each with a truth.json', async (t) => {
    const c = await loadCommission(path.join(repoRoot, 'tasks', t));
    expect(c.config.id).toBe(t);
    expect(c.cases.dev).toHaveLength(2);
    expect(c.cases.heldout.length).toBeGreaterThanOrEqual(c.config.family === 'optimization' ? 8 : 6);
    for (const k of [...c.cases.dev, ...c.cases.heldout]) expect(k.truth, `${t}/${k.id}`).not.toBeNull();
    // Gradable without a model: no judge items anywhere.
    const judged = c.rubric.dimensions.flatMap((d) => d.items).filter((i) => 'judge' in i);
    expect(judged).toEqual([]);
    if (c.config.family !== 'creation') expect(c.starterDir).not.toBeNull();
  });

  test('held-out log-triage cases cover shapes the dev cases leave out', async () => {
    const c = await loadCommission(path.join(repoRoot, 'tasks', 'log-triage'));
    const truths = (split: 'dev' | 'heldout') => c.cases[split].map((k) => k.truth as Record<string, any>);
    const devFormats = new Set(truths('dev').map((t) => t.log_format));
    const heldFormats = new Set(truths('heldout').map((t) => t.log_format));
    expect([...heldFormats].filter((f) => !devFormats.has(f)).sort()).toEqual(['empty', 'jsonl', 'syslog']);
    expect(
      truths('dev').every((t) => t.malformed_lines === 0 && t.filter.services === null && t.filter.from === null),
    ).toBe(true);
    expect(truths('heldout').some((t) => t.malformed_lines > 0)).toBe(true);
    expect(truths('heldout').some((t) => t.filter.services !== null)).toBe(true);
    expect(truths('heldout').some((t) => t.filter.from !== null)).toBe(true);
  });
});
