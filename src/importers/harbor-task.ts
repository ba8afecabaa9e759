import { readVerifierExtras, type VerifierContext } from './harbor-verifier.js';
import type { TomlTable } from './toml.js';
import { asNumber, asObject, asStringList, asText } from './values.js';

/**
 * `task.toml` read by Harbor's own schema (harbor v0.22 `TaskConfig`, which ignores unknown keys): what becomes the
 * commission's `harbor` block and budgets, what heldout cannot run (refused, naming the feature), and a note for
 * every key heldout ignores or approximates.
 */
export interface TaskTomlReading {
  harbor: Record<string, unknown>;
  budgets: { wallSeconds: number; memoryMb?: number; cpus?: number; pids: number };
  /** `[task].name` (org/name), or null. */
  name: string | null;
  description: string | null;
  /** Features heldout cannot run; the import is refused with every one named. */
  unsupported: string[];
  notes: string[];
}

/** Harbor's verifier default; its agent has none, heldout's default wall clock then applies. */
const VERIFIER_DEFAULT = 600;
const AGENT_DEFAULT = 600;
/** Harbor sets no pids limit; heldout's sandbox default (256) is too tight for builds in a task's own container. */
const HARBOR_PIDS = 4096;

const KNOWN = {
  root: ['schema_version', 'version', 'source', 'multi_step_reward_strategy', 'artifacts', 'task', 'metadata', 'steps'],
  phases: ['agent', 'verifier', 'solution', 'environment'],
  task: ['name', 'version', 'description', 'authors', 'keywords'],
  agent: ['timeout_sec', 'user', 'network_mode', 'allowed_hosts'],
  verifier: [
    'timeout_sec',
    'env',
    'user',
    'network_mode',
    'allowed_hosts',
    'environment_mode',
    'environment',
    'collect',
  ],
  environment: [
    'build_timeout_sec',
    'docker_image',
    'os',
    'cpus',
    'memory_mb',
    'storage_mb',
    'gpus',
    'gpu_types',
    'tpu',
    'memory',
    'storage',
    'network_mode',
    'allowed_hosts',
    'allow_internet',
    'env',
    'workdir',
    'healthcheck',
    'mcp_servers',
    'skills_dir',
  ],
  step: ['name', 'agent', 'verifier', 'min_reward', 'healthcheck', 'artifacts'],
};

/** `"2G"`, `"512M"` (Harbor's legacy `memory`) in MiB, or null. */
export function sizeMb(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT])i?B?$/i.exec(v.trim());
  if (!m) return null;
  const f = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 }[m[2]!.toUpperCase() as 'K' | 'M' | 'G' | 'T'];
  return Math.round(Number(m[1]) * f);
}

/** The `${VAR}` names a set of env templates reads from the host. */
export function templateNames(env: Record<string, string>): string[] {
  const names = new Set<string>();
  for (const v of Object.values(env)) for (const m of v.matchAll(/\$\{([A-Za-z_]\w*)(:-[^}]*)?\}/g)) names.add(m[1]!);
  return [...names].sort();
}

function envTable(v: unknown, where: string, notes: string[]): Record<string, string> {
  const o = asObject(v);
  if (!o) return {};
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(o)) {
    if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
    else notes.push(`${where}.${k} is not a string and is dropped (Harbor requires string values)`);
  }
  return out;
}

function healthcheck(v: unknown): Record<string, unknown> | null {
  const h = asObject(v);
  const command = asText(h?.command);
  if (!h || !command) return null;
  const out: Record<string, unknown> = { command };
  const map: [string, string][] = [
    ['interval_sec', 'intervalSeconds'],
    ['timeout_sec', 'timeoutSeconds'],
    ['start_period_sec', 'startPeriodSeconds'],
    ['start_interval_sec', 'startIntervalSeconds'],
    ['retries', 'retries'],
  ];
  for (const [from, to] of map) if (asNumber(h[from]) !== null) out[to] = asNumber(h[from]);
  return out;
}

