import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  auditGold,
  domainTools,
  executableDomains,
  type GoldRefusal,
  loadDomain,
  readTasksFile,
  type Tau2Task,
  tau2JsonText,
  type UserInstructions,
} from '../tau2/index.js';
import { defineImporter, type ImportContext } from './define-importer.js';
import { toYaml } from './package-writer.js';
import { ImportError, type ImportResult } from './types.js';

export interface ImportTau2Options {
  /** Only these task ids (default: every task). */
  tasks?: string[];
  /** Replace a non-empty output directory (default: refuse). */
  overwrite?: boolean;
}

export interface ImportTau2Result extends ImportResult {
  /** Tasks whose gold calls the domain's tools refuse (checked for every domain heldout executes); empty when none. */
  goldRefusals: { taskId: string; refused: GoldRefusal[] }[];
}

// Floats stay floats (telecom's `"gb_amount": 2.0`): τ² reads truth.json's numbers as Python does.
const json = (v: unknown) => `${tau2JsonText(v, 2)}\n`;

function inputText(task: Tau2Task): string {
  const i = task.user_scenario?.instructions;
  const reason = typeof i === 'string' ? i : ((i as UserInstructions)?.reason_for_call ?? '');
  return `# Customer request (task ${task.id})\n\n${reason.trim() || '(no reason for call given)'}\n`;
}

function requirementDocs(
  domain: string,
  policy: string,
  toolNames: string[],
  userTools: boolean,
): Record<string, string> {
  const user = userTools
    ? ' The customer operates their own device with tools of their own (τ² user tools); the agent can only ask them to.'
    : '';
  return {
    'requirement/01_goal.md': `# Goal\n\nBuild a conversational customer-service agent for the τ²-bench **${domain}** domain. It talks with a\n(simulated) customer, uses the domain's tools to look up and change the domain database, and follows the domain\npolicy below exactly.${user} A case succeeds when τ²-bench's reward for the conversation is 1: the database (and the\ncustomer's device) ends as the policy and the request call for, and, where the task says so, every fact the customer\nneeded was told and the required actions were taken.\n\nNon-goals: anything the policy forbids; acting without the customer's explicit confirmation where the policy asks\nfor it; inventing information that no tool returned.\n\n## Domain policy\n\n${policy.trim()}\n`,
    'requirement/02_interface.md': `# Interface and delivery\n\nThe delivery is a directory with an entry command (\`node agent.mjs\` by default; edit commission.yaml to change it).\nThe evaluator starts it and talks heldout's tool-agent protocol: JSON lines over stdin/stdout.\n\n- Evaluator → agent: \`{"type":"start","tools":[…],"policy":"…"}\` once, then \`{"type":"user","content":"…"}\`\n  and \`{"type":"tool_result","id","name","content","error"?}\` (one per requested call), finally \`{"type":"end"}\`.\n- Agent → evaluator: \`{"type":"message","content":"…"}\` or\n  \`{"type":"tool_calls","calls":[{"id","name","arguments"}]}\` — exactly one reply per user message and per\n  completed batch of tool results.\n- Anything else on stdout, an early exit or no reply within the reply timeout ends the episode with reward 0.\n- stderr is free for logs.\n\nTools (executed on the evaluator side): ${toolNames.map((n) => `\`${n}\``).join(', ')}.\n`,
    'requirement/03_requirements.md': `# Requirements and constraints\n\n1. Follow the domain policy in 01_goal.md in every conversation.\n2. Make state-changing tool calls only when the policy allows them and the customer confirmed them.\n3. Tell the customer every fact they asked for.\n4. Transfer to a human agent only when the policy says so.\n5. The episode ends when the customer stops, is transferred, or a limit is hit (30 turns, more than 10 tool\n   errors). Reward: τ²-bench's, the product of the task's reward basis — the final database equals the one the gold\n   actions produce (DB), the task's assertions on the final state hold (ENV_ASSERTION), the gold actions were made\n   (ACTION), required information was communicated (COMMUNICATE) — else 0. k trials per case give pass^k.\n\nThe agent may not read or write anything outside its delivery directory and the protocol.\n`,
    'requirement/04_resources.md': `# Resources\n\n- Model access only through the evaluator's gateway (OpenAI-compatible; base URL and key in the environment).\n- No network otherwise; no access to the domain database except through the tools.\n- Budgets per case as in commission.yaml.\n`,
  };
}

/**
 * Replays every task's gold calls on the domain (when heldout executes it) and notes each refusal: τ²'s own tools
 * refuse the same calls (sierra-research/tau2-bench#499), so the import keeps the tasks and says which they are.
 */
function goldAudit(dir: string, domain: string, tasks: Tau2Task[], notes: string[]) {
  const files = executableDomains.includes(domain)
    ? [domainTools(domain).agent.file, domainTools(domain).user?.file].filter((f): f is string => f !== undefined)
    : [];
  const absent = files.filter((f) => !existsSync(path.join(dir, f)));
  if (!files.length || absent.length) {
    notes.push(
      `gold replay not checked: ${files.length ? `no ${absent.join(', ')}` : `heldout has no executable ${domain} domain`}`,
    );
    return [];
  }
  const audit = auditGold(loadDomain(dir, domain), tasks);
  if (!audit.length) {
    notes.push('gold replay: every gold call of every task executes on the domain without a tool error');
    return audit;
  }
  const writes = audit.filter((a) => a.refused.some((r) => r.write)).map((a) => a.taskId);
  notes.push(
    `gold replay: ${audit.length} of ${tasks.length} tasks have gold calls the domain's tools refuse, as τ²'s own tools ` +
      'do (sierra-research/tau2-bench#499). A refused read changes nothing. A refused write never lands, so the gold ' +
      `state is the one a policy-following agent can reach${writes.length ? ` (tasks ${writes.join(', ')})` : ''}. ` +
      'They are graded like τ² grades them; set toolAgent.goldReplay: strict to report them unscored instead.',
  );
  for (const a of audit)
    notes.push(
      `task ${a.taskId}: ${a.refused.map((r) => `${r.actionId} ${r.name}${r.write ? ' (write)' : ''} refused: ${r.error}`).join('; ')}`,
    );
  return audit;
}

