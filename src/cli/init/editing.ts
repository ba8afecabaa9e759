import { json, requirementDocs, type Skeleton, wholeFilePatch } from './skeleton.js';

// An editing commission starts from a pinned codebase (starter/): the delivery is a patch, applied once to a copy
// of it; the entry then runs in the patched tree, and the product's own test suite must still pass (μ_reg).

const GREET_BEFORE = `"""greet 1.0: the greeting for a name."""


def greeting(name):
    return f'Hello, {name}!'
`;

const GREET_AFTER = `"""greet 1.1: the greeting for a name, in English, French, Spanish or German."""

GREETINGS = {'en': 'Hello', 'fr': 'Bonjour', 'es': 'Hola', 'de': 'Hallo'}


def greeting(name, language='en'):
    return f'{GREETINGS.get(language, GREETINGS["en"])}, {name}!'
`;

const APP_BEFORE = `"""greet's command line: writes greeting.json for the request in --input."""
import argparse
import json
import os

from greet import greeting


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--input', required=True)
    parser.add_argument('--output', required=True)
    args = parser.parse_args()
    name = 'world'
    with open(args.input, encoding='utf-8') as f:
        for line in f:
            if line.lower().startswith('name:'):
                name = line.split(':', 1)[1].strip()
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, 'greeting.json'), 'w', encoding='utf-8') as f:
        json.dump({'greeting': greeting(name)}, f)


if __name__ == '__main__':
    main()
`;

const APP_AFTER = APP_BEFORE.replace(
  `    name = 'world'
    with open(args.input, encoding='utf-8') as f:
        for line in f:
            if line.lower().startswith('name:'):
                name = line.split(':', 1)[1].strip()`,
  `    name, language = 'world', 'en'
    with open(args.input, encoding='utf-8') as f:
        for line in f:
            if line.lower().startswith('name:'):
                name = line.split(':', 1)[1].strip()
            elif line.lower().startswith('language:'):
                language = line.split(':', 1)[1].strip().lower()`,
).replace("json.dump({'greeting': greeting(name)}, f)", "json.dump({'greeting': greeting(name, language)}, f)");

const TESTS = `import unittest

from greet import greeting


class GreetingTest(unittest.TestCase):
    def test_english_greeting(self):
        self.assertEqual(greeting('Ada'), 'Hello, Ada!')


if __name__ == '__main__':
    unittest.main()
`;

const commissionYaml = (
  id: string,
) => `# commission.yaml of an editing commission: the delivery is a patch to the product pinned in starter/.
# docs/commission.md lists every field; \`npx heldout validate <dir>\` checks this file and dry-runs the rubric.
id: ${id}
title: Greetings in four languages for greet 1.0
family: editing
# Runs in the PATCHED tree: the runner applies the delivery's patch once to a copy of starter/ and uses that copy
# as {delivery}. {input} is the case's input.md (assets/ beside it), {output} the directory for the artifacts.
entry: python3 app.py --input {input} --output {output}
exitCodes: [0]                  # gates: exit codes, budgets, artifacts (see the creation skeleton for each)
budgets:
  wallSeconds: 60
  memoryMb: 256
  modelCalls: 0
  modelTokens: 0
artifacts:
  - path: greeting.json
    format: json
    schema: { type: object, required: [greeting] }
trials: 1
pass:
  minResult: 80
editing:
  patch: solution.patch         # the patch file inside the delivery; it must apply with \`git apply\` exactly once
  allowedPaths: [app.py, greet.py, README.md]   # globs (*, **, ?) the patch may touch …
  forbiddenPaths: ['tests/**']  # … and may not (patch-rejected / constraint-violation gates)
  regression:                   # μ_reg: the product's own suite, run in the patched tree; exit 0 = preserved
    command: python3 -m unittest discover -s tests
    timeoutSeconds: 120
`;

const rubricYaml = `# rubric.yaml: μ_new, the commissioned behaviour, scored on the case; μ_reg (editing.regression in
# commission.yaml) must hold too, or the Result is 0. Maxima sum to 100, item points to their dimension's max.
dimensions:
  - id: greeting
    title: The greeting in the requested language (FR-1, FR-2)
    max: 70
    items:
      - { check: json-equals, title: greeting, file: greeting.json, path: greeting, expected: { truth: greeting }, points: 70 }
  - id: contract
    title: greeting.json keeps the 1.0 contract (FR-3)
    max: 30
    items:
      - { check: exists, title: greeting.json written, file: greeting.json, points: 10 }
      - check: schema
        title: only the greeting field
        file: greeting.json
        schema: { type: object, required: [greeting], additionalProperties: false, properties: { greeting: { type: string } } }
        points: 20
      # An evaluator command (hidden tests, say) runs in a sandbox of its own with the patched tree at {tree}:
      # - { check: command, title: hidden tests, run: "cd {tree} && python3 -m unittest discover -s hidden", points: 20 }
`;

const request = (name: string, language: string) => `# Greeting request

Greet the person below in their language.

Name: ${name}
Language: ${language}
`;

/** The editing skeleton: add languages to a pinned greeting tool, keeping its test suite green. */
export function editingSkeleton(id: string): Skeleton {
  return {
    commission: {
      'commission.yaml': commissionYaml(id),
      'rubric.yaml': rubricYaml,
      ...requirementDocs({
        title: 'Greetings in four languages',
        goal: 'Extend greet 1.0 (in starter/) so it greets in English, French, Spanish and German, without breaking what it already does.',
        interface:
          'The delivery is `solution.patch`, a patch to starter/ that applies with `git apply`. The patched tool runs as `python3 app.py --input <input.md> --output <dir>` and writes `greeting.json` (`{"greeting": "<text>"}`). The request holds `Name: <name>` and `Language: en|fr|es|de`.',
        requirements: [
          'The greeting is "<Hello|Bonjour|Hola|Hallo>, <name>!" for en, fr, es and de.',
          'Without a Language line, or with another language, the greeting is English.',
          'greeting.json keeps exactly the 1.0 field `greeting`; the tests in tests/ keep passing and are not edited.',
        ],
        resources:
          'No model, no network. The patch may touch app.py, greet.py and README.md, never tests/. `python3` (standard library) is available.',
      }),
      'starter/greet.py': GREET_BEFORE,
      'starter/app.py': APP_BEFORE,
      'starter/tests/test_greet.py': TESTS,
      'starter/README.md':
        '# greet 1.0\n\n`python3 app.py --input request.md --output out/` writes out/greeting.json.\n',
      'cases/dev/example-1/input.md': request('Ada', 'fr'),
      'cases/dev/example-1/truth.json': json({ greeting: 'Bonjour, Ada!' }),
      'cases/heldout/heldout-1/input.md': request('Grace', 'de'),
      'cases/heldout/heldout-1/truth.json': json({ greeting: 'Hallo, Grace!' }),
    },
    delivery: {
      'solution.patch': wholeFilePatch([
        { path: 'app.py', before: APP_BEFORE, after: APP_AFTER },
        { path: 'greet.py', before: GREET_BEFORE, after: GREET_AFTER },
      ]),
      'edit_report.json': json({
        files_changed: ['app.py', 'greet.py'],
        summary: 'greeting(name, language) knows en, fr, es and de; app.py reads the Language line.',
        tests_run: 'python3 -m unittest discover -s tests',
        tests_passed: true,
      }),
    },
  };
}
