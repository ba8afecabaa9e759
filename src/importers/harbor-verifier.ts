import { asNumber, asObject, asText } from './values.js';

/**
 * A `[verifier]` table's schema-1.4 parts read as Harbor resolves them (harbor `models/task/verifier_mode.py`):
 * `[[verifier.collect]]` hooks, and whether the verifier runs in its own environment — an explicit
 * `environment_mode` wins, a `[verifier.environment]` implies `separate`, a step inherits the task's; the separate
 * environment is the step's `[verifier.environment]`, else the task's, else a fresh copy of `[environment]`, its image
 * built from the tests directory (the step's `tests/` where it has one) unless the environment names a docker_image.
 */
export interface VerifierExtras {
  collect: { command: string; timeoutSeconds: number; user: string | null }[];
  separate: Record<string, unknown> | null;
}

/** Where the task's files are, for the tests directory a separate verifier is built from. */
export interface VerifierContext {
  /** The task's `[environment]` table (the separate environment's fallback). */
  environment: Record<string, unknown> | null;
  /** The task-level `[verifier]` table (a step inherits its mode and environment). */
  taskVerifier: Record<string, unknown> | null;
  /** True when the task has this file (a path relative to the task directory). */
  has: (rel: string) => boolean;
}

const userOf = (v: unknown) => asText(v) ?? (typeof v === 'number' ? String(v) : null);

/** The mode one `[verifier]` table states: explicit, implied by an environment, or null (not said at this level). */
function modeOf(v: Record<string, unknown> | null): string | null {
  const explicit = asText(v?.environment_mode);
  if (explicit) return explicit;
  return v?.environment !== undefined ? 'separate' : null;
}

/** Reads one `[verifier]` table (`step`: the step's name, null for the task's); see `VerifierExtras`. */
export function readVerifierExtras(
  verifier: Record<string, unknown> | null,
  step: string | null,
  ctx: VerifierContext,
  notes: string[],
  unsupported: string[],
): VerifierExtras {
  const where = step ? `[[steps]] ${step} [verifier]` : '[verifier]';
  const collect: VerifierExtras['collect'] = [];
  const hooks = Array.isArray(verifier?.collect) ? (verifier.collect as unknown[]) : [];
  for (const h of hooks) {
    const o = asObject(h);
    const command = asText(o?.command);
    if (!o || !command) continue;
    const service = asText(o.service) ?? 'main';
    if (service !== 'main') {
      unsupported.push(
        `${where} [[verifier.collect]] in compose service ${service} (heldout runs commands only in the main container)`,
      );
      continue;
    }
    collect.push({ command, timeoutSeconds: asNumber(o.timeout_sec) ?? 60, user: userOf(o.user) });
  }
  if (collect.length)
    notes.push(
      `${where} [[verifier.collect]]: ${collect.length} hook(s) run in the main container after the agent and before the artifacts are collected, best-effort (a failing hook is recorded, as Harbor logs it)`,
    );

  const mode = modeOf(verifier) ?? (step ? modeOf(ctx.taskVerifier) : null) ?? 'shared';
  if (mode !== 'separate') {
    if (mode !== 'shared') unsupported.push(`${where}.environment_mode = "${mode}" (Harbor knows shared, separate)`);
    else if (verifier?.environment !== undefined)
      unsupported.push(`${where}: environment_mode = "shared" with a [verifier.environment] (Harbor refuses it)`);
    return { collect, separate: null };
  }
  const env =
    asObject(verifier?.environment) ?? (step ? asObject(ctx.taskVerifier?.environment) : null) ?? ctx.environment;
  const os = asText(env?.os) ?? 'linux';
  if (os !== 'linux') unsupported.push(`${where}: a verifier environment with os = "${os}"`);
  if ((asNumber(env?.gpus) ?? 0) > 0 || env?.tpu !== undefined)
    unsupported.push(`${where}: a verifier environment with GPUs or TPUs (heldout gives none)`);
  const context = step && ctx.has(`steps/${step}/tests`) ? `steps/${step}/tests` : 'tests';
  const image = asText(env?.docker_image);
  const dockerfile = !image && ctx.has(`${context}/Dockerfile`) ? 'Dockerfile' : null;
  if (!image && !dockerfile)
    unsupported.push(
      `${where}: a separate verifier environment with neither ${context}/Dockerfile nor a docker_image (Harbor has nothing to build it from)`,
    );
  const network = asText(env?.network_mode) ?? (env?.allow_internet === false ? 'no-network' : 'public');
  notes.push(
    `${where}: the verifier runs in its own environment, as Harbor's separate mode does: a fresh container of ${image ? `the image ${image}` : `the image built from ${context}/Dockerfile`} (which owns /tests), given only the declared artifacts (at their paths) and /logs/artifacts from the agent's container`,
  );
  return {
    collect,
    separate: {
      image,
      context: `harbor/${context}`,
      dockerfile,
      workdir: asText(env?.workdir),
      memoryMb: asNumber(env?.memory_mb),
      cpus: asNumber(env?.cpus),
      network: ['public', 'no-network', 'allowlist'].includes(network) ? network : 'public',
    },
  };
}
