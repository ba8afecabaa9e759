import { json, requirementDocs, type Skeleton, wordsAndLines } from './skeleton.js';

// A creation commission starts from nothing: the builder writes the whole agent. The example is deliberately small
// (count words and lines of an attached text) so every field of the two YAML files can be shown with a comment.

const DEV_TEXT = 'The quick brown fox\njumps over the lazy dog.\nThen it naps.\n';
const HELDOUT_TEXT =
  'Held-out texts are the evaluator’s:\nthe builder never sees them,\nso a delivery cannot learn them by heart.\nIt has to count.\n';

const commissionYaml = (
  id: string,
) => `# commission.yaml: what is commissioned and how a delivery runs. Every field, its type and its default are in
# node_modules/heldout/docs/commission.md; \`npx heldout validate <dir>\` checks this file and dry-runs the rubric.
id: ${id}                       # a lower-case slug; reports and HELDOUT_CASES/<id>/ use it
title: Word and line counter
family: creation                # creation | editing | optimization | tool-agent
# The delivery's launch command, run with the delivery directory as working directory. Placeholders:
#   {input}    the path of the case's input.md (read-only); the case's assets/ are beside it
#   {output}   the output directory, the only writable place: the artifacts go here
#   {run} a scratch directory inside {output}; {case} the case directory; {delivery} the delivery directory
entry: python3 run_agent.py --input {input} --output {output}

# The gates. A case whose gate fails scores 0, in this order: the command did not launch or exited with a code not
# listed here (error-exit), it ran over the budget (timeout, oom), a required artifact is missing
# (missing-artifact) or does not parse or match its schema (invalid-artifact), a forbidden output was written
# (constraint-violation, rubric.yaml forbiddenOutputs).
exitCodes: [0]
budgets:                        # per case; left out: wallSeconds 600, memoryMb 4096, cpus 1, pids 256, …
  wallSeconds: 60               # the gateway ends a model call silent for half of it (30 s): the provider's fault
  memoryMb: 512
  modelCalls: 0                 # no model in this example; an agent that calls one (through the gateway) needs calls
  modelTokens: 0
  devRounds: 20                 # \`heldout dev\` rounds before the budget is spent
artifacts:
  - path: answer.json
    format: json                # json | text | markdown | csv | pdf | patch | any
    schema:                     # a JSON Schema the artifact must satisfy (else: invalid-artifact)
      type: object
      required: [words, lines]
      properties:
        words: { type: integer, minimum: 0 }
        lines: { type: integer, minimum: 0 }
  - path: summary.md
    format: markdown
  - path: run_report.json       # optional: the delivery's own claims, held against what the case observed
    format: json
    required: false

trials: 1                       # k trials per case give pass^1 … pass^k
pass:
  minResult: 80                 # a case passes when its gates hold and its Result is at least this
model:
  required: false               # true: a delivery that never calls the model is flagged as a hollow runtime
`;

const rubricYaml = `# rubric.yaml: how a case that passed the gates is scored. Result = min(ceiling, sum over dimensions of
# min(points earned, the dimension's cap)). Dimension maxima sum to 100; each dimension's item points sum to its max.
dimensions:
  - id: counts
    title: Words and lines counted (FR-1, FR-2)
    max: 70
    items:
      # A check reads an output file. expected: { truth: words } is the value at "words" in the case's truth.json
      # (evaluator-owned: never mounted into the sandbox); expected: { value: 3 } is a literal.
      # Kinds: exists, json-equals (loose), json-contains, regex (flags, negate), number (tolerance), schema,
      # command (run in an evaluator sandbox), function (checks/<module>.ts exporting (ctx) => ({ score, evidence })).
      - { check: number, title: word count, file: answer.json, path: words, expected: { truth: words }, points: 40 }
      - { check: number, title: line count, file: answer.json, path: lines, expected: { truth: lines }, points: 30 }
  - id: summary
    title: A summary a person can read (FR-3)
    max: 30
    items:
      - { check: exists, title: summary.md written, file: summary.md, points: 10 }
      - { check: regex, title: names the word count, file: summary.md, pattern: '\\b\\d+ words\\b', flags: i, points: 20 }
      # A judged item: an LLM applies this text (HELDOUT_JUDGE_* or OPENAI_* configure it; without a model the
      # item is reported unscored, never given a number):
      # - { judge: "The summary states both counts in one plain sentence.", points: 20 }

# Numbered outcomes of the requirement: when \`when\` does not hold, each named dimension is capped.
outcomes:
  - id: O1
    title: The word count is right (FR-1)
    when: { check: number, file: answer.json, path: words, expected: { truth: words }, points: 0 }
    caps: { summary: 10 }       # a summary of a wrong count earns at most 10

# Total ceilings: bound the Result unless \`unless\` holds.
ceilings:
  - id: C1
    max: 50
    reason: the line count is wrong, so the text was not read line by line (FR-2)
    unless: { check: number, file: answer.json, path: lines, expected: { truth: lines }, points: 0 }
`;

