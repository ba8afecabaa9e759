import { json, requirementDocs, type Skeleton } from './skeleton.js';

// A tool-agent commission runs a conversational agent against an executable τ² domain and a simulated user; the
// reward is τ²'s final-state reward, written to episode.json. The skeleton carries a tiny airline domain of its own
// (two tools, two customers), named `airline` so heldout's airline tools execute it.

const TOOLS = [
  {
    name: 'get_user_details',
    type: 'READ',
    description: 'Get the details of a customer: name, membership level, payment methods and reservations.',
    parameters: {
      type: 'object',
      properties: { user_id: { type: 'string', description: "The customer's user id, such as 'mia_li_3668'." } },
      required: ['user_id'],
    },
  },
  {
    name: 'transfer_to_human_agents',
    type: 'GENERIC',
    description: 'Hand the conversation to a human agent, with a summary of the issue.',
    parameters: {
      type: 'object',
      properties: { summary: { type: 'string', description: "A summary of the customer's issue." } },
      required: ['summary'],
    },
  },
];

const customer = (id: string, first: string, last: string, membership: string) => ({
  user_id: id,
  name: { first_name: first, last_name: last },
  address: { address1: '1 Main St', address2: null, city: 'Springfield', country: 'USA', state: 'IL', zip: '62701' },
  email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
  dob: '1990-01-01',
  payment_methods: {},
  saved_passengers: [],
  membership,
  reservations: [],
});

const DB = {
  flights: {},
  users: {
    mia_li_3668: customer('mia_li_3668', 'Mia', 'Li', 'gold'),
    noah_kim_1024: customer('noah_kim_1024', 'Noah', 'Kim', 'silver'),
  },
  reservations: {},
};

/** A τ² task: the user's scenario, and the gold calls and facts the final-state reward compares against. */
const task = (id: string, user: string, who: string, membership: string) => ({
  id,
  description: { purpose: 'The agent looks the customer up and tells them their membership level.' },
  user_scenario: {
    instructions: {
      domain: 'airline',
      reason_for_call: 'You want to know your membership level.',
      known_info: `You are ${who}. Your user id is ${user}.`,
      task_instructions: 'Ask for your membership level; end the call once you have it.',
    },
  },
  evaluation_criteria: {
    actions: [{ action_id: `${id}-0`, name: 'get_user_details', arguments: { user_id: user } }],
    communicate_info: [membership],
    reward_basis: ['DB', 'COMMUNICATE'],
  },
});

const DEV_TASK = task('example-1', 'mia_li_3668', 'Mia Li', 'gold');
const HELDOUT_TASK = task('heldout-1', 'noah_kim_1024', 'Noah Kim', 'silver');

const input = (t: typeof DEV_TASK) => `# Customer request (task ${t.id})

${t.user_scenario.instructions.reason_for_call}

${t.user_scenario.instructions.known_info}
`;

const commissionYaml = (
  id: string,
) => `# commission.yaml of a tool-agent commission (the τ-bench shape): a conversational agent, a τ² domain on the
# evaluator's side, a simulated user, and τ²'s final-state reward. docs/commission.md lists every field.
id: ${id}
title: Airline membership desk (tool-agent example)
family: tool-agent
# The agent is a process speaking heldout's JSON-lines protocol on stdio (PROTOCOL.md in heldout's src/tau2/agent/);
# the tools and the database stay with the evaluator. Each case's truth.json is the τ² task.
entry: node agent.mjs
trials: 3                       # k trials per case give pass^k (τ-bench's reliability)
pass:
  minResult: 100                # success is reward 1
budgets:
  wallSeconds: 60
  memoryMb: 256
  modelCalls: 0                 # this example agent is rule-based; an LLM agent needs a model budget
  modelTokens: 0
toolAgent:
  domain: airline               # a τ² domain directory (tools.json, db.json, policy.md, tasks.json), relative here
  user: scripted                # scripted (offline) | llm (through the gateway's user role)
  maxSteps: 30
  maxErrors: 10
  goldReplay: lenient           # lenient | strict: what a gold call the tools refuse does to a case
`;

const rubricYaml = `# rubric.yaml: the episode's reward (episode.json, written by the runner) is the whole Result.
dimensions:
  - id: reward
    title: τ² final-state reward (database and communicated facts)
    max: 100
    items:
      - { check: json-equals, title: reward 1, file: episode.json, path: reward, expected: { value: 1 }, points: 100 }
`;

const AGENT = `#!/usr/bin/env node
// Example delivery written by \`heldout init\`: a rule-based agent that passes the example commission. It speaks
// heldout's tool-agent protocol (JSON lines on stdin/stdout). Replace it with your agent.
import { createInterface } from 'node:readline';

const say = (msg) => process.stdout.write(\`\${JSON.stringify(msg)}\\n\`);
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === 'end') return rl.close();
  if (msg.type === 'user') {
    const id = /user id is ([a-z0-9_]+)/i.exec(msg.content)?.[1];
    if (id) say({ type: 'tool_calls', calls: [{ id: 'call_1', name: 'get_user_details', arguments: { user_id: id } }] });
    else say({ type: 'message', content: 'Could you tell me your user id, please?' });
  } else if (msg.type === 'tool_result') {
    if (msg.error) return say({ type: 'message', content: 'I could not find that customer.' });
    const user = JSON.parse(msg.content);
    say({ type: 'message', content: \`Your membership level is \${user.membership}.\` });
  }
});
`;

/** The tool-agent skeleton: a membership desk over a two-customer airline domain. */
export function toolAgentSkeleton(id: string): Skeleton {
  return {
    commission: {
      'commission.yaml': commissionYaml(id),
      'rubric.yaml': rubricYaml,
      ...requirementDocs({
        title: 'Airline membership desk',
        goal: 'A customer-service agent that tells airline customers their membership level, following the policy.',
        interface:
          'The agent is `node agent.mjs`, speaking heldout’s tool-agent protocol on stdio: it receives the tools and the policy, then user messages and tool results, and answers with messages or tool calls.',
        requirements: [
          'The agent identifies the customer by user id and looks them up with get_user_details before answering.',
          'The agent tells the customer their membership level in words (gold, silver or regular).',
          'The agent changes nothing in the database.',
        ],
        resources:
          'No model (the example agent is rule-based), no network. The tools and database stay with the evaluator.',
      }),
      'airline/tools.json': json(TOOLS),
      'airline/db.json': json(DB),
      'airline/policy.md':
        '# Airline membership desk policy\n\nIdentify the customer by their user id and look them up before you tell them anything about their account. Never change an account on this desk. Transfer to a human agent only when the customer asks for one.\n',
      'airline/tasks.json': json([DEV_TASK]),
      'cases/dev/example-1/input.md': input(DEV_TASK),
      'cases/dev/example-1/truth.json': json(DEV_TASK),
      'cases/heldout/heldout-1/input.md': input(HELDOUT_TASK),
      'cases/heldout/heldout-1/truth.json': json(HELDOUT_TASK),
    },
    delivery: { 'agent.mjs': AGENT },
  };
}