function artifacts(v: unknown, where: string, notes: string[]): Record<string, unknown>[] {
  if (!Array.isArray(v)) return [];
  const out: Record<string, unknown>[] = [];
  for (const a of v) {
    if (typeof a === 'string') out.push({ source: a });
    else {
      const o = asObject(a);
      const source = asText(o?.source);
      if (!o || !source) continue;
      const service = asText(o.service);
      if (service && service !== 'main') {
        notes.push(`${where}: artifact ${source} of compose service ${service} is not collected (only main's are)`);
        continue;
      }
      out.push({
        source,
        ...(asText(o.destination) ? { destination: asText(o.destination) } : {}),
        ...(asStringList(o.exclude)?.length ? { exclude: asStringList(o.exclude) } : {}),
      });
    }
  }
  return out;
}

function unknownKeys(table: Record<string, unknown> | null, known: string[], where: string, notes: string[]): void {
  if (!table) return;
  const extra = Object.keys(table).filter((k) => !known.includes(k));
  if (extra.length)
    notes.push(
      `${where} ${extra.map((k) => `\`${k}\``).join(', ')}: not in Harbor's task schema, which ignores them; so does heldout`,
    );
}

/** Per-phase network overrides: heldout gives a trial one network for all its phases. */
function phaseNetwork(t: Record<string, unknown> | null, where: string, notes: string[]): void {
  if (t && (t.network_mode !== undefined || t.allowed_hosts !== undefined))
    notes.push(
      `${where} network_mode/allowed_hosts (a per-phase network override) is not applied: a heldout trial has one network for all its phases`,
    );
}

/**
 * Reads a parsed task.toml; see `TaskTomlReading`. `has` says whether the task has a file (a separate verifier's
 * tests/Dockerfile).
 */