const request = (note: string) => `# Count request

${note}

Text: assets/text.txt
`;

const runAgent = `"""Example delivery written by \`heldout init\`: it passes the example commission. Replace it with your agent."""
import argparse
import json
import os
import re


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--input', required=True)
    parser.add_argument('--output', required=True)
    args = parser.parse_args()
    with open(args.input, encoding='utf-8') as f:
        request = f.read()
    # The request names its text relative to the case directory (where input.md is).
    match = re.search(r'^Text:\\s*(\\S+)', request, re.M)
    if not match:
        raise SystemExit('the request names no text (a "Text: <path>" line)')
    with open(os.path.join(os.path.dirname(args.input), match.group(1)), encoding='utf-8') as f:
        text = f.read()
    # FR-2: every newline ends a line, and a last piece without one is a line too; the empty text has none.
    lines = text.count('\\n') + (1 if text and not text.endswith('\\n') else 0)
    counts = {'words': len(text.split()), 'lines': lines}
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, 'answer.json'), 'w', encoding='utf-8') as f:
        json.dump(counts, f, indent=2)
    with open(os.path.join(args.output, 'summary.md'), 'w', encoding='utf-8') as f:
        f.write(f"# Summary\\n\\nThe text has {counts['words']} words on {counts['lines']} lines.\\n")
    with open(os.path.join(args.output, 'run_report.json'), 'w', encoding='utf-8') as f:
        json.dump({'status': 'complete', 'artifacts': ['answer.json', 'summary.md']}, f)


if __name__ == '__main__':
    main()
`;

/** The creation skeleton: a word and line counter. */
export function creationSkeleton(id: string): Skeleton {
  return {
    commission: {
      'commission.yaml': commissionYaml(id),
      'rubric.yaml': rubricYaml,
      ...requirementDocs({
        title: 'Word and line counter',
        goal: 'An agent that counts the words and the lines of a text a person attaches to a request. Non-goals: counting characters, detecting languages.',
        interface:
          'Launched as `python3 run_agent.py --input <input.md> --output <dir>`. input.md names the text on a line `Text: <path>`, relative to the directory of input.md. The agent writes `answer.json` (`{"words": <int>, "lines": <int>}`), `summary.md` (one sentence naming both counts) and may write `run_report.json` (`{"status", "artifacts"}`). Exit code 0 on success.',
        requirements: [
          'A word is a maximal run of characters other than white space.',
          'A line is a piece of the text ended by a newline; a last piece without one counts too.',
          'summary.md names the word count as "<n> words".',
        ],
        resources:
          'No model (modelCalls 0), no network. 60 s and 512 MiB per case. The delivery directory is read-only; only --output is writable. `python3` (standard library) and `node` are available.',
      }),
      'cases/dev/example-1/input.md': request('Count the words and the lines of the attached text.'),
      'cases/dev/example-1/assets/text.txt': DEV_TEXT,
      'cases/dev/example-1/truth.json': json(wordsAndLines(DEV_TEXT)),
      'cases/heldout/heldout-1/input.md': request('Please count the words and the lines of this text for the archive.'),
      'cases/heldout/heldout-1/assets/text.txt': HELDOUT_TEXT,
      'cases/heldout/heldout-1/truth.json': json(wordsAndLines(HELDOUT_TEXT)),
    },
    delivery: { 'run_agent.py': runAgent },
  };
}
