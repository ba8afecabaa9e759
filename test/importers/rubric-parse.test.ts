import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { classifyGate, normalizeEntry, planRubric, rubricDimensions } from '../../src/importers/index.js';

const title = fc.stringMatching(/^[A-Z][a-z]{2,8}( [a-z]{2,8}){0,3}$/);
const styles = [
  (t: string, w: number, i: number) => `## ${i + 1}. ${t} — ${w} points`,
  (t: string, w: number) => `## ${t} (${w})`,
  (t: string, w: number) => `### ${t}: ${w} pts`,
  (t: string, w: number) => `## **${t}** [${w}]`,
];

describe('reading a Markdown rubric', () => {
  test.prop([fc.uniqueArray(title, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: styles.length - 1 })])(
    'finds every weighted heading whatever its style, with its body',
    (titles, style) => {
      const weights = titles.map((_, i) => i + 1);
      const md = [
        '# Rubric',
        '',
        'Preamble.',
        '',
        ...titles.flatMap((t, i) => [styles[style]!(t, weights[i]!, i), '', `Body of ${t}.`, '']),
      ].join('\n');
      const dims = rubricDimensions(md);
      expect(dims.map((d) => [d.title, d.weight, d.body])).toEqual(
        titles.map((t, i) => [t, weights[i], `Body of ${t}.`]),
      );
    },
  );

  test('reads a weight table when no heading carries a weight', () => {
    const md =
      '# R\n\n| Dimension | Weight | What |\n|---|---:|---|\n| Task completion | 60 | does it |\n| Honesty | 40 | tells truth |\n| Total | 100 | |\n';
    expect(rubricDimensions(md)).toEqual([
      { title: 'Task completion', weight: 60, body: 'does it' },
      { title: 'Honesty', weight: 40, body: 'tells truth' },
    ]);
  });

  test('weights not summing to 100 are a problem, a dimensions JSON overrides heading weights with a note', () => {
    expect(planRubric('## A (30)\n\nx\n\n## B (30)\n\ny\n', undefined).problems).toEqual([
      'dimension weights sum to 60, not 100',
    ]);
    const plan = planRubric('## A (30)\n\nx\n\n## B (30)\n\ny\n', { A: 50, B: 50 });
    expect(plan.problems).toEqual([]);
    expect(plan.dimensions.map((d) => [d.id, d.weight, d.text])).toEqual([
      ['a', 50, 'x'],
      ['b', 50, 'y'],
    ]);
    expect(plan.notes.join('\n')).toMatch(/the JSON's weight was used/);
  });

  test('classifies zero-gates into mechanical parts and the rest', () => {
    expect(classifyGate('The command cannot launch or exceeds 300 seconds/2 GiB.')).toMatchObject({
      mechanical: ['exit', 'budget'],
      judged: false,
      seconds: 300,
      memoryMb: 2048,
    });
    const g = classifyGate('`a.json` is unparseable, `b.csv` has no parseable header, or the output is a transcript.');
    expect(g).toMatchObject({ mechanical: ['artifacts'], required: ['a.json', 'b.csv'], judged: true });
    expect(classifyGate('The run leaks a credential.')).toMatchObject({ mechanical: [], judged: true });
  });

  test('entry placeholders are mapped by their flag', () => {
    expect(normalizeEntry('python run_agent.py \\\n  --input <case/input.md> \\\n  --output <out-dir>')).toEqual({
      command: 'python run_agent.py --input {input} --output {output}',
      unknown: [],
    });
    expect(normalizeEntry('x --input=<in> --seed <n>')).toEqual({
      command: 'x --input={input} --seed <n>',
      unknown: ['--seed <n>'],
    });
  });
});
