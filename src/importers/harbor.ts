import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { stripCanary } from '../util/index.js';
import { commissionId } from './commission-fields.js';
import { type BuiltPackage, defineImporter, type ImportContext, type Importer } from './define-importer.js';
import { cachedPackage, datasetTasks, PACKAGE_REF, registryPaths } from './harbor-collections.js';
import { readCompose } from './harbor-compose.js';
import { type DockerfileFacts, readDockerfile } from './harbor-dockerfile.js';
import { runtimeFetches } from './harbor-fetches.js';
import { accountFiles } from './harbor-files.js';
import { dimensionId, equalMaxima, rewardKeys } from './harbor-rewards.js';
import { readTaskToml, templateNames } from './harbor-task.js';
import { toYaml } from './package-writer.js';
import { listTree, readIfExists, subdirs } from './source-files.js';
import { parseToml, TomlError, type TomlTable } from './toml.js';
import { ImportError, type ImportOptions } from './types.js';
import { asObject, asText } from './values.js';

/**
 * The entry command of an imported Harbor task when none is given. Harbor names none (the agent is whatever is
 * evaluated); the delivery runs inside the task's own container, whose image may have no interpreter but `sh`.
 */
export const HARBOR_DEFAULT_ENTRY = 'sh {delivery}/run.sh {input}';

export interface HarborImportOptions extends ImportOptions {
  /** The delivery's launch command, run in the task's container in its workdir (default `HARBOR_DEFAULT_ENTRY`). */
  entry?: string;
}

/**
 * Imports a Harbor task (Terminal-Bench 2 layout: `task.toml`, `instruction.md` or `steps/`, `environment/`,
 * `tests/`, `solution/`) into a `harbor`-family commission that runs it as Harbor does: the task copied verbatim to
 * `harbor/`, one case (the instruction), the verifier's reward keys as dimensions. Refuses, naming each, a task
 * that lacks what Harbor requires or uses what heldout cannot run; accounts for every file in IMPORT-NOTES.
 */
const importHarborTask = defineImporter<HarborImportOptions>({ kind: 'harbor', build: buildHarbor });

/** `importHarborTask`, refusing a registry file (`registry.json`) by what it is rather than as "not a directory". */
export const importHarbor: Importer<HarborImportOptions> = async (source, outDir, options) => {
  if (!existsSync(source) && PACKAGE_REF.test(source)) {
    // A package by digest already in Harbor's cache is the task Harbor would run: imported from there.
    const cached = cachedPackage(source);
    if (cached) return importHarborTask(cached, outDir, options);
    throw new ImportError(source, [
      `a Harbor registry package reference (org/name@ref) that is not in Harbor's cache (~/.cache/harbor/tasks/packages, by digest): heldout fetches nothing (no network); \`harbor download ${source}\` and import the directory it writes`,
    ]);
  }
  if (existsSync(source) && statSync(source).isFile() && path.basename(source) === 'registry.json')
    throw new ImportError(source, [
      `a Harbor registry, not a task: import each task it lists (heldout import harbor <dir>/<task>)${registryPaths(source)}`,
    ]);
  return importHarborTask(source, outDir, options);
};

