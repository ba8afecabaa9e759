import { json, requirementDocs, type Skeleton } from './skeleton.js';

// An optimization commission starts from a working agent (starter/, a0) and is scored by a native objective J per
// instance; a0 runs beside the candidate on the same cases, so the report has J0 → J1, gap closure S and W/L/T.

const QUEUES = ['billing', 'technical', 'shipping', 'other'] as const;

const route = (keywords: Record<string, string[]>, note: string) => `"""${note}"""
import argparse
import json
import os
import re

KEYWORDS = ${JSON.stringify(keywords, null, 4).replace(/\n/g, '\n')}


def queue_of(text):
    words = set(re.findall(r'[a-z]+', text.lower()))
    for queue, keys in KEYWORDS.items():
        if words & set(keys):
            return queue
    return 'other'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--input', required=True)
    parser.add_argument('--output', required=True)
    args = parser.parse_args()
    with open(args.input, encoding='utf-8') as f:
        request = f.read()
    match = re.search(r'^Tickets:\\s*(\\S+)', request, re.M)
    routes = {}
    with open(os.path.join(os.path.dirname(args.input), match.group(1)), encoding='utf-8') as f:
        for line in f:
            if line.strip():
                ticket = json.loads(line)
                routes[ticket['id']] = queue_of(ticket['text'])
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, 'routes.json'), 'w', encoding='utf-8') as f:
        json.dump({'routes': routes}, f, indent=2)


if __name__ == '__main__':
    main()
`;

const A0 = route({ billing: ['refund', 'invoice'] }, 'a0, the working router the commission starts from.');
const CANDIDATE = route(
  {
    billing: ['refund', 'invoice', 'charged', 'charge', 'payment'],
    technical: ['crash', 'crashes', 'error', 'login', 'password'],
    shipping: ['parcel', 'delivery', 'shipped', 'tracking'],
  },
  'Example candidate written by `heldout init`: a0 with more keywords. Replace it with your improved agent.',
);

type Ticket = { id: string; text: string; queue: (typeof QUEUES)[number] };
const DEV: Ticket[] = [
  { id: 't1', text: 'Please refund my last order', queue: 'billing' },
  { id: 't2', text: 'The app crashes when I open settings', queue: 'technical' },
  { id: 't3', text: 'My parcel never arrived', queue: 'shipping' },
  { id: 't4', text: 'Do you have gift wrapping?', queue: 'other' },
];
const HELDOUT: Ticket[] = [
  { id: 't1', text: 'I was charged twice this month', queue: 'billing' },
  { id: 't2', text: 'I cannot reset my password', queue: 'technical' },
  { id: 't3', text: 'The tracking number shows nothing', queue: 'shipping' },
  { id: 't4', text: 'Send me an invoice for March', queue: 'billing' },
];

const commissionYaml = (
  id: string,
) => `# commission.yaml of an optimization commission: improve a0 (starter/) on a native objective J.
# docs/commission.md lists every field; \`npx heldout validate <dir>\` checks this file and dry-runs the rubric.
id: ${id}
title: Improve the ticket router
family: optimization
# {input} is the case's input.md (assets/ beside it), {output} the directory for the artifacts; the same command
# starts a0 and the candidate.
entry: python3 route.py --input {input} --output {output}
exitCodes: [0]                  # gates: exit codes, budgets, artifacts (see the creation skeleton for each)
budgets:
  wallSeconds: 60
  memoryMb: 256
  modelCalls: 0
  modelTokens: 0
artifacts:
  - path: routes.json
    format: json
    schema:
      type: object
      required: [routes]
      properties:
        routes: { type: object, additionalProperties: { type: string, enum: [${QUEUES.join(', ')}] } }
trials: 1
pass:
  minResult: 75
optimization:
  objective: J = 100 × the share of the batch's tickets routed to their true queue (25 points per ticket)
  starter: starter              # a0's directory; it runs beside every candidate on the same cases
`;

const rubricYaml = `# rubric.yaml: here the Result of an instance is its objective J, so a0 and the candidate compare per instance
# (W/L/T, sign test) and by mean (J0 → J1, gap closure S). Maxima sum to 100.
dimensions:
  - id: accuracy
    title: Tickets routed to their true queue (FR-1)
    max: 100
    items:
${[1, 2, 3, 4].map((n) => `      - { check: json-equals, title: ticket t${n}, file: routes.json, path: routes.t${n}, expected: { truth: routes.t${n} }, points: 25 }`).join('\n')}
`;

const request = `# Routing batch

Route every ticket of the attached batch to one queue.

Tickets: assets/tickets.jsonl
`;
const jsonl = (tickets: Ticket[]) => tickets.map((t) => JSON.stringify({ id: t.id, text: t.text })).join('\n') + '\n';
const truth = (tickets: Ticket[]) => json({ routes: Object.fromEntries(tickets.map((t) => [t.id, t.queue])) });

/** The optimization skeleton: a keyword ticket router to improve. */
export function optimizationSkeleton(id: string): Skeleton {
  return {
    commission: {
      'commission.yaml': commissionYaml(id),
      'rubric.yaml': rubricYaml,
      ...requirementDocs({
        title: 'Improve the ticket router',
        goal: 'Route more support tickets to their true queue than the router in starter/ (a0) does.',
        interface:
          'Launched as `python3 route.py --input <input.md> --output <dir>`. input.md names a JSON-lines batch on `Tickets: <path>` (relative to input.md); each line is `{"id", "text"}`. The router writes `routes.json`: `{"routes": {"<id>": "billing|technical|shipping|other"}}`.',
        requirements: [
          'Every ticket of the batch gets exactly one of the four queues.',
          'The objective J is 25 points per ticket routed to its true queue.',
        ],
        resources: 'No model, no network. 60 s and 256 MiB per batch. `python3` (standard library).',
      }),
      'starter/route.py': A0,
      'cases/dev/example-1/input.md': request,
      'cases/dev/example-1/assets/tickets.jsonl': jsonl(DEV),
      'cases/dev/example-1/truth.json': truth(DEV),
      'cases/heldout/heldout-1/input.md': request,
      'cases/heldout/heldout-1/assets/tickets.jsonl': jsonl(HELDOUT),
      'cases/heldout/heldout-1/truth.json': truth(HELDOUT),
    },
    delivery: { 'route.py': CANDIDATE },
  };
}
