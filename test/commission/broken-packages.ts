import { rmSync } from 'node:fs';
import path from 'node:path';
import { type BrokenPackage, commission, e, item, read, rubric, write } from './broken-package-kit.js';
import { BROKEN_FAMILIES } from './broken-packages-families.js';

export type { Base, BrokenPackage, Expected } from './broken-package-kit.js';

/** The rubric, cases and shared commission fields broken; the family sections and environments follow. */
const BROKEN_CORE: BrokenPackage[] = [
  {
    name: 'a truth path no case has',
    base: 'log-triage',
    break: item(0, 1, (it) => ({ ...it, expected: { truth: 'nosuch.path' } })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.0.items.1.expected.truth',
        /"nosuch\.path" is not in the truth\.json of dev\/dev-001.*fix the path/,
      ),
    ],
  },
  {
    name: 'a truth path one held-out case lacks',
    base: 'log-triage',
    break: (dir) => {
      const f = 'cases/heldout/h04-empty/truth.json';
      const t = JSON.parse(read(dir, f));
      delete t.malformed_lines;
      write(dir, f, JSON.stringify(t));
    },
    expect: [e('rubric.yaml', 'dimensions.0.items.2.expected.truth', /not in the truth\.json of heldout\/h04-empty:/)],
  },
  {
    name: 'a number check against a literal that is no number',
    base: 'log-triage',
    break: item(0, 1, (it) => ({ ...it, expected: { value: 'many' } })),
    expect: [
      e('rubric.yaml', 'dimensions.0.items.1.expected.value', /"many" is not a number; a number check needs one/),
    ],
  },
  {
    name: 'a number check against a truth value that is no number',
    base: 'log-triage',
    break: item(0, 1, (it) => ({ ...it, expected: { truth: 'log_format' } })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.0.items.1.expected.truth',
        /"log_format" is not a number in the truth\.json of dev\/dev-001, .*; a number check needs one/,
      ),
    ],
  },
  {
    name: 'an entry placeholder typo',
    base: 'log-triage',
    break: commission((c) => {
      c.entry = 'python3 run_agent.py --input {inptu} --output {output}';
    }),
    expect: [
      e(
        'commission.yaml',
        'entry',
        /unknown placeholder \{inptu\} \(did you mean \{input\}\?\); the placeholders are \{input\}/,
      ),
    ],
  },
  {
    name: 'an unknown check kind',
    base: 'log-triage',
    break: item(2, 0, (it) => ({ ...it, check: 'json-equal' })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.2.items.0.check',
        /unknown check kind "json-equal"; use one of: exists, json-equals, .*\(did you mean json-equals\?\)/,
      ),
    ],
  },
  {
    name: 'a broken item and wrong sums at once (every layer in one report)',
    base: 'log-triage',
    break: rubric((r) => {
      r.dimensions[0].max = 36;
      r.dimensions[1].items[0].check = 'nope';
    }),
    expect: [
      e('rubric.yaml', 'dimensions.1.items.0.check', /unknown check kind "nope"/),
      e('rubric.yaml', 'dimensions.0.items', /item points sum to 35, dimension max is 36; make them equal/),
      e('rubric.yaml', 'dimensions', /dimension maxima sum to 101, must be 100; change the max/),
    ],
  },
  {
    name: 'item points that miss their dimension max',
    base: 'log-triage',
    break: item(3, 0, (it) => ({ ...it, points: 4 })),
    expect: [e('rubric.yaml', 'dimensions.3.items', /item points sum to 16, dimension max is 15; make them equal/)],
  },
  {
    name: 'a misspelt commission field',
    base: 'log-triage',
    break: commission((c) => {
      c.budget = c.budgets;
      delete c.budgets;
    }),
    expect: [e('commission.yaml', 'budget', /unknown field; did you mean `budgets`\?/)],
  },
  {
    name: 'a misspelt item field',
    base: 'log-triage',
    break: item(0, 0, ({ points, ...it }) => ({ ...it, pionts: points })),
    expect: [
      e('rubric.yaml', 'dimensions.0.items.0.pionts', /unknown field; did you mean `points`\?/),
      e('rubric.yaml', 'dimensions.0.items.0.points', /missing; add it/),
    ],
  },
  {
    name: 'an unknown family',
    base: 'log-triage',
    break: commission((c) => {
      c.family = 'compilation';
    }),
    expect: [
      e(
        'commission.yaml',
        'family',
        /"compilation" is not allowed; use one of: creation, editing, optimization, tool-agent/,
      ),
    ],
  },
  {
    name: 'zero trials',
    base: 'log-triage',
    break: commission((c) => {
      c.trials = 0;
    }),
    expect: [e('commission.yaml', 'trials', /0 is too small; use a number above 0/)],
  },
  {
    name: 'a bracketed truth path',
    base: 'log-triage',
    break: item(0, 3, (it) => ({ ...it, expected: { truth: 'levels[ERROR]' } })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.0.items.3.expected.truth',
        /list indices and keys are dotted here; write levels\.ERROR/,
      ),
    ],
  },
  {
    name: 'a wildcard JSON path',
    base: 'log-triage',
    break: item(0, 3, (it) => ({ ...it, path: 'levels.*' })),
    expect: [e('rubric.yaml', 'dimensions.0.items.3.path', /wildcards .* are not supported; name one value/)],
  },
  {
    name: 'a pattern that is no regular expression',
    base: 'log-triage',
    break: item(3, 1, (it) => ({ ...it, pattern: '^## Counts (' })),
    expect: [e('rubric.yaml', 'dimensions.3.items.1.pattern', /not a valid regular expression .*; fix the pattern/)],
  },
  {
    name: 'an unknown regex flag',
    base: 'log-triage',
    break: item(3, 1, (it) => ({ ...it, flags: 'mq' })),
    expect: [e('rubric.yaml', 'dimensions.3.items.1.flags', /unknown regular-expression flag q; use some of/)],
  },
  {
    name: 'a misspelt expectation',
    base: 'log-triage',
    break: item(0, 0, (it) => ({ ...it, expected: { truht: 'log_format' } })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.0.items.0.expected',
        /matches none of the allowed forms: \{ value \} or \{ truth \}; write one of them/,
      ),
      e('rubric.yaml', 'dimensions.0.items.0.expected.truht', /did you mean `truth`\?/),
    ],
  },
  {
    name: 'an expectation left out',
    base: 'log-triage',
    break: item(0, 0, ({ expected, ...it }) => it),
    expect: [e('rubric.yaml', 'dimensions.0.items.0.expected', /missing; add it/)],
  },
  {
    name: 'an outcome capping an unknown dimension',
    base: 'log-triage',
    break: rubric((r) => {
      r.outcomes[0].caps = { errrors: 20 };
    }),
    expect: [
      e(
        'rubric.yaml',
        'outcomes.0.caps.errrors',
        /unknown dimension errrors; use one of: counts, errors, request, summary/,
      ),
    ],
  },
  {
    name: 'two dimensions with one id',
    base: 'log-triage',
    break: rubric((r) => {
      r.dimensions[1].id = 'counts';
    }),
    expect: [e('rubric.yaml', 'dimensions.1.id', /duplicate dimension counts; rename one/)],
  },
  {
    name: 'a requirement document missing',
    base: 'log-triage',
    break: (dir) => rmSync(path.join(dir, 'requirement/03_requirements.md')),
    expect: [e('requirement/03_*.md', '', /missing the requirements document; add requirement\/03_requirements\.md/)],
  },
  {
    name: 'a held-out case without input.md',
    base: 'log-triage',
    break: (dir) => rmSync(path.join(dir, 'cases/heldout/h01-jsonl/input.md')),
    expect: [e('cases/heldout/h01-jsonl', '', /missing input\.md; every case directory needs one/)],
  },
  {
    name: 'a truth.json that is not JSON',
    base: 'log-triage',
    break: (dir) => write(dir, 'cases/dev/dev-001/truth.json', '{"log_format": plain}'),
    expect: [e('cases/dev/dev-001/truth.json', '', /invalid JSON \(.*\); fix it/)],
  },
  {
    name: 'a function check whose module is missing',
    base: 'log-triage',
    break: item(3, 0, (it) => ({ check: 'function', module: 'summary.ts', points: it.points })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.3.items.0.module',
        /checks\/summary\.ts not found; add it to checks\/ or fix the name/,
      ),
    ],
  },
  {
    name: 'a function check naming an export the module lacks',
    base: 'log-triage',
    break: (dir) => {
      write(dir, 'checks/summary.ts', 'export const scoreSummary = () => ({ score: 1, evidence: "ok" });\n');
      item(3, 0, (it) => ({ check: 'function', module: 'summary.ts', points: it.points }))(dir);
    },
    expect: [
      e(
        'rubric.yaml',
        'dimensions.3.items.0.export',
        /exports no function default; export one, or name one of scoreSummary in export/,
      ),
    ],
  },
  {
    name: 'an artifact outside the output directory',
    base: 'log-triage',
    break: commission((c) => {
      c.artifacts[1].path = '../summary.md';
    }),
    expect: [
      e(
        'commission.yaml',
        'artifacts.1.path',
        /must be a relative path inside the output directory \(no "\.\.", not absolute\)/,
      ),
    ],
  },
  {
    name: 'an artifact schema that is no JSON Schema',
    base: 'log-triage',
    break: commission((c) => {
      c.artifacts[0].schema = { type: 'objekt' };
    }),
    expect: [
      e('commission.yaml', 'artifacts.0.schema', /is not a JSON Schema heldout can apply \(Unsupported type: objekt\)/),
    ],
  },
  {
    name: 'a glob where a check reads one file',
    base: 'log-triage',
    break: item(3, 0, (it) => ({ ...it, file: '*.md' })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.3.items.0.file',
        /has glob characters, but check files are read literally; name one file/,
      ),
    ],
  },
  {
    name: 'an absolute check file',
    base: 'log-triage',
    break: item(3, 0, (it) => ({ ...it, file: '/etc/passwd' })),
    expect: [
      e(
        'rubric.yaml',
        'dimensions.3.items.0.file',
        /must be a relative path inside the output directory \(no "\.\.", not absolute\)/,
      ),
    ],
  },
  {
    name: 'a negated forbidden-output glob',
    base: 'log-triage',
    break: rubric((r) => {
      r.forbiddenOutputs = ['!keep.txt'];
    }),
    expect: [e('rubric.yaml', 'forbiddenOutputs.0', /negation is not supported/)],
  },
  {
    name: 'a command check placeholder typo',
    base: 'log-triage',
    break: item(3, 4, (it) => ({ check: 'command', run: 'test -s {outptu}/summary.md', points: it.points })),
    expect: [
      e('rubric.yaml', 'dimensions.3.items.4.run', /unknown placeholder \{outptu\} \(did you mean \{output\}\?\)/),
    ],
  },
  {
    name: 'a judged item without points',
    base: 'log-triage',
    break: item(3, 4, () => ({ judge: 'summary.md has no placeholder text' })),
    expect: [e('rubric.yaml', 'dimensions.3.items.4.points', /missing; add it/)],
  },
  {
    name: 'an item that is neither a check nor a judged item',
    base: 'log-triage',
    break: item(3, 4, (it) => ({ title: 'no placeholders', points: it.points })),
    expect: [
      e('rubric.yaml', 'dimensions.3.items.4.judge', /missing; add it/),
      e(
        'rubric.yaml',
        'dimensions.3.items.4.check',
        /or, for the other kind of item, add check: one of exists, json-equals/,
      ),
    ],
  },
  {
    name: 'a ceiling above 100',
    base: 'log-triage',
    break: rubric((r) => {
      r.ceilings[0].max = 120;
    }),
    expect: [e('rubric.yaml', 'ceilings.0.max', /is too large; use a number at most 100/)],
  },
  {
    name: 'a YAML syntax error beside a commission problem',
    base: 'log-triage',
    break: (dir) => {
      write(dir, 'rubric.yaml', 'dimensions:\n  - id: [unclosed\n');
      commission((c) => {
        c.trials = 'three';
      })(dir);
    },
    expect: [
      e('rubric.yaml', /^line \d+, column \d+$/, /\S/),
      e('commission.yaml', 'trials', /expected number, found "three"/),
    ],
  },
  {
    name: 'both commission.yaml and commission.ts',
    base: 'log-triage',
    break: (dir) => write(dir, 'commission.ts', 'export default {};\n'),
    expect: [e('commission.ts', '', /both commission\.yaml and commission\.ts exist; keep one/)],
  },
  {
    name: 'no development cases',
    base: 'log-triage',
    break: (dir) => rmSync(path.join(dir, 'cases/dev'), { recursive: true }),
    expect: [e('cases/dev', '', /no development cases \(need cases\/dev\/<case>\/input\.md\)/)],
  },
];

/** Every broken package of the table (broken-packages.test.ts runs each). */
export const BROKEN: BrokenPackage[] = [...BROKEN_CORE, ...BROKEN_FAMILIES];