function buildHarbor({ source, sourceDir: taskDir, options, draft }: ImportContext<HarborImportOptions>): BuiltPackage {
  const dataset = datasetTasks(taskDir);
  if (dataset) throw new ImportError(source, [dataset]);
  const missing: string[] = [];
  const tomlText = readIfExists(path.join(taskDir, 'task.toml'));
  let toml: TomlTable = {};
  let tomlProblem: string | null = tomlText === null ? 'task.toml (timeouts and resources)' : null;
  if (tomlText !== null) {
    try {
      toml = parseToml(tomlText);
    } catch (err) {
      if (!(err instanceof TomlError)) throw err;
      tomlProblem = `task.toml: ${err.message}`;
    }
  }
  const declaredSteps = Array.isArray(toml.steps)
    ? (toml.steps as unknown[]).map((s, i) => asText(asObject(s)?.name) ?? `step-${i + 1}`)
    : [];
  const multiStep = declaredSteps.length > 0;
  const has = (rel: string) => existsSync(path.join(taskDir, rel));
  let instruction: string | null = null;
  if (!multiStep) {
    instruction = readIfExists(path.join(taskDir, 'instruction.md'));
    if (instruction === null) missing.push('instruction.md (the task prompt)');
    else if (stripCanary(instruction).trim() === '') missing.push('instruction.md is empty');
    if (tomlProblem) missing.push(tomlProblem);
    if (!has('tests/test.sh')) missing.push('tests/test.sh (the verifier writing reward.txt or reward.json)');
  } else {
    if (tomlProblem) missing.push(tomlProblem);
    for (const name of declaredSteps) {
      const text = readIfExists(path.join(taskDir, 'steps', name, 'instruction.md'));
      if (text === null || stripCanary(text).trim() === '')
        missing.push(`steps/${name}/instruction.md (step ${name}'s prompt)`);
      if (!has(`steps/${name}/tests/test.sh`) && !has('tests/test.sh'))
        missing.push(`steps/${name}/tests/test.sh or tests/test.sh (step ${name}'s verifier)`);
    }
  }
  const dockerfileText = readIfExists(path.join(taskDir, 'environment', 'Dockerfile'));
  const composeText = readIfExists(path.join(taskDir, 'environment', 'docker-compose.yaml'));
  const envTable = asObject(toml.environment);
  const prebuilt = asText(envTable?.docker_image);
  if (!has('environment') || !statSync(path.join(taskDir, 'environment')).isDirectory())
    missing.push('environment/ (Harbor requires the directory)');
  else if (dockerfileText === null && prebuilt === null)
    missing.push('environment/Dockerfile or [environment].docker_image (the image the trial runs)');
  const task = asObject(toml.task);
  if (task && !/^[a-zA-Z0-9][a-zA-Z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*$/.test(asText(task.name) ?? ''))
    missing.push('task.toml: [task].name must be org/name (Harbor requires it once [task] exists)');
  if (missing.length > 0) throw new ImportError(source, missing);

  const reading = readTaskToml(toml, { multiStep: has('steps'), has });
  if (reading.unsupported.length)
    throw new ImportError(
      source,
      reading.unsupported.map((u) => `unsupported: ${u}`),
    );
  const name = reading.name?.split('/').pop() ?? path.basename(taskDir);
  const id = commissionId(name);
  const notes = [...reading.notes];
  const harbor = reading.harbor;

  // --- the environment image
  const facts: DockerfileFacts | null = dockerfileText === null ? null : readDockerfile(dockerfileText);
  harbor.image = imageBlock(facts, prebuilt, notes);
  // --- compose sidecars
  const serviceContexts: Record<string, string> = {};
  let services: Record<string, unknown>[] = [];
  if (composeText !== null) {
    let compose: ReturnType<typeof readCompose>;
    try {
      compose = readCompose(composeText);
    } catch (err) {
      throw new ImportError(source, [`environment/docker-compose.yaml: ${(err as Error).message.split('\n')[0]}`]);
    }
    notes.push(...compose.notes);
    if (compose.mainOverrides.length)
      notes.push(
        `compose service main overrides ${compose.mainOverrides.map((k) => `\`${k}\``).join(', ')}: not carried over (main is the trial container heldout makes)`,
      );
    services = compose.services.flatMap((s) => {
      if (!s.build && !s.image) {
        notes.push(`compose service \`${s.name}\` has neither build nor image: it is not run`);
        return [];
      }
      if (s.build) serviceContexts[s.name] = s.build.context;
      if (s.entrypoint) notes.push(`compose service \`${s.name}\`: its entrypoint override is not carried over`);
      const ready = readyOf(s.healthcheck);
      const hostVars = templateNames(s.env);
      if (hostVars.length)
        notes.push(
          `compose service \`${s.name}\` reads ${hostVars.join(', ')} from the host when it starts (an unset one without a default is an infra-error naming it)`,
        );
      notes.push(
        `compose service \`${s.name}\` (${s.build ? `built from environment/${s.build.context}` : `image ${s.image}`}${s.expose.length ? `, port ${s.expose.join(', ')}` : ''}): a case service in the trial's pod, where the agent reaches it as ${s.name}; the trial starts once it is ${ready ? 'healthy (its healthcheck as the ready command)' : 'running'}`,
      );
      return [
        {
          name: s.name,
          ...(s.build
            ? {
                build: {
                  context: path.posix.join('harbor/environment', s.build.context),
                  dockerfile: s.build.dockerfile,
                },
              }
            : { image: s.image }),
          ...(s.command ? { command: s.command } : {}),
          ...(Object.keys(s.env).length ? { env: s.env } : {}),
          ...(ready ? { ready: ready.ready, timeout: ready.timeout } : {}),
        },
      ];
    });
  }
  if (has('environment/docker-compose.yml') && composeText === null)
    notes.push('environment/docker-compose.yml is ignored, as Harbor ignores it (it reads only docker-compose.yaml)');

  // --- the reward keys → dimensions
  const verifierFiles = listTree(taskDir)
    .filter((f) => /^(tests\/|steps\/[^/]+\/tests\/)/.test(f))
    .map((f) => ({ path: f, text: readIfExists(path.join(taskDir, f)) ?? '' }));
  const rewards = rewardKeys(verifierFiles);
  notes.push(...rewardNotes(rewards));
  harbor.score = rewards.keys;
  const taken = new Set<string>();
  const maxima = equalMaxima(rewards.keys.length);
  const dimensions = rewards.keys.map((key, i) => ({
    id: dimensionId(key, taken),
    title: key === 'reward' ? 'Harbor verifier reward' : `Harbor reward: ${key}`,
    max: maxima[i]!,
    items: [{ check: 'reward', file: 'reward.json', key, points: maxima[i]!, title: `reward.json ${key}` }],
  }));
  notes.push(...solutionNotes(taskDir, declaredSteps));

  notes.push(...fetchNotes(taskDir));

  // --- commission.yaml
  const entry = options.entry ?? HARBOR_DEFAULT_ENTRY;
  if (!options.entry)
    notes.push(
      `Harbor names no launch command; the entry is \`${entry}\`, run in the task's container in its workdir (pass --entry to change it)`,
    );
  notes.push(
    'a Harbor trial is graded by its verifier alone: the agent exit code and a timeout do not gate the case (Harbor verifies whatever state the agent left); a verifier that cannot run, or writes no reward, makes the case an infra-error carrying its output',
  );
  notes.push('pass rule: minResult 100, i.e. full reward (Terminal-Bench counts a task solved at reward 1)');
  const commission: Record<string, unknown> = {
    id,
    title: reading.description ?? headingOf(instruction) ?? name,
    family: 'harbor',
    entry,
    sandbox: sandboxOf(facts, prebuilt),
    ...(services.length ? { services } : {}),
    budgets: reading.budgets,
    trials: 1,
    pass: { minResult: 100 },
    harbor,
  };
  draft.put('commission.yaml', toYaml(commission));
  draft.put('rubric.yaml', toYaml({ dimensions }));

  // --- requirement and the single case
  const steps = declaredSteps.map((n) => ({
    name: n,
    text: stripCanary(readIfExists(path.join(taskDir, 'steps', n, 'instruction.md')) ?? '').trim(),
  }));
  const caseInput = multiStep
    ? `${steps.map((s, i) => `## Step ${i + 1}: ${s.name}\n\n${s.text}`).join('\n\n')}\n`
    : `${stripCanary(instruction!).trimEnd()}\n`;
  requirementDocs(draft, caseInput, entry, harbor, reading.budgets);
  for (const split of ['dev', 'heldout'] as const) draft.put(`cases/${split}/task/input.md`, caseInput);
  notes.push(
    multiStep
      ? `a multi-step task is one case whose steps run in order in one container; input.md lists the steps (${declaredSteps.join(', ')}), but the delivery sees only the current step's instruction at {input}, as Harbor's agent does`
      : 'a Harbor task is one case: the instruction is the held-out case `task` and, as heldout needs a development case, also the dev case `task`; so the dev/held-out gap of this commission means nothing',
  );
  for (const d of subdirs(path.join(taskDir, 'steps')))
    if (!declaredSteps.includes(d)) notes.push(`steps/${d}/ is not a declared [[steps]] entry: Harbor does not run it`);

  // --- the task itself, verbatim, and what became of each file
  const files = draft.copyTree(taskDir, 'harbor');
  for (const [f, became] of accountFiles({
    files,
    copies: facts?.copies ?? [],
    serviceContexts,
    hasCompose: composeText !== null,
    steps: declaredSteps,
    verifierContexts: verifierContexts(harbor),
  }))
    draft.account(f, became);
  for (const n of notes) draft.note(n);
  return { id, sourceName: path.basename(taskDir) };
}