export function readTaskToml(
  toml: TomlTable,
  opts: { multiStep: boolean; has?: (rel: string) => boolean },
): TaskTomlReading {
  const notes: string[] = [];
  const unsupported: string[] = [];
  const task = asObject(toml.task);
  const env = asObject(toml.environment);
  const agent = asObject(toml.agent);
  const verifier = asObject(toml.verifier);
  const solution = asObject(toml.solution);
  const extraRoot = Object.keys(toml).filter((k) => !KNOWN.root.includes(k) && !KNOWN.phases.includes(k));
  if (extraRoot.length)
    notes.push(
      `task.toml ${extraRoot.map((k) => `\`${k}\``).join(', ')}: not in Harbor's task schema, which ignores them; so does heldout`,
    );
  unknownKeys(task, KNOWN.task, '[task]', notes);
  unknownKeys(agent, [...KNOWN.agent, 'kwargs'], '[agent]', notes);
  if (agent?.kwargs !== undefined)
    notes.push(
      '[agent.kwargs] configures a Harbor agent (e.g. max_turns); the delivery is the agent here, so it is not used',
    );
  unknownKeys(verifier, KNOWN.verifier, '[verifier]', notes);
  unknownKeys(env, KNOWN.environment, '[environment]', notes);
  if (toml.metadata !== undefined)
    notes.push('[metadata] is descriptive (Harbor never reads it); kept in harbor/task.toml');

  const os = asText(env?.os) ?? 'linux';
  if (os !== 'linux') unsupported.push(`[environment].os = "${os}" (heldout runs Linux containers only)`);
  if ((asNumber(env?.gpus) ?? 0) > 0) unsupported.push(`[environment].gpus = ${env!.gpus} (heldout gives no GPUs)`);
  if (env?.tpu !== undefined) unsupported.push('[environment].tpu (heldout gives no TPUs)');
  const vctx: VerifierContext = { environment: env, taskVerifier: verifier, has: opts.has ?? (() => false) };
  const extras = readVerifierExtras(verifier, null, vctx, notes, unsupported);
  for (const [k, why] of [
    ['storage_mb', "Harbor's docker provider ignores it too"],
    ['storage', "Harbor's docker provider ignores it too"],
    ['gpu_types', 'no GPUs are given'],
  ] as const) {
    if (env && env[k] !== undefined)
      notes.push(`[environment].${k} = ${JSON.stringify(env[k])} has no heldout counterpart (${why})`);
  }

  // --- budgets
  const agentTimeout = asNumber(agent?.timeout_sec);
  const memory = asNumber(env?.memory_mb) ?? sizeMb(env?.memory);
  const cpus = asNumber(env?.cpus);
  const budgets: TaskTomlReading['budgets'] = { wallSeconds: agentTimeout ?? AGENT_DEFAULT, pids: HARBOR_PIDS };
  if (memory !== null) budgets.memoryMb = memory;
  else notes.push("[environment] sets no memory: heldout's default 4096 MiB applies (Harbor sets no limit)");
  if (cpus !== null) budgets.cpus = cpus;
  notes.push(
    `budgets.pids is ${HARBOR_PIDS}: Harbor sets no pids limit, and a task's builds need more than heldout's default`,
  );
  const buildTimeout = asNumber(env?.build_timeout_sec);
  if (buildTimeout !== null)
    notes.push(
      `[environment].build_timeout_sec = ${buildTimeout}: bounds Harbor's build and start; heldout builds with its own limits`,
    );

  // --- network
  const allow = env?.allow_internet;
  const mode = asText(env?.network_mode) ?? (allow === false ? 'no-network' : 'public');
  if (!['public', 'no-network', 'allowlist'].includes(mode))
    unsupported.push(`[environment].network_mode = "${mode}" (Harbor knows public, no-network, allowlist)`);
  const allowedHosts = asStringList(env?.allowed_hosts) ?? [];
  notes.push(
    mode === 'no-network'
      ? 'network: the task runs with no network (allow_internet = false / network_mode = "no-network"), as heldout trials do by default'
      : `network: the task allows ${mode === 'allowlist' ? `the hosts ${allowedHosts.join(', ')}` : 'the internet'}${allow === true ? ' (allow_internet = true)' : " (Harbor's default is public)"}; heldout honours that only where the engine has a network (a \`bridge\` network), and otherwise runs the trial without one, saying so in the case's record — a phase that needs the network then fails as an infra-error naming it`,
  );
  phaseNetwork(agent, '[agent]', notes);
  phaseNetwork(verifier, '[verifier]', notes);

  // --- the harbor block
  const envVars = envTable(env?.env, '[environment.env]', notes);
  const verifierEnv = envTable(verifier?.env, '[verifier.env]', notes);
  const solutionEnv = envTable(solution?.env, '[solution.env]', notes);
  const hostVars = templateNames({ ...envVars, ...verifierEnv, ...solutionEnv });
  if (hostVars.length)
    notes.push(
      `env templates read ${hostVars.join(', ')} from the host when the trial starts, as Harbor does (one that is unset and has no default is an infra-error naming it; heldout's own HELDOUT_*/OPENAI_* variables are never passed)`,
    );
  const harbor: Record<string, unknown> = {
    dir: 'harbor',
    workdir: asText(env?.workdir),
    env: envVars,
    agent: {
      timeoutSeconds: agentTimeout,
      user: asText(agent?.user) ?? (typeof agent?.user === 'number' ? String(agent.user) : null),
    },
    verifier: {
      timeoutSeconds: asNumber(verifier?.timeout_sec) ?? VERIFIER_DEFAULT,
      env: verifierEnv,
      user: asText(verifier?.user) ?? (typeof verifier?.user === 'number' ? String(verifier.user) : null),
      collect: extras.collect,
      separate: extras.separate,
    },
    solutionEnv,
    healthcheck: healthcheck(env?.healthcheck),
    artifacts: artifacts(toml.artifacts, 'artifacts', notes),
    network: mode,
    allowedHosts,
    mcpServers: mcpServers(env?.mcp_servers, notes),
    skillsDir: asText(env?.skills_dir),
    steps: [],
    rewardStrategy: asText(toml.multi_step_reward_strategy) === 'final' ? 'final' : 'mean',
  };
  const stepsTimed =
    Array.isArray(toml.steps) &&
    (toml.steps as unknown[]).every((x) => asNumber(asObject(asObject(x)?.agent)?.timeout_sec) !== null);
  if (agentTimeout === null && !stepsTimed)
    notes.push(
      `[agent].timeout_sec is not set: Harbor then enforces none; heldout bounds the agent by budgets.wallSeconds = ${AGENT_DEFAULT} s`,
    );
  if (harbor.skillsDir)
    notes.push(
      `[environment].skills_dir = ${harbor.skillsDir}: a directory of skills in the environment; the delivery is told its path (HARBOR_SKILLS_DIR), as Harbor tells its agents`,
    );

  if (Array.isArray(toml.steps)) {
    if (!opts.multiStep) notes.push('[[steps]] is declared but the task has no steps/ directory');
    const steps = (toml.steps as unknown[]).map((s, i) =>
      readStep(asObject(s) ?? {}, i, agentTimeout, vctx, notes, unsupported),
    );
    harbor.steps = steps;
    budgets.wallSeconds = steps.reduce(
      (sum, s) => sum + ((s.agentTimeoutSeconds as number | null) ?? agentTimeout ?? AGENT_DEFAULT),
      0,
    );
    notes.push(
      `budgets.wallSeconds = ${budgets.wallSeconds}: the sum of the steps' agent timeouts (each step is bounded by its own)`,
    );
  }
  return {
    harbor,
    budgets,
    name: asText(task?.name),
    description: asText(task?.description),
    unsupported,
    notes,
  };
}

