import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  chooseDimensions,
  classifyGate,
  normalizeEntry,
  planRubric,
  rubricDimensions,
  scanRules,
  tieredCap,
  zeroConditions,
} from '../../src/importers/index.js';

const title = fc.stringMatching(/^[A-Z][a-z]{2,8}( [a-z]{2,8}){0,3}$/);
const styles = [
  (t: string, w: number, i: number) => `## ${i + 1}. ${t} — ${w} points`,
  (t: string, w: number) => `## ${t} (${w})`,
  (t: string, w: number) => `## ${t}: ${w} pts`,
  (t: string, w: number) => `## **${t}** [${w}]`,
  (t: string, w: number, i: number) => `## ${i + 1}. ${t} - ${w} Points`,
  (t: string, w: number, i: number) => `## ${i + 1}. ${t} (${w} points)`,
  (t: string, w: number) => `## \`${t.toLowerCase().replace(/ /g, '_')}\` (0–${w})`,
];

/** Splits 100 into n positive integer weights. */
const weightsOf = (n: number, seed: number) => {
  const w = Array.from({ length: n }, (_, i) => 1 + ((seed * (i + 7)) % 13));
  w[n - 1] = 100 - w.slice(0, -1).reduce((s, x) => s + x, 0);
  return w;
};

describe('reading a Markdown rubric', () => {
  test.prop([
    fc.uniqueArray(title, { minLength: 2, maxLength: 6, selector: (t) => t.toLowerCase().replace(/ /g, '_') }),
    fc.integer({ min: 0, max: styles.length - 1 }),
    fc.integer({ min: 1, max: 50 }),
    fc.boolean(),
  ])(
    'the weighted headings below the title are the dimensions, whatever their style; a weighted H1 never is',
    (titles, style, seed, weightedTitle) => {
      const weights = weightsOf(titles.length, seed);
      const md = [
        weightedTitle ? '# Final-Artifact Rubric (100 points)' : '# Final-Artifact Rubric',
        '',
        'Preamble.',
        '',
        ...titles.flatMap((t, i) => [styles[style]!(t, weights[i]!, i), '', `Body of ${t}.`, '']),
      ].join('\n');
      const chosen = chooseDimensions(md);
      expect('dimensions' in chosen).toBe(true);
      if (!('dimensions' in chosen)) return;
      expect(chosen.dimensions.map((d) => d.weight)).toEqual(weights);
      expect(chosen.dimensions.map((d) => d.body)).toEqual(titles.map((t) => `Body of ${t}.`));
      expect(chosen.dimensions.some((d) => /Rubric/.test(d.title))).toBe(false);
    },
  );

  test.prop([fc.uniqueArray(title, { minLength: 2, maxLength: 6 }), fc.integer({ min: 1, max: 50 })])(
    'a weight table (with a Total row) is read when no heading set sums to 100',
    (titles, seed) => {
      const weights = weightsOf(titles.length, seed);
      const md = [
        '# τ³-bench Rubric (100 points)',
        '',
        'Execution failures receive zero: the harness cannot launch.',
        '',
        '| Dimension | Weight | Observable object |',
        '|---|---:|---|',
        ...titles.map((t, i) => `| ${t} | ${weights[i]} | what ${t} is |`),
        '| **Total** | **100** | |',
      ].join('\n');
      const chosen = chooseDimensions(md);
      expect('dimensions' in chosen && chosen.dimensions.map((d) => [d.title, d.weight, d.body])).toEqual(
        titles.map((t, i) => [t, weights[i], `what ${t} is`]),
      );
    },
  );

  test('every table header form the 25 tasks use is a dimension table; cap tables are not', () => {
    for (const header of [
      '| Dimension | Points | Evidence required |',
      '| Dimension ID | Maximum | Meaning |',
      '| dimension ID | maximum | What earns credit |',
      '| axis | points | evidence |',
      '| dimension | max |',
      '| Dimension | Points | What earns the points |',
    ]) {
      const cols = header.split('|').length - 2;
      const row = (n: string, w: number) => `| ${n} | ${w} |${cols > 2 ? ' x |' : ''}`;
      const md = `# R\n\n${header}\n|${'---|'.repeat(cols)}\n${row('`task_outcome`', 60)}\n${row('honesty', 40)}\n`;
      const chosen = chooseDimensions(md);
      expect('dimensions' in chosen && chosen.dimensions.map((d) => [d.title, d.weight]), header).toEqual([
        ['task_outcome', 60],
        ['honesty', 40],
      ]);
    }
    const caps = '# R\n\n| Observable core failure | Maximum total |\n| --- | ---: |\n| wrong language | 35 |\n';
    expect('found' in chooseDimensions(caps)).toBe(true);
  });

  test('weights that do not sum to 100 are refused naming what was found; a dimensions JSON wins with a note', () => {
    expect(planRubric('## A (30)\n\nx\n\n## B (30)\n\ny\n', undefined).problems).toEqual([
      'no set of weighted dimensions sums to 100: found the weighted headings at level 2 (2, sum 60)',
    ]);
    const plan = planRubric('## A (30)\n\nx\n\n## B (30)\n\ny\n', { A: 50, B: 50 });
    expect(plan.problems).toEqual([]);
    expect(plan.dimensions.map((d) => [d.id, d.weight, d.text])).toEqual([
      ['a', 50, 'x'],
      ['b', 50, 'y'],
    ]);
    expect(plan.notes.join('\n')).toMatch(/the JSON's weight was used/);
  });

  test('JSON ids with other names are paired with the rubric by position when the weights agree (deeptutor)', () => {
    const md =
      '# R\n\n| Dimension | Points | Evidence required |\n|---|---:|---|\n| Task outcome | 60 | does it |\n| Honest limits | 40 | says so |\n';
    const plan = planRubric(md, { recovery_correctness: 60, report_faithfulness: 40 });
    expect(plan.dimensions.map((d) => [d.id, d.text])).toEqual([
      ['recovery_correctness', '(the rubric\'s "Task outcome")\ndoes it'],
      ['report_faithfulness', '(the rubric\'s "Honest limits")\nsays so'],
    ]);
  });

  test('rubricDimensions keeps reading headings and weight tables (the public helper)', () => {
    const md =
      '# R\n\n| Dimension | Weight | What |\n|---|---:|---|\n| Task completion | 60 | does it |\n| Honesty | 40 | tells truth |\n| Total | 100 | |\n';
    expect(rubricDimensions(md)).toEqual([
      { title: 'Task completion', weight: 60, body: 'does it' },
      { title: 'Honesty', weight: 40, body: 'tells truth' },
    ]);
  });
});

describe('zero-score rules, wherever and however a rubric states them', () => {
  test('every zero statement form of the 25 tasks yields its conditions', () => {
    const cases: [string, string[]][] = [
      ['No `translated.pdf` is produced: **0/100**.', ['No `translated.pdf` is produced']],
      ['If no `deck.pptx` is produced, assign **0/100**.', ['no `deck.pptx` is produced']],
      [
        '…exits success without both `solution.patch` and `repair_report.json`: **0 total**.',
        ['exits success without both `solution.patch` and `repair_report.json`'],
      ],
      [
        'Assign **0 for the entire case** if the agent cannot launch, exceeds the case timeout, produces no target artifacts, or fails the required clean Lean build.',
        [
          'the agent cannot launch',
          'exceeds the case timeout',
          'produces no target artifacts',
          'fails the required clean Lean build',
        ],
      ],
      [
        'Execution failures receive zero: the harness cannot launch, times out, crashes, emits malformed JSONL, omits a target prediction, or violates a hard resource/security contract.',
        [
          'the harness cannot launch',
          'times out',
          'crashes',
          'emits malformed JSONL',
          'omits a target prediction',
          'violates a hard resource/security contract',
        ],
      ],
      ['1. Preserved executable documentation is deleted: `0`.', ['1. Preserved executable documentation is deleted']],
    ];
    for (const [statement, conditions] of cases)
      expect(zeroConditions(statement).conditions, statement).toEqual(conditions);
    expect(zeroConditions('Assign **0/100 for the active case** when any of the following is true:').listFollows).toBe(
      true,
    );
  });

  test('zero rules under any heading (or none), the list after an intro, never a dimension\'s own "zero" band', () => {
    const md = [
      '# Final Artifact Rubric (100 points)',
      '',
      'Apply the harness first. Assign **0 for the entire case** if the agent cannot launch, or omits a requested target.',
      '',
      '## Execution and validity gates',
      '',
      'Assign **0/100 for the active case** when any of the following is true:',
      '',
      '- `answer.json`, `queries.json`, and `chart.json` are collectively absent/uninspectable.',
      '- The run violates network boundaries.',
      '',
      'A parseable but wrong bundle receives an ordinary rubric score.',
      '',
      '## 1. Correctness — 60 points',
      '',
      '- **Zero within dimension:** no correct number: **0**.',
      '',
      '## 2. Honesty — 40 points',
      '',
      'Body.',
    ].join('\n');
    const scan = scanRules(md, ['Correctness', 'Honesty']);
    expect(scan.zero.map((z) => z.text)).toEqual([
      'the agent cannot launch',
      'omits a requested target',
      '`answer.json`, `queries.json`, and `chart.json` are collectively absent/uninspectable',
      'The run violates network boundaries',
    ]);
    expect(scan.foundIn).toEqual(['(preamble)', 'Execution and validity gates']);
    expect(scan.negative).toEqual(['A parseable but wrong bundle receives an ordinary rubric score.']);
  });

  test('classifies each condition into what heldout enforces and what it leaves to the judge', () => {
    expect(classifyGate('The command cannot launch or exceeds 300 seconds/2 GiB.')).toMatchObject({
      mechanical: ['exit', 'budget'],
      judged: false,
      seconds: 300,
      memoryMb: 2048,
    });
    expect(classifyGate('No `findings.json`, `security_report.md`, or evidence manifest is produced')).toMatchObject({
      required: ['findings.json', 'security_report.md'],
    });
    expect(classifyGate('`answer.json`, `queries.json`, and `chart.json` are collectively absent')).toMatchObject({
      collective: ['answer.json', 'queries.json', 'chart.json'],
      required: [],
    });
    expect(
      classifyGate('`a.json` is unparseable, `b.csv` has no parseable header, or the output is a transcript.'),
    ).toMatchObject({
      parseable: ['a.json', 'b.csv'],
      judged: true,
    });
    expect(classifyGate('emits malformed JSONL').mechanical).toEqual(['jsonl']);
    expect(classifyGate('omits a target prediction').mechanical).toEqual(['rows']);
    expect(classifyGate('produces no target artifacts').noTargets).toBe(true);
    expect(classifyGate('The run leaks a credential.')).toMatchObject({ mechanical: [], judged: true });
  });

  test('cap tables and "cap … at N/100" sentences are ceilings; a graded cap keeps its formula', () => {
    const md = [
      '# R',
      '',
      '## Core-Quality Ceilings',
      '',
      '| Observable core failure | Maximum total |',
      '| --- | ---: |',
      '| Wrong target language | 35 |',
      '',
      '## Evidence-bound ceilings',
      '',
      '| Id | Ceiling | Condition |',
      '| --- | --- | --- |',
      '| c1 | 25 | no ledger |',
      '| c8 | graded | `16 + 4 x families` |',
      '',
      '## Failure rules',
      '',
      '- If `review.html` is missing, cap the otherwise earned score at **20/100**.',
    ].join('\n');
    const scan = scanRules(md, []);
    expect(scan.ceilings.map((c) => [c.id, c.max])).toEqual([
      [null, 35],
      ['c1', 25],
      ['c8', null],
      [null, 20],
    ]);
  });
});

describe('every rule of a rubric', () => {
  // desktop-gui-automation's outputs and gates, as its 02_interface_and_delivery.md and rubric.md state them.
  const gui = [
    'automation_result.json',
    'initial_state.png',
    'decisive_step.png',
    'final_state.png',
    'run_report.json',
  ];

  test('a zero rule naming several artifacts gates each, one named by description too', () => {
    expect(classifyGate('No `automation_result.json` or final screenshot is produced', gui)).toMatchObject({
      required: ['automation_result.json', 'final_state.png'],
      mechanical: ['artifacts'],
      judged: false,
      unresolved: [],
    });
    // formal-theorem-proving: "emits a corrupt/unparsable or unsafe patch" holds the one patch to parse, not present.
    const lean = classifyGate('the agent produces no target artifacts, or emits a corrupt/unparsable or unsafe patch', [
      'solution.patch',
      'proof_report.json',
    ]);
    expect([lean.required, lean.parseable, lean.noTargets]).toEqual([[], ['solution.patch'], true]);
    // authorized-vulnerability-validation: a file name holding "security" is not a judged security condition.
    expect(
      classifyGate('No `findings.json`, `security_report.md`, or evidence manifest is produced', [
        'findings.json',
        'security_report.md',
        'evidence/manifest.json',
      ]),
    ).toMatchObject({ required: ['findings.json', 'security_report.md', 'evidence/manifest.json'], judged: false });
    expect(
      classifyGate('The agent exits success without both `solution.patch` and `repair_report.json`', [
        'solution.patch',
        'repair_report.json',
        'run_report.json',
      ]).required,
    ).toEqual(['solution.patch', 'repair_report.json']);
    expect(
      classifyGate(
        '`automation_result.json` is not parseable JSON, the final screenshot is not a readable PNG, or either belongs to a different case/run',
        gui,
      ),
    ).toMatchObject({ parseable: ['automation_result.json', 'final_state.png'], judged: true });
  });

  test('an artifact description no single output fits leaves the rule to the judge, never ungated', () => {
    // Without the interface (or with two screenshots that fit) "final screenshot" names no one file.
    for (const outputs of [[], ['automation_result.json', 'final_a.png', 'final_b.png']]) {
      const g = classifyGate('No `automation_result.json` or final screenshot is produced', outputs);
      expect(g.required).toEqual(['automation_result.json']);
      expect(g.unresolved).toEqual(['final screenshot']);
      expect(g.judged).toBe(true);
    }
  });

  test.prop([fc.uniqueArray(fc.stringMatching(/^q[a-z]{3,8}$/), { minLength: 2, maxLength: 5 }), fc.nat()])(
    'a description picks the one output whose name holds its qualifier',
    (stems, k) => {
      const outputs = [...stems.map((s) => `${s}_shot.png`), 'result.json'];
      const pick = stems[k % stems.length]!;
      // A qualifier that is a prefix of another stem fits both: then no single output fits.
      const clash = stems.some((s) => s !== pick && s.startsWith(pick));
      const g = classifyGate(`No \`result.json\` or ${pick} screenshot is produced`, outputs);
      expect(g.required).toEqual(clash ? ['result.json'] : ['result.json', `${pick}_shot.png`]);
      expect(g.judged).toBe(clash);
    },
  );

  test('a graded cap is a tiered ceiling, one ceiling per capped band, not its first number', () => {
    const rule =
      'Scale the ceiling by the share of required checks that pass: 85 % or more is not capped, 70–84 % caps at 45, 55–69 % at 32, 40-54% at 28, 25 to 39 % at 24, below 25 % at 20.';
    expect(tieredCap(rule)).toEqual([
      { band: '85 % or more', max: null },
      { band: '70–84 %', max: 45 },
      { band: '55–69 %', max: 32 },
      { band: '40-54%', max: 28 },
      { band: '25 to 39 %', max: 24 },
      { band: 'below 25 %', max: 20 },
    ]);
    const scan = scanRules(`# R\n\n## Ceilings\n\n${rule}\n`, []);
    expect(scan.ceilings.map((c) => [c.band, c.max])).toEqual([
      ['70–84 %', 45],
      ['55–69 %', 32],
      ['40-54%', 28],
      ['25 to 39 %', 24],
      ['below 25 %', 20],
    ]);
    // The same bands as a list under a lead-in, or "between … and …": each capped band is a ceiling.
    const list =
      '# R\n\n## Coverage ceiling\n\nCap the total by the share of targets closed:\n\n- at or above 85 %: not capped\n- between 70 and 84 %: 45\n- below 70 %: at most 30\n';
    expect(scanRules(list, []).ceilings.map((c) => [c.band, c.max, c.condition.startsWith('Cap the total')])).toEqual([
      ['between 70 and 84 %', 45, true],
      ['below 70 %', 30, true],
    ]);
    // One flat cap stays one ceiling; a cap table's uncapped band is no ceiling.
    expect(tieredCap('If `review.html` is missing, cap the otherwise earned score at **20/100**.')).toBeNull();
    const table = '# R\n\n## Caps\n\n| Coverage | Cap |\n| --- | --- |\n| 85–100 % | none |\n| 50–84 % | 40 |\n';
    expect(scanRules(table, []).ceilings.map((c) => [c.condition, c.max])).toEqual([['50–84 %', 40]]);
  });
});

describe('entry placeholders', () => {
  test('are mapped by their name, then by their flag; unknown ones are kept and reported', () => {
    expect(normalizeEntry('python run_agent.py \\\n  --input <case/input.md> \\\n  --output <out-dir>')).toEqual({
      command: 'python run_agent.py --input {input} --output {output}',
      unknown: [],
    });
    expect(
      normalizeEntry('python run_harness.py --input <input.jsonl> --output <predictions.jsonl> --run-dir <run_dir>'),
    ).toEqual({
      command:
        'python run_harness.py --input {case}/assets/input.jsonl --output {output}/predictions.jsonl --run-dir {run}',
      unknown: [],
    });
    expect(normalizeEntry('x --input=<in> --seed <n>')).toEqual({
      command: 'x --input={input} --seed <n>',
      unknown: ['--seed <n>'],
    });
    expect(
      normalizeEntry('python -m aider.worktree_plan_adapter --request <request.json> --response <response.json>')
        .unknown,
    ).toEqual(['--request <request.json>', '--response <response.json>']);
  });
});