/** The tests directories (relative to the task) separate verifiers' images are built from. */
function verifierContexts(harbor: Record<string, unknown>): string[] {
  type V = { separate?: { context: string; dockerfile: string | null } | null };
  const all = [harbor.verifier as V, ...((harbor.steps as { verifier: V }[]) ?? []).map((s) => s.verifier)];
  const out = all.flatMap((v) => (v?.separate?.dockerfile ? [v.separate.context.replace(/^harbor\//, '')] : []));
  return [...new Set(out)];
}

/** How the verifier's reward files become the score, as notes. */
function rewardNotes(r: ReturnType<typeof rewardKeys>): string[] {
  const notes: string[] = [];
  const from = r.evidence.length ? ` (read from ${r.evidence.join(', ')})` : '';
  if (r.keys.length > 1)
    notes.push(
      `reward keys ${r.keys.join(', ')}${from} are one dimension each, equally weighted; the Result is their mean × 100`,
    );
  else if (r.recorded.length)
    notes.push(
      `the score is \`reward\`${r.writesTxt && !r.evidence.length ? '' : from}${r.writesTxt ? ', which Harbor takes from reward.txt when reward.json has none' : ''}; reward.json's other numbers (${r.recorded.join(', ')}) are recorded in the case's harbor-trial.json, never scored`,
    );
  else if (r.unreadJson)
    notes.push(
      `the verifier names reward.json but no key could be read from it: the score is its \`reward\`${r.writesTxt ? ' (or reward.txt merged in as `reward`, as Harbor does)' : ''}; a run without one is an infra-error naming the keys it wrote`,
    );
  notes.push(
    'reward.json is read as Harbor reads it: its numbers kept, other values (text, booleans, lists) dropped; a score key outside [0, 1] is an infra-error, never clamped into full marks or 0',
  );
  return notes;
}

/** What `--oracle` and calibration have to run: a note for a task (or a step) without solve.sh. */
function solutionNotes(taskDir: string, steps: string[]): string[] {
  const has = (rel: string) => existsSync(path.join(taskDir, rel));
  const top = has('solution/solve.sh');
  const lacking = steps.length ? steps.filter((s) => !top && !has(`steps/${s}/solution/solve.sh`)) : top ? [] : [null];
  if (!lacking.length) return [];
  const what = lacking[0] === null ? 'no solution/ (solve.sh)' : `no solution for step ${lacking.join(', ')}`;
  return [
    `the task has ${what}: \`heldout run --oracle\` says so and runs nothing, and where the image is substituted no oracle calibrates it, so a delivery's reward below full there is an infra-error (full reward still grades)`,
  ];
}

/** What each script of the task fetches when it runs, by phase: the phases that need a network. */
function fetchNotes(taskDir: string): string[] {
  const notes: string[] = [];
  for (const f of listTree(taskDir)) {
    const phase = /(^|\/)tests\/test\.sh$/.test(f)
      ? "the verifier needs the network for it (and those tools in the image); where the trial has none it cannot run, and the case is an infra-error naming what was missing, never the delivery's 0"
      : /(^|\/)solution\/solve\.sh$/.test(f)
        ? '`heldout run --oracle` needs the network for it'
        : /\/workdir\/setup\.sh$/.test(f)
          ? "the step's setup needs the network for it"
          : null;
    if (!phase) continue;
    const found = runtimeFetches(readIfExists(path.join(taskDir, f)) ?? '');
    if (found.length) notes.push(`\`${f}\` fetches when it runs: ${found.join(', ')}; ${phase}`);
  }
  return notes;
}

/** A compose healthcheck as a service's ready command, with a deadline its retries fit in. */
function readyOf(
  h: ReturnType<typeof readCompose>['services'][number]['healthcheck'],
): { ready: { command: string | string[] }; timeout: number } | null {
  if (!h) return null;
  const command = h.test[0] === 'CMD-SHELL' ? (h.test[1] ?? '') : h.test[0] === 'CMD' ? h.test.slice(1) : h.test;
  if (command.length === 0) return null;
  return {
    ready: { command },
    timeout: Math.ceil(h.startPeriodSeconds + h.retries * (h.intervalSeconds + h.timeoutSeconds)) || 60,
  };
}

function headingOf(text: string | null): string | null {
  return text ? (/^#\s+(.+)$/m.exec(stripCanary(text))?.[1]?.trim() ?? null) : null;
}

/**
 * Where the trial's image comes from. A `docker_image` other than the Dockerfile's base is the task's environment
 * prebuilt (Terminal-Bench 2's `<org>/<task>:<date>`): Harbor runs it without building, and so does heldout. One
 * equal to the base (TB-2.1's `ubuntu:24.04`) is only that base: the Dockerfile is built on the engine then, as it is
 * when there is no docker_image (an image map may run another image instead, skipping the build).
 */
function sandboxOf(facts: DockerfileFacts | null, prebuilt: string | null): Record<string, unknown> {
  if (!facts) return { image: prebuilt };
  if (prebuilt && normalized(prebuilt) !== normalized(facts.base ?? '')) return { image: prebuilt };
  return { build: { context: 'harbor/environment', dockerfile: 'Dockerfile' } };
}

/** An image reference in docker's short form (`ubuntu` = `ubuntu:latest` = `docker.io/library/ubuntu:latest`). */
function normalized(ref: string): string {
  const r = ref
    .trim()
    .replace(/^(?:docker\.io|index\.docker\.io)\//, '')
    .replace(/^library\//, '');
  return /:[^/]+$|@/.test(r) ? r : `${r}:latest`;
}

/** The `harbor.image` block, with notes on what a build gives and what a replay onto another image cannot. */
function imageBlock(facts: DockerfileFacts | null, prebuilt: string | null, notes: string[]): Record<string, unknown> {
  if (!facts) {
    notes.push(
      `the image is [environment].docker_image ${prebuilt}: it must exist on the engine (heldout pulls nothing) or be mapped`,
    );
    return { dockerfile: null, context: 'harbor/environment', prebuilt };
  }
  if (facts.stages.length > 1)
    notes.push(
      `environment/Dockerfile has ${facts.stages.length} stages (${facts.stages.join(', ')}); only the final one's image is run`,
    );
  if (prebuilt && normalized(prebuilt) === normalized(facts.base ?? ''))
    notes.push(
      `[environment].docker_image = ${prebuilt} is the Dockerfile's own base: Harbor would run that bare image unless --force-build; heldout builds environment/Dockerfile, which is what the task's files need`,
    );
  else if (prebuilt)
    notes.push(
      `[environment].docker_image = ${prebuilt} is the task's environment prebuilt: heldout runs it as Harbor does (it must be on the engine: docker pull or load it); environment/Dockerfile is what it was built from`,
    );
  notes.push(
    `the trial's image is environment/Dockerfile (FROM ${facts.base}); where it is not built on the engine (no build, or its base mapped to another image), its final stage's WORKDIR, ENV, USER, ENTRYPOINT and local COPY are replayed onto the image run${facts.skipped.length ? `, and its ${facts.skipped.length} other instruction(s) are not: ${facts.skipped.map((s) => `\`${s.length > 80 ? `${s.slice(0, 77)}…` : s}\``).join(', ')}` : ' (it has no other instruction)'}`,
  );
  if (facts.ignored.length)
    notes.push(
      `Dockerfile instructions with no effect on a Harbor trial: ${facts.ignored.map((s) => `\`${s.split(/\s+/)[0]}\``).join(', ')} (Harbor replaces the command with sleep infinity)`,
    );
  return {
    dockerfile: 'harbor/environment/Dockerfile',
    context: 'harbor/environment',
    base: facts.base,
    prebuilt,
    workdir: facts.workdir,
    user: facts.user,
    entrypoint: facts.entrypoint,
    env: facts.env,
    copies: facts.copies,
    skipped: facts.skipped,
  };
}

function requirementDocs(
  draft: ImportContext['draft'],
  caseInput: string,
  entry: string,
  harbor: Record<string, unknown>,
  budgets: { wallSeconds: number; memoryMb?: number; cpus?: number },
): void {
  const doc = (title: string, body: string) => `# ${title}\n\n${body.trim()}\n`;
  const workdir = (harbor.workdir as string | null) ?? (harbor.image as { workdir?: string | null }).workdir ?? '/';
  draft.put('requirement/01_goal.md', doc('Goal', caseInput));
  draft.put(
    'requirement/02_interface.md',
    doc(
      'Interface and delivery',
      `Launch: \`${entry}\`, inside the task's own container, in ${workdir}. {input} is the instruction (of the current step), {output} is /logs/agent, {delivery} is where the delivery is copied (/delivery). The work is the container's state when the agent exits: the task's verifier (\`tests/test.sh\`) then runs in the same container and writes the reward.`,
    ),
  );
  draft.put(
    'requirement/03_requirements.md',
    doc('Requirements', "Complete the instruction so that the task's verifier awards full reward."),
  );
  draft.put(
    'requirement/04_resources.md',
    doc(
      'Resources',
      `Per case: ${budgets.wallSeconds} s for the agent${budgets.memoryMb ? `, ${budgets.memoryMb} MiB memory` : ''}${budgets.cpus ? `, ${budgets.cpus} CPUs` : ''}. Network: ${harbor.network === 'no-network' ? 'none' : 'only where the engine has one'}; model calls go through the evaluator's gateway.`,
    ),
  );
  draft.note(
    'requirement/: Harbor has only the instruction; 01_goal.md carries it and 02–04 are written from task.toml',
  );
}