/**
 * `heldout import tau2`: a τ²-bench domain directory (tasks.json, policy.md or main_policy.md, tools.json, optional
 * split_tasks.json) as a `tool-agent` commission package. One case per task (`input.md`: the customer's reason for
 * calling; `truth.json`: the whole τ² task, evaluator-only); split `train` → dev, everything else → heldout (all
 * heldout without a split file; the first task goes to dev then, as a package needs both splits). Byte-identical on
 * re-import.
 */
export const importTau2 = defineImporter<ImportTau2Options, Pick<ImportTau2Result, 'goldRefusals'>>({
  kind: 'tau2',
  build: buildTau2,
});

function buildTau2({ source, sourceDir: dir, outDir, options, draft }: ImportContext<ImportTau2Options>) {
  const missing = ['tasks.json', 'tools.json'].filter((f) => !existsSync(path.join(dir, f)));
  const policyFile = ['policy.md', 'main_policy.md'].find((f) => existsSync(path.join(dir, f)));
  if (!policyFile) missing.push('policy.md (or main_policy.md)');
  if (missing.length) throw new ImportError(source, missing);
  const domain = path.basename(dir);
  const policy = readFileSync(path.join(dir, policyFile as string), 'utf8');
  const tools = JSON.parse(readFileSync(path.join(dir, 'tools.json'), 'utf8')) as {
    name: string;
    requestor?: string;
  }[];
  let tasks = readTasksFile(path.join(dir, 'tasks.json'));
  if (options.tasks) {
    const want = new Set(options.tasks);
    tasks = tasks.filter((t) => want.has(String(t.id)));
  }
  if (!tasks.length) throw new ImportError(source, ['tasks: none selected']);
  const splitPath = path.join(dir, 'split_tasks.json');
  const split = existsSync(splitPath)
    ? (JSON.parse(readFileSync(splitPath, 'utf8')) as Record<string, string[]>)
    : null;
  const dev = new Set((split?.train ?? []).map(String));
  const notes = draft.notes;
  if (!split) {
    dev.add(String(tasks[0].id));
    notes.push(`no split_tasks.json: task ${tasks[0].id} is the development case, every other task held out`);
  } else {
    notes.push('split_tasks.json: "train" tasks are development cases, every other task is held out');
  }
  // A package needs at least one case of each split.
  if (!tasks.some((t) => dev.has(String(t.id)))) dev.add(String(tasks[0].id));
  if (tasks.length > 1 && tasks.every((t) => dev.has(String(t.id)))) {
    const last = String(tasks[tasks.length - 1].id);
    dev.delete(last);
    notes.push(`every selected task is a development task: task ${last} is held out instead`);
  }
  if (tasks.some((t) => (t.evaluation_criteria?.reward_basis ?? []).includes('NL_ASSERTION')))
    notes.push('NL_ASSERTION in a reward basis needs a judge: such cases are reported unscored');
  notes.push('nl_assertions of the τ² tasks need a judge: kept in truth.json, not scored');
  const goldRefusals = goldAudit(dir, domain, tasks, notes);

  const id = `tau2-${domain}`.toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  draft.put(
    'commission.yaml',
    toYaml({
      id,
      title: `τ²-bench ${domain}: conversational tool agent`,
      family: 'tool-agent',
      entry: 'node agent.mjs',
      trials: 1,
      pass: { minResult: 100 },
      model: { required: true },
      // Relative to the commission, so two imports from the same places are byte-identical.
      toolAgent: { domain: path.relative(outDir, dir).split(path.sep).join('/') || '.', user: 'scripted' },
    }),
  );
  draft.put(
    'rubric.yaml',
    toYaml({
      dimensions: [
        {
          id: 'reward',
          title: 'τ² final-state reward',
          max: 100,
          items: [{ check: 'json-equals', file: 'episode.json', path: 'reward', expected: { value: 1 }, points: 100 }],
        },
      ],
    }),
  );
  const toolNames = tools.filter((t) => t.requestor !== 'user').map((t) => t.name);
  const userTools = tools.some((t) => t.requestor === 'user');
  for (const [rel, text] of Object.entries(requirementDocs(domain, policy, toolNames, userTools))) draft.put(rel, text);
  for (const t of tasks) {
    const caseId = String(t.id).replace(/[^A-Za-z0-9._-]+/g, '_');
    const splitDir = dev.has(String(t.id)) ? 'dev' : 'heldout';
    draft.put(`cases/${splitDir}/${caseId}/input.md`, inputText(t));
    draft.put(`cases/${splitDir}/${caseId}/truth.json`, json(t));
  }
  return { id, sourceName: `τ²-bench ${domain}`, extra: { goldRefusals } };
}