function readStep(
  s: Record<string, unknown>,
  i: number,
  taskAgentTimeout: number | null,
  vctx: VerifierContext,
  notes: string[],
  unsupported: string[],
): Record<string, unknown> {
  const name = asText(s.name) ?? `step-${i + 1}`;
  const where = `[[steps]] ${name}`;
  unknownKeys(s, KNOWN.step, where, notes);
  const agent = asObject(s.agent);
  const verifier = asObject(s.verifier);
  phaseNetwork(agent, `${where} agent`, notes);
  phaseNetwork(verifier, `${where} verifier`, notes);
  const extras = readVerifierExtras(verifier, name, vctx, notes, unsupported);
  let minReward: unknown = null;
  if (asNumber(s.min_reward) !== null) minReward = s.min_reward;
  else if (asObject(s.min_reward)) minReward = asObject(s.min_reward);
  const agentTimeout = asNumber(agent?.timeout_sec);
  return {
    name,
    minReward,
    agentTimeoutSeconds: agentTimeout ?? taskAgentTimeout,
    agentUser: asText(agent?.user),
    verifier: {
      // Harbor's StepConfig defaults the step verifier's timeout to 600 s, whatever the task's is.
      timeoutSeconds: asNumber(verifier?.timeout_sec) ?? VERIFIER_DEFAULT,
      env: envTable(verifier?.env, `${where} verifier.env`, notes),
      user: asText(verifier?.user),
      collect: extras.collect,
      separate: extras.separate,
    },
    healthcheck: healthcheck(s.healthcheck),
    artifacts: artifacts(s.artifacts, `${where} artifacts`, notes),
  };
}

function mcpServers(v: unknown, notes: string[]): Record<string, unknown>[] {
  if (!Array.isArray(v)) return [];
  const out: Record<string, unknown>[] = [];
  for (const x of v) {
    const o = asObject(x);
    const name = asText(o?.name);
    if (!o || !name) continue;
    let transport = asText(o.transport) ?? 'sse';
    if (transport === 'http') transport = 'streamable-http';
    const server: Record<string, unknown> = { name, transport };
    if (asText(o.url)) server.url = asText(o.url);
    if (asText(o.command)) server.command = asText(o.command);
    if (asStringList(o.args)?.length) server.args = asStringList(o.args);
    out.push(server);
    notes.push(
      `MCP server \`${name}\` (${transport}${server.url ? ` ${server.url}` : server.command ? ` \`${server.command}\`` : ''}): Harbor starts no MCP server, it hands the list to the agent; heldout hands it to the delivery as data (HARBOR_MCP_SERVERS, JSON). The server itself is the task's compose service, which runs only where case services can`,
    );
  }
  return out;
}
